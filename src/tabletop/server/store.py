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


@dataclass
class _Create:
    """The write of a new room (each rematch makes one), batched with the appends."""

    room: RoomRecord
    seats: list[SeatRecord]
    actions: list[ActionRecord]
    rematch_of: str | None


_Rows = _Append | _Create
_Write = Callable[[Connection], None] | _Rows

# The hot-path statements in the driver's own placeholder style: one executemany per
# statement and group commit for every room's writes (SQLAlchemy's statement path costs
# more than the insert itself, and runs in the writer thread that shares the GIL).
# In this order: a room's row goes in before its seats and actions.
_ROW_SQL = {
    "room": "INSERT INTO rooms (id, game, options, position, seats, clock, mode, listed, invite_hash,"
    " created, over, rematch) VALUES ({0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, {0})",
    "seat": "INSERT INTO seats (room_id, color, kind, token_hash, last_seq) VALUES ({0}, {0}, {0}, {0}, {0})",
    "action": "INSERT INTO actions (room_id, n, kind, color, arg, at) VALUES ({0}, {0}, {0}, {0}, {0}, {0})",
    "seq": "UPDATE seats SET last_seq = {0} WHERE room_id = {0} AND color = {0}",
    "over": "UPDATE rooms SET over = {0} WHERE id = {0}",
    "rematch": "UPDATE rooms SET rematch = {0} WHERE id = {0}",
}
_PLACEHOLDER = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def _room_row(room: RoomRecord) -> tuple[Any, ...]:
    return (
        room.id,
        room.game,
        json.dumps(room.options),
        room.position,
        json.dumps(room.seats),
        None if room.clock is None else json.dumps(room.clock),
        room.mode,
        room.listed,
        room.invite_hash,
        room.created,
        room.over,
        None,
    )


def _action_rows(room_id: str, actions: list[ActionRecord]) -> list[tuple[Any, ...]]:
    return [(room_id, a.n, a.kind, a.color, None if a.arg is None else json.dumps(a.arg), a.at) for a in actions]


def _rows(writes: list[_Rows]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``writes``, by statement of :data:`_ROW_SQL`."""
    rows: dict[str, list[tuple[Any, ...]]] = {key: [] for key in _ROW_SQL}
    for w in writes:
        if isinstance(w, _Create):
            rows["room"].append(_room_row(w.room))
            rows["seat"].extend((w.room.id, s.color, s.kind, s.token_hash, s.last_seq) for s in w.seats)
            rows["action"].extend(_action_rows(w.room.id, w.actions))
            if w.rematch_of is not None:
                rows["rematch"].append((w.room.id, w.rematch_of))
        else:
            rows["action"].extend(_action_rows(w.room_id, w.actions))
            if w.seq is not None:
                rows["seq"].append((w.seq[1], w.room_id, w.seq[0]))
            if w.over:
                rows["over"].append((True, w.room_id))
    return rows


def _run_rows(conn: Connection, writes: list[_Rows]) -> None:
    """Run a batch of hot-path writes with one executemany per statement on the
    driver's cursor (inside the caller's transaction); SQLAlchemy statements for
    drivers with another placeholder style."""
    mark = _PLACEHOLDER.get(conn.dialect.paramstyle)
    if mark is None:  # another driver: SQLAlchemy's text statements with named parameters
        for key, rows in _rows(writes).items():
            if rows:
                pieces = _ROW_SQL[key].split("{0}")
                sql = "".join(piece + (f":p{i}" if i < len(pieces) - 1 else "") for i, piece in enumerate(pieces))
                conn.execute(sa.text(sql), [{f"p{i}": v for i, v in enumerate(row)} for row in rows])
        return
    cursor = conn.connection.cursor()
    try:
        for key, rows in _rows(writes).items():
            if rows:
                cursor.executemany(_ROW_SQL[key].format(mark), rows)
    finally:
        cursor.close()


def _run(conn: Connection, works: list[_Write]) -> None:
    """Every piece in order, consecutive row writes together."""
    batch: list[_Rows] = []
    for work in works:
        if isinstance(work, _Append | _Create):
            batch.append(work)
            continue
        if batch:
            _run_rows(conn, batch)
            batch = []
        work(conn)
    if batch:
        _run_rows(conn, batch)


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
        await self._write(_Create(room, seats, actions, rematch_of))

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
