"""Where rooms live between restarts: a small store interface and its SQL implementation.

A room is stored as its creation record, its seats (token hashes, last move
sequence number) and the log of *actions* that changed it (a move, an undo, a
resignation, a flag fall...), each with the wall-clock time it happened.
Replaying the actions on a fresh :class:`~tabletop.match.Match` rebuilds the
room exactly, events, versions and clocks included.

:class:`SqlStore` writes through SQLAlchemy (SQLite by default, PostgreSQL by
URL).  Appends are *group-committed*: every action waiting while a transaction
is being written goes into the next one, so many rooms share one fsync and each
caller still resumes only after its own action is committed.  The pair
``(room_id, n)`` is the primary key of the action log, so two server processes
sharing a database can never both store action ``n`` of a room.

This module knows nothing of games, websockets or HTTP.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

__all__ = [
    "ActionRecord",
    "RoomRecord",
    "SeatRecord",
    "SqlStore",
    "Store",
    "StoredRoom",
    "StoreConflict",
    "metadata",
]

metadata = sa.MetaData()

rooms_table = sa.Table(
    "rooms",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("position", sa.Text, nullable=True),
    sa.Column("seats", sa.Text, nullable=False),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("mode", sa.String(8), nullable=False),
    sa.Column("listed", sa.Boolean, nullable=False),
    sa.Column("invite_hash", sa.String(64), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("over", sa.Boolean, nullable=False, default=False),
    sa.Column("rematch", sa.String(32), nullable=True),
)

seats_table = sa.Table(
    "seats",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("color", sa.String(8), primary_key=True),
    sa.Column("kind", sa.String(200), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=True),
    # a client's seq may be up to 2**62 (models.MoveFrame): 64 bits, also on PostgreSQL
    sa.Column("last_seq", sa.BigInteger, nullable=False, default=0),
)

actions_table = sa.Table(
    "actions",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("color", sa.String(8), nullable=True),
    sa.Column("arg", sa.Text, nullable=True),
    sa.Column("at", sa.Float, nullable=False),
)

# the statements of every move, built once (building one costs more than running it)
_INSERT_ACTIONS = actions_table.insert()
_INSERT_ROOM = rooms_table.insert()
_INSERT_SEATS = seats_table.insert()
_SET_LAST_SEQ = (
    seats_table.update()
    .where(seats_table.c.room_id == sa.bindparam("b_room"), seats_table.c.color == sa.bindparam("b_color"))
    .values(last_seq=sa.bindparam("b_seq"))
)
_SET_OVER = rooms_table.update().where(rooms_table.c.id == sa.bindparam("b_room")).values(over=True)
_SET_REMATCH = (
    rooms_table.update().where(rooms_table.c.id == sa.bindparam("b_room")).values(rematch=sa.bindparam("b_rematch"))
)


class StoreConflict(RuntimeError):
    """Another writer stored this action number first (or the row is gone)."""


@dataclass
class RoomRecord:
    id: str
    game: str
    options: dict[str, Any]
    position: str | None
    seats: dict[str, str]
    clock: dict[str, Any] | None
    mode: str
    listed: bool
    invite_hash: str | None
    created: float
    over: bool = False
    rematch: str | None = None


@dataclass
class SeatRecord:
    color: str
    kind: str
    token_hash: str | None = None
    last_seq: int = 0


@dataclass
class ActionRecord:
    """One change: ``kind`` is a Match method name (``play``, ``undo``, ``resign``, ...)."""

    n: int
    kind: str
    color: str | None
    arg: Any
    at: float


@dataclass
class StoredRoom:
    room: RoomRecord
    seats: dict[str, SeatRecord]
    actions: list[ActionRecord] = field(default_factory=list)


class Store(Protocol):
    """What the room logic needs from storage (all awaitables resolve after commit)."""

    async def create_room(
        self,
        room: RoomRecord,
        seats: list[SeatRecord],
        actions: list[ActionRecord],
        rematch_of: str | None = None,
    ) -> None:
        """Store a new room; ``rematch_of``: the finished room it is the rematch of
        (that room's ``rematch`` is set in the same transaction)."""
        ...

    async def append(
        self,
        room_id: str,
        actions: list[ActionRecord],
        seq: tuple[str, int] | None = None,
        over: bool = False,
    ) -> None: ...

    async def take_seat(self, room_id: str, color: str, token_hash: str) -> bool: ...

    async def load(self, room_id: str) -> StoredRoom | None: ...

    async def live_room_ids(self) -> list[str]: ...

    async def lobby(self, limit: int = 100) -> list[RoomRecord]: ...

    async def close(self) -> None: ...


@dataclass
class _Append:
    """The write of one move (or other action): the hot path, batched across rooms."""

    room_id: str
    actions: list[ActionRecord]
    seq: tuple[str, int] | None
    over: bool


_Write = Callable[[Connection], None] | _Append

# The append statements in the driver's own placeholder style: one executemany per
# group commit for every room's moves (SQLAlchemy's statement path costs ~30 us a call,
# more than the insert itself, and runs in the writer thread that shares the GIL).
_APPEND_SQL = {
    "insert": "INSERT INTO actions (room_id, n, kind, color, arg, at) VALUES ({0}, {0}, {0}, {0}, {0}, {0})",
    "seq": "UPDATE seats SET last_seq = {0} WHERE room_id = {0} AND color = {0}",
    "over": "UPDATE rooms SET over = {0} WHERE id = {0}",
}
_PLACEHOLDER = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def _run_appends(conn: Connection, appends: list[_Append]) -> None:
    """Write a run of appends with three executemany calls on the driver's cursor
    (inside the caller's transaction); SQLAlchemy statements for other drivers."""
    mark = _PLACEHOLDER.get(conn.dialect.paramstyle)
    if mark is None:
        for a in appends:
            _insert_actions(conn, a.room_id, a.actions)
            if a.seq is not None:
                conn.execute(_SET_LAST_SEQ, {"b_room": a.room_id, "b_color": a.seq[0], "b_seq": a.seq[1]})
            if a.over:
                conn.execute(_SET_OVER, {"b_room": a.room_id})
        return
    rows = [
        (a.room_id, r.n, r.kind, r.color, None if r.arg is None else json.dumps(r.arg), r.at)
        for a in appends
        for r in a.actions
    ]
    seqs = [(a.seq[1], a.room_id, a.seq[0]) for a in appends if a.seq is not None]
    overs = [(True, a.room_id) for a in appends if a.over]
    cursor = conn.connection.cursor()
    try:
        if rows:
            cursor.executemany(_APPEND_SQL["insert"].format(mark), rows)
        if seqs:
            cursor.executemany(_APPEND_SQL["seq"].format(mark), seqs)
        if overs:
            cursor.executemany(_APPEND_SQL["over"].format(mark), overs)
    finally:
        cursor.close()


def _run(conn: Connection, works: list[_Write]) -> None:
    """Every piece in order, consecutive appends together."""
    appends: list[_Append] = []
    for work in works:
        if isinstance(work, _Append):
            appends.append(work)
            continue
        if appends:
            _run_appends(conn, appends)
            appends = []
        work(conn)
    if appends:
        _run_appends(conn, appends)


class SqlStore:
    """The :class:`Store` on a SQLAlchemy engine, with group commit."""

    def __init__(self, url: str, *, sqlite_synchronous: str = "FULL", migrate: bool = True) -> None:
        self.url = url
        self.engine = _engine(url, sqlite_synchronous)
        if migrate:
            upgrade(self.engine)
        self._pending: list[tuple[_Write, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._lock = threading.Lock()  # one writing thread at a time
        self.commits = 0
        self.writes = 0
        dbapi = self.engine.dialect.dbapi
        # the driver's own IntegrityError: the batched appends run on its cursor
        self._driver_integrity_error: type[Exception] = getattr(dbapi, "IntegrityError", sa.exc.IntegrityError)

    # -- writes (group commit) -----------------------------------------------------------
    async def _write(self, work: _Write) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._pending.append((work, done))
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            errors = await asyncio.to_thread(self._commit_batch, [w for w, _ in batch])
            for (_, done), error in zip(batch, errors, strict=True):
                if done.done():
                    continue
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(error)

    def _commit_batch(self, works: list[_Write]) -> list[BaseException | None]:
        """Write every piece in one transaction; if that fails, each alone so
        one bad piece cannot sink the others."""
        with self._lock:
            try:
                with self.engine.begin() as conn:
                    _run(conn, works)
                self.commits += 1
                self.writes += len(works)
                return [None] * len(works)
            except Exception:  # noqa: BLE001 - retried one by one below to find the culprit
                pass
            errors: list[BaseException | None] = []
            for work in works:
                try:
                    with self.engine.begin() as conn:
                        _run(conn, [work])
                    self.commits += 1
                    self.writes += 1
                    errors.append(None)
                except (sa.exc.IntegrityError, self._driver_integrity_error):
                    errors.append(StoreConflict("another writer stored this change first"))
                except Exception as exc:  # noqa: BLE001 - handed to the waiting caller
                    errors.append(exc)
            return errors

    async def create_room(
        self,
        room: RoomRecord,
        seats: list[SeatRecord],
        actions: list[ActionRecord],
        rematch_of: str | None = None,
    ) -> None:
        def work(conn: Connection) -> None:
            conn.execute(
                _INSERT_ROOM,  # built once; the values go as parameters (building costs more than running)
                {
                    "id": room.id,
                    "game": room.game,
                    "options": json.dumps(room.options),
                    "position": room.position,
                    "seats": json.dumps(room.seats),
                    "clock": None if room.clock is None else json.dumps(room.clock),
                    "mode": room.mode,
                    "listed": room.listed,
                    "invite_hash": room.invite_hash,
                    "created": room.created,
                    "over": room.over,
                    "rematch": None,
                },
            )
            conn.execute(
                _INSERT_SEATS,
                [
                    {
                        "room_id": room.id,
                        "color": s.color,
                        "kind": s.kind,
                        "token_hash": s.token_hash,
                        "last_seq": 0,
                    }
                    for s in seats
                ],
            )
            _insert_actions(conn, room.id, actions)
            if rematch_of is not None:
                conn.execute(_SET_REMATCH, {"b_room": rematch_of, "b_rematch": room.id})

        await self._write(work)

    async def append(
        self,
        room_id: str,
        actions: list[ActionRecord],
        seq: tuple[str, int] | None = None,
        over: bool = False,
    ) -> None:
        await self._write(_Append(room_id, actions, seq, over))

    async def take_seat(self, room_id: str, color: str, token_hash: str) -> bool:
        taken: list[bool] = []

        def work(conn: Connection) -> None:
            result = conn.execute(
                seats_table.update()
                .where(
                    seats_table.c.room_id == room_id,
                    seats_table.c.color == color,
                    seats_table.c.token_hash.is_(None),
                )
                .values(token_hash=token_hash)
            )
            taken.append(result.rowcount == 1)

        await self._write(work)
        return bool(taken and taken[0])

    # -- reads --------------------------------------------------------------------------------
    async def load(self, room_id: str) -> StoredRoom | None:
        return await asyncio.to_thread(self._load, room_id)

    def _load(self, room_id: str) -> StoredRoom | None:
        with self.engine.connect() as conn:
            row = conn.execute(rooms_table.select().where(rooms_table.c.id == room_id)).mappings().first()
            if row is None:
                return None
            seats = {
                r["color"]: SeatRecord(r["color"], r["kind"], r["token_hash"], r["last_seq"])
                for r in conn.execute(seats_table.select().where(seats_table.c.room_id == room_id)).mappings()
            }
            actions = [
                ActionRecord(
                    r["n"], r["kind"], r["color"], None if r["arg"] is None else json.loads(r["arg"]), r["at"]
                )
                for r in conn.execute(
                    actions_table.select()
                    .where(actions_table.c.room_id == room_id)
                    .order_by(actions_table.c.n)
                ).mappings()
            ]
        return StoredRoom(_room(row), seats, actions)

    async def live_room_ids(self) -> list[str]:
        def read() -> list[str]:
            with self.engine.connect() as conn:
                return [
                    r[0]
                    for r in conn.execute(sa.select(rooms_table.c.id).where(rooms_table.c.over.is_(False)))
                ]

        return await asyncio.to_thread(read)

    async def lobby(self, limit: int = 100) -> list[RoomRecord]:
        def read() -> list[RoomRecord]:
            free = (
                sa.select(seats_table.c.room_id)
                .where(seats_table.c.kind == "human", seats_table.c.token_hash.is_(None))
                .scalar_subquery()
            )
            query = (
                rooms_table.select()
                .where(
                    rooms_table.c.listed.is_(True), rooms_table.c.over.is_(False), rooms_table.c.id.in_(free)
                )
                .order_by(rooms_table.c.created.desc())
                .limit(limit)
            )
            with self.engine.connect() as conn:
                return [_room(r) for r in conn.execute(query).mappings()]

        return await asyncio.to_thread(read)

    async def close(self) -> None:
        while self._writer is not None and not self._writer.done():
            await self._writer
        self.engine.dispose()


def _insert_actions(conn: Connection, room_id: str, actions: list[ActionRecord]) -> None:
    if not actions:
        return
    conn.execute(
        _INSERT_ACTIONS,
        [
            {
                "room_id": room_id,
                "n": a.n,
                "kind": a.kind,
                "color": a.color,
                "arg": None if a.arg is None else json.dumps(a.arg),
                "at": a.at,
            }
            for a in actions
        ],
    )


def _room(row: Any) -> RoomRecord:
    return RoomRecord(
        id=row["id"],
        game=row["game"],
        options=json.loads(row["options"]),
        position=row["position"],
        seats=json.loads(row["seats"]),
        clock=None if row["clock"] is None else json.loads(row["clock"]),
        mode=row["mode"],
        listed=bool(row["listed"]),
        invite_hash=row["invite_hash"],
        created=row["created"],
        over=bool(row["over"]),
        rematch=row["rematch"],
    )


def _engine(url: str, synchronous: str) -> Engine:
    from tabletop.server.settings import database_url

    url = database_url(url)
    if not url.startswith("sqlite"):
        return sa.create_engine(url, pool_pre_ping=True)
    if url in ("sqlite://", "sqlite:///:memory:"):
        # one shared in-memory database for every thread (tests, throw-away servers)
        return sa.create_engine(url, connect_args={"check_same_thread": False}, poolclass=sa.pool.StaticPool)
    engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
    mode = synchronous.upper()
    if mode not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise ValueError(f"bad SQLite synchronous mode {synchronous!r} (OFF, NORMAL, FULL, EXTRA)")

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        # WAL lets readers run beside the writer; FULL syncs the log at every
        # commit, so a committed move survives even a power cut.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={mode}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (creates it on a new database)."""
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "tabletop.server:migrations")
    script = ScriptDirectory.from_config(config)
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    if current == script.get_current_head():
        return
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
