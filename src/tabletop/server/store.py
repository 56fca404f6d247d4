"""Where rooms live between restarts: a small store interface and its SQL implementation.

A room is stored as its creation record, its seats (token hashes) and the log
of *actions* that changed it (a move, an undo, a resignation, a flag fall...),
each with the wall-clock time it happened; a move's action row also carries
the client's sequence number, so an acknowledged move is one row written.
Replaying the actions on a fresh :class:`~tabletop.match.Match` rebuilds the
room exactly, events, versions and clocks included.

:class:`SqlStore` writes through SQLAlchemy Core on the tables below, the one
definition of the schema (the Alembic migrations are checked against it by
``tests/test_schema.py``); SQLite by default, PostgreSQL by URL.  Writes are
*group-committed*: every write waiting while a transaction is being written
goes into the next one, so many rooms share one fsync and each caller still
resumes only after its own write is committed.  The commits run in a writer
process, beside the event loop rather than in a thread taking turns with it
for the GIL; batches cross to it as the records themselves (pickled).  An
in-memory database exists only in the server's process, so it is committed
in a thread there, by the same code.  The pair
``(room_id, n)`` is the primary key of the action log, so two server processes
sharing a database can never both store action ``n`` of a room.

This module knows nothing of games, websockets or HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pickle
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from tabletop.server.profile import NO_CLOCK, Clock

__all__ = [
    "ActionRecord",
    "Call",
    "RoomRecord",
    "SeatRecord",
    "SqlStore",
    "Store",
    "StoredRoom",
    "StoreConflict",
    "insert_room",
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
sa.Index("rooms_lobby", rooms_table.c.listed, rooms_table.c.over, rooms_table.c.created)  # the lobby's query

seats_table = sa.Table(
    "seats",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("color", sa.String(8), primary_key=True),
    sa.Column("kind", sa.String(200), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=True),
    # a client's seq may be up to 2**62 (models.MoveFrame): 64 bits; SQLite's INTEGER already has them
    sa.Column("last_seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False, default=0),
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
    # a move's seat row and client seq (migration 0003): the seat's last_seq is the largest
    sa.Column("seat", sa.String(8), nullable=True),
    sa.Column("seq", sa.BigInteger, nullable=True),
)


# -- players, their rated games and seeks (server/accounts.py and server/lobby.py use them) ----------
players_table = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(20), nullable=False),
    sa.Column("name_key", sa.String(20), nullable=False, unique=True),  # the name in lower case: unique
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)

sessions_table = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("expires", sa.Float, nullable=False),
)

room_players_table = sa.Table(  # the players of a room made from a seek, and its result once over
    "room_players",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("black", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("white", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("pool", sa.String(48), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("black_score", sa.Float, nullable=True),  # 1, 0.5, 0; null while playing or when aborted
    sa.Column("ended", sa.Float, nullable=True),
)

ratings_table = sa.Table(
    "ratings",
    metadata,
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("pool", sa.String(48), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("draws", sa.Integer, nullable=False),
    sa.Column("losses", sa.Integer, nullable=False),
)
sa.Index("ratings_leaderboard", ratings_table.c.pool, ratings_table.c.rating)

rating_history_table = sa.Table(  # each rated game's change, for the player page's graph
    "rating_history",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("pool", sa.String(48), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("change", sa.Float, nullable=False),
)
sa.Index("rating_history_player", rating_history_table.c.player_id, rating_history_table.c.at)

seeks_table = sa.Table(
    "seeks",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("color", sa.String(8), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("pool", sa.String(48), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    # set once, by the one accept that wins (an UPDATE ... WHERE taken_by IS NULL)
    sa.Column("taken_by", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
    sa.Column("room_id", sa.String(32), nullable=True),
    sa.Column("poster_token", sa.String(64), nullable=True),  # the poster's seat token until collected
    # when the poster was last known to be in the lobby: the post, then each heartbeat of a server
    # process holding a lobby socket of theirs (server/lobby.py); an open seek unseen for
    # SEEK_FRESH seconds is cancelled, whichever process held the socket
    sa.Column("seen", sa.Float, nullable=False, server_default="0"),
    # posted by Play now: a bot never takes it (server/bots.py), so Play now never pairs anyone with a bot
    sa.Column("quick", sa.Boolean, nullable=False, server_default=sa.false()),
)

analyses_table = sa.Table(  # a room's whole-game analysis (server/analyses.py writes and reads it)
    "analyses",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("moves", sa.Text, nullable=False),  # the moves analysed, space-separated
    sa.Column("result", sa.Text, nullable=False),  # the analysis as JSON
    sa.Column("created", sa.Float, nullable=False),
)

chat_table = sa.Table(  # the chat of a room's players and of its spectators (server/chat.py)
    "chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
    sa.Column("channel", sa.String(16), nullable=False),  # "players" or "spectators"
    sa.Column("seat", sa.String(8), nullable=True),  # a player's colour when they wrote
    sa.Column("author", sa.String(64), nullable=False),  # who wrote it, as the pages mute them
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
sa.Index("chat_room", chat_table.c.room_id, chat_table.c.id)

bots_table = sa.Table(  # the accounts turned into bots, played by a program over the Bot API (server/bots.py)
    "bots",
    metadata,
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("since", sa.Float, nullable=False),
)

challenges_table = sa.Table(  # one player's offer of a game to another (server/bots.py)
    "challenges",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("challenger", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("challenged", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("color", sa.String(8), nullable=False),  # the challenger's colour: black, white or random
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("pool", sa.String(48), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    # open, then accepted (with its room), declined or cancelled: set once, by an UPDATE ... WHERE status = 'open'
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("room_id", sa.String(32), nullable=True),
)

# -- tournaments (server/tournaments.py; a game's end is scored by server/tournament_scores.py) ----------
tournaments_table = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),  # arena or swiss
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("creator", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("clock", sa.Text, nullable=False),
    sa.Column("pool", sa.String(48), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("starts", sa.Float, nullable=False),
    sa.Column("minutes", sa.Float, nullable=True),  # an arena's length
    sa.Column("rounds", sa.Integer, nullable=True),  # a swiss's rounds
    sa.Column("round", sa.Integer, nullable=False, default=0),  # swiss: the round under way; arena: games paired
    # upcoming, running, finishing, finished or cancelled: changed only under the row's lock
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("finished", sa.Float, nullable=True),
    sa.Column("version", sa.Integer, nullable=False, default=0),  # one more with each change
)
sa.Index("tournaments_status", tournaments_table.c.status, tournaments_table.c.starts)

tournament_players_table = sa.Table(
    "tournament_players",
    metadata,
    sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("joined", sa.Float, nullable=False),
    sa.Column("seed", sa.Float, nullable=False),  # the rating the player joined with: a swiss's pairing order
    sa.Column("active", sa.Boolean, nullable=False),  # false once paused (arena) or withdrawn (swiss)
    # the game under way: set by the one pairing that finds it null, cleared by the game's end
    sa.Column("room_id", sa.String(32), nullable=True),
    sa.Column("free_since", sa.Float, nullable=False),
    sa.Column("score", sa.Float, nullable=False, default=0),
    sa.Column("games", sa.Integer, nullable=False, default=0),
    sa.Column("wins", sa.Integer, nullable=False, default=0),
    sa.Column("draws", sa.Integer, nullable=False, default=0),
    sa.Column("losses", sa.Integer, nullable=False, default=0),
    sa.Column("streak", sa.Integer, nullable=False, default=0),  # wins in a row now
    sa.Column("blacks", sa.Integer, nullable=False, default=0),
    sa.Column("whites", sa.Integer, nullable=False, default=0),
    sa.Column("last_color", sa.String(8), nullable=True),
    sa.Column("last_opponent", sa.String(32), nullable=True),
    sa.Column("byes", sa.Integer, nullable=False, default=0),
    sa.Column("sheet", sa.Text, nullable=False, default="[]"),  # JSON: each game's points or result, in order
)

tournament_games_table = sa.Table(
    "tournament_games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), nullable=False, index=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=True, unique=True),  # null: a bye
    sa.Column("black", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("white", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("black_score", sa.Float, nullable=True),  # 1, 0.5, 0; null while playing or with no result
    sa.Column("ended", sa.Float, nullable=True),
    sa.Column("black_points", sa.Float, nullable=True),
    sa.Column("white_points", sa.Float, nullable=True),
    # the game's end told on the tournament's channel: set by the one tick that claims it
    sa.Column("announced", sa.Boolean, nullable=False, default=False),
)


@dataclass
class Call:
    """``function(connection, *args)`` run inside a write transaction, after the rows of its batch
    (a module-level function, so that it crosses to the writer process by name)."""

    function: Any
    args: tuple[Any, ...] = ()


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
    """One change: ``kind`` is a Match method name (``play``, ``undo``, ``resign``, ...).

    A move a client numbered carries its ``seq`` and the stored seat row it was
    played from (``seat``): the seat's ``last_seq`` is its largest."""

    n: int
    kind: str
    color: str | None
    arg: Any
    at: float
    seat: str | None = None
    seq: int | None = None


@dataclass
class StoredRoom:
    room: RoomRecord
    seats: dict[str, SeatRecord]
    actions: list[ActionRecord] = field(default_factory=list)


T = TypeVar("T")


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
        self, room_id: str, actions: list[ActionRecord], over: bool = False, also: Call | None = None
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
    over: bool
    also: Call | None = None  # run in the same transaction (a rated game's rating change)


@dataclass
class _Create:
    """The write of a new room (each rematch makes one), batched with the appends."""

    room: RoomRecord
    seats: list[SeatRecord]
    actions: list[ActionRecord]
    rematch_of: str | None


@dataclass
class _TakeSeat:
    """Give a free seat its token hash; the result says whether it was still free."""

    room_id: str
    color: str
    token_hash: str


_Rows = _Append | _Create
_Write = _Rows | _TakeSeat | Call  # plain records: a batch is pickled to the writer process as it is


def _room_values(room: RoomRecord) -> dict[str, Any]:
    """The ``rooms`` row of ``room`` (its JSON fields as text)."""
    return {
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
        "rematch": room.rematch,
    }


def _seat_values(room_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {
        "room_id": room_id,
        "color": seat.color,
        "kind": seat.kind,
        "token_hash": seat.token_hash,
        "last_seq": seat.last_seq,
    }


def _action_values(room_id: str, a: ActionRecord) -> dict[str, Any]:
    return {
        "room_id": room_id,
        "n": a.n,
        "kind": a.kind,
        "color": a.color,
        "arg": None if a.arg is None else json.dumps(a.arg),
        "at": a.at,
        "seat": a.seat,
        "seq": a.seq,
    }


# The statements of a batch, each run once with every row of the batch (an executemany):
# a room's row goes in before its seats and actions.
_ROOM_ID: sa.BindParameter[str] = sa.bindparam("room_id_")
_INSERT_ROOM = rooms_table.insert()
_INSERT_SEAT = seats_table.insert()
_INSERT_ACTION = actions_table.insert()
_FINISH = rooms_table.update().where(rooms_table.c.id == _ROOM_ID).values(over=True)
_LINK_REMATCH = (
    rooms_table.update().where(rooms_table.c.id == _ROOM_ID).values(rematch=sa.bindparam("rematch_"))
)
_TAKE_SEAT = (
    seats_table.update()
    .where(
        seats_table.c.room_id == sa.bindparam("room_id_"),
        seats_table.c.color == sa.bindparam("color_"),
        seats_table.c.token_hash.is_(None),
    )
    .values(token_hash=sa.bindparam("token_hash_"))
)


def _write_rows(conn: Connection, writes: list[_Rows]) -> None:
    """Insert and update the rows of ``writes`` (inside the caller's transaction)."""
    rooms: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    finished: list[dict[str, Any]] = []
    rematches: list[dict[str, Any]] = []
    calls: list[Call] = []
    for w in writes:
        if isinstance(w, _Create):
            rooms.append(_room_values(w.room))
            seats.extend(_seat_values(w.room.id, s) for s in w.seats)
            actions.extend(_action_values(w.room.id, a) for a in w.actions)
            if w.rematch_of is not None:
                rematches.append({"room_id_": w.rematch_of, "rematch_": w.room.id})
        else:
            actions.extend(_action_values(w.room_id, a) for a in w.actions)
            if w.over:
                finished.append({"room_id_": w.room_id})
            if w.also is not None:
                calls.append(w.also)
    for statement, rows in (
        (_INSERT_ROOM, rooms),
        (_INSERT_SEAT, seats),
        (_INSERT_ACTION, actions),
        (_FINISH, finished),
        (_LINK_REMATCH, rematches),
    ):
        if rows:
            conn.execute(statement, rows)
    for call in calls:
        call.function(conn, *call.args)


def insert_room(conn: Connection, room: RoomRecord, seats: list[SeatRecord], actions: list[ActionRecord]) -> None:
    """Insert a new room's rows inside the caller's transaction (a tournament pairs its players and
    makes their rooms in one)."""
    _write_rows(conn, [_Create(room, seats, actions, None)])


def _run(conn: Connection, works: list[_Write]) -> list[Any]:
    """Every piece in order, consecutive row writes together; each piece's result
    (``None``, for a :class:`_TakeSeat` whether the seat was still free, for a
    :class:`Call` what its function returned)."""
    results: list[Any] = []
    batch: list[_Rows] = []
    for work in works:
        if isinstance(work, _Append | _Create):
            batch.append(work)
            results.append(None)
            continue
        if batch:
            _write_rows(conn, batch)
            batch = []
        if isinstance(work, Call):
            results.append(work.function(conn, *work.args))
            continue
        taken = conn.execute(
            _TAKE_SEAT, {"room_id_": work.room_id, "color_": work.color, "token_hash_": work.token_hash}
        )
        results.append(taken.rowcount == 1)
    if batch:
        _write_rows(conn, batch)
    return results


Outcome = tuple[BaseException | None, Any]  # a write's error, or its result


class _Committer:
    """Group commit on one engine: a batch of writes in one transaction; if that
    fails, each alone, so one bad piece cannot sink the others.

    ``hold``: keep one connection open between batches (the writer process, the engine's only
    user): a batch then costs no checkout from the pool and no rollback on its return, about a
    fifth of the CPU of a commit with SQLite.  A batch that fails drops it, so a broken
    connection is replaced by the next batch."""

    def __init__(self, engine: Engine, *, hold: bool = False) -> None:
        self.engine = engine
        self.commits = 0
        self._hold = hold
        self._held: Connection | None = None

    def _batch(self, works: list[_Write]) -> list[Any]:
        """Run ``works`` in one transaction and commit it."""
        if not self._hold:
            with self.engine.begin() as conn:
                return _run(conn, works)
        if self._held is None:
            self._held = self.engine.connect()
        try:
            with self._held.begin():
                return _run(self._held, works)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        """Give back the held connection, if any."""
        held, self._held = self._held, None
        if held is not None:
            with contextlib.suppress(Exception):
                held.close()

    def commit(self, works: list[_Write]) -> list[Outcome]:
        try:
            results = self._batch(works)
            self.commits += 1
            return [(None, r) for r in results]
        except Exception:  # noqa: BLE001 - retried one by one below to find the culprit
            pass
        outcomes: list[Outcome] = []
        for work in works:
            try:
                (result,) = self._batch([work])
                self.commits += 1
                outcomes.append((None, result))
            except sa.exc.IntegrityError:
                outcomes.append((StoreConflict("another writer stored this change first"), None))
            except Exception as exc:  # noqa: BLE001 - handed to the waiting caller
                outcomes.append((exc, None))
        return outcomes


def _writer_main(url: str, synchronous: str, channel: Any) -> None:
    """The writer process: commit each batch that comes down ``channel`` and send
    back its outcomes and the number of commits made, until the channel closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server, which then closes this
    committer = _Committer(_engine(url, synchronous), hold=True)
    while True:
        try:
            data = channel.recv_bytes()
        except (EOFError, OSError):
            break  # the server is gone
        if not data:
            break
        works = pickle.loads(data)
        before = committer.commits
        outcomes = [(_portable(error), result) for error, result in committer.commit(works)]
        channel.send_bytes(pickle.dumps((outcomes, committer.commits - before), pickle.HIGHEST_PROTOCOL))
    committer.close()
    committer.engine.dispose()


def _portable(error: BaseException | None) -> BaseException | None:
    """An error as one that crosses processes (a driver's own may not unpickle)."""
    if error is None or isinstance(error, StoreConflict):
        return error
    return RuntimeError(f"{type(error).__name__}: {error}")


class WriterGone(RuntimeError):
    """The writer process ended: what it was writing may or may not be committed."""


# batches handed to the writer process at once.  One: every write that comes while a batch is
# committed waits for the next batch, so batches are as large as the commit is long.  Most of a
# commit's CPU is spent once per commit (SQLite's commit and the sync), so on a busy machine one
# batch out takes about an eighth less of the writer's CPU a move than two (HISTORY.md, issue 46).
WRITER_DEPTH = 1


class _ProcessWriter:
    """Commits batches in a child process of its own, so the SQL and the sync run
    beside the event loop rather than in a thread that takes turns with it for
    the GIL.  Batches are committed in the order they are submitted and answered
    in that order.  A writer that dies fails the batches it had with
    :class:`WriterGone` and is started again for the next one."""

    def __init__(self, url: str, synchronous: str, clock: Clock = NO_CLOCK) -> None:
        self.url = url
        self.synchronous = synchronous
        self.clock = clock
        self._process: Any = None
        self._channel: Any = None
        self._replies: deque[asyncio.Future[tuple[list[Outcome], int]]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        # the loop watches the writer's end of the pipe from its first batch until it stops: no
        # epoll registration and removal a batch (an answer, or the end of the pipe, wakes it)
        self._watched = False
        self._start()

    def _start(self) -> None:
        import multiprocessing

        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context: Any = multiprocessing.get_context(method)
        if method == "forkserver":
            # The forkserver starts with this module (and SQLAlchemy) and the worker pool's loaded, so a
            # writer or a pool worker forked from it imports nothing: a third of a processor second less
            # for each.  The writer usually starts the forkserver; once it runs, the list is fixed.
            context.set_forkserver_preload(["__main__", __name__, "tabletop.server.workers"])
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_writer_main,
            args=(self.url, self.synchronous, theirs),
            name="tabletop-store-writer",
            daemon=True,
        )
        process.start()
        theirs.close()
        self._process, self._channel = process, mine

    @property
    def pid(self) -> int | None:
        return None if self._process is None else int(self._process.pid)

    def _stop(self) -> None:
        self._unwatch()
        if self._channel is not None:
            self._channel.close()
        if self._process is not None:
            self._process.join(timeout=1)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        self._process = self._channel = None

    def submit(self, works: list[_Write]) -> asyncio.Future[tuple[list[Outcome], int]]:
        """Hand a batch to the writer: the future gets its outcomes and commits."""
        loop = self._loop = asyncio.get_running_loop()
        reply: asyncio.Future[tuple[list[Outcome], int]] = loop.create_future()
        if not self._replies and (self._process is None or not self._process.is_alive()):
            self._stop()
            self._start()  # a writer that died between batches
        self._replies.append(reply)
        if not self._watched:
            loop.add_reader(self._channel.fileno(), self._readable)
            self._watched = True
        try:
            self._channel.send_bytes(pickle.dumps(works, pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError) as exc:
            self._fail(f"the store's writer process ended ({exc})")
        return reply

    def _readable(self) -> None:
        resume = self.clock.enter("store")
        try:
            self._answer()
        finally:
            self.clock.enter(resume)

    def _answer(self) -> None:
        """Read the writer's answer to the oldest batch out and hand it to that batch's future."""
        try:
            message = pickle.loads(self._channel.recv_bytes())
        except (EOFError, OSError) as exc:
            self._fail(f"the store's writer process ended ({exc or 'no reply'})")
            return
        if not self._replies:
            self._fail("the store's writer process answered a batch it was not sent")
            return
        reply = self._replies.popleft()
        if not reply.done():
            reply.set_result(message)

    def _unwatch(self) -> None:
        if self._watched and self._channel is not None and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._channel.fileno())
        self._watched = False

    def _fail(self, why: str) -> None:
        self._unwatch()
        replies, self._replies = self._replies, deque()
        self._stop()
        for reply in replies:
            if not reply.done():
                reply.set_exception(WriterGone(why))

    def close(self) -> None:
        if self._channel is not None:
            with contextlib.suppress(OSError, ValueError):
                self._channel.send_bytes(b"")
        self._stop()


class SqlStore:
    """The :class:`Store` on a SQLAlchemy engine, with group commit."""

    def __init__(
        self, url: str, *, sqlite_synchronous: str = "FULL", migrate: bool = True, clock: Clock = NO_CLOCK
    ) -> None:
        """Batches are committed in a writer process; an in-memory SQLite database
        lives only in this process, so its batches are committed in a thread here.
        ``clock``: charged with the store's work in the loop (``--profile``)."""
        self.url = url
        self.clock = clock
        self.engine = _engine(url, sqlite_synchronous)
        if migrate:
            upgrade(self.engine)
        self._pending: list[tuple[_Write, asyncio.Future[Any]]] = []
        self._lock = threading.Lock()  # one writing thread at a time
        self._committer = _Committer(self.engine)
        url_ = self.engine.url
        in_memory = url_.get_backend_name() == "sqlite" and url_.database in (None, "", ":memory:")
        self._process = None if in_memory else _ProcessWriter(url, sqlite_synchronous, clock)
        # batches out at once: the writer process takes the next while it commits one; the thread one at a time
        self._depth = 1 if self._process is None else WRITER_DEPTH
        self._in_flight = 0
        # the threads that use the engine: one for an in-memory database, whose single shared
        # connection must never run two statements at once (its commits run there too)
        self._readers = ThreadPoolExecutor(max_workers=1 if in_memory else 4, thread_name_prefix="store")
        self._kick_scheduled = False
        self._kick_loop: asyncio.AbstractEventLoop | None = None
        self.commits = 0
        self.writes = 0

    @property
    def writer(self) -> str:
        """Where batches are committed: ``"process"`` or ``"thread"``."""
        return "thread" if self._process is None else "process"

    @property
    def writer_pid(self) -> int | None:
        """The writer process's id (``None`` with the thread)."""
        return None if self._process is None else self._process.pid

    # -- writes (group commit) -----------------------------------------------------------
    async def _write(self, work: _Write) -> Any:
        resume = self.clock.enter("store")
        loop = self._kick_loop if self._kick_scheduled else None  # a write earlier in this turn found it
        if loop is None:  # asked once per batch: in CPython 3.11 asking costs a getpid() call
            loop = self._kick_loop = asyncio.get_running_loop()
            self._kick_scheduled = True
            loop.call_soon(self._kick)  # once this turn of the loop has queued its writes
        done: asyncio.Future[Any] = loop.create_future()
        self._pending.append((work, done))
        self.clock.enter("loop")  # the commit is waited for: the loop runs other work meanwhile
        try:
            return await done
        finally:
            self.clock.enter(resume)

    def _kick(self) -> None:
        """Hand over what is waiting, as one batch, while fewer than ``_depth`` batches are out."""
        resume = self.clock.enter("store")
        self._kick_scheduled = False
        while self._pending and self._in_flight < self._depth:
            batch, self._pending = self._pending, []
            self._in_flight += 1
            self._submit([w for w, _ in batch]).add_done_callback(partial(self._landed, batch))
        self.clock.enter(resume)

    def _submit(self, works: list[_Write]) -> asyncio.Future[tuple[list[Outcome], int]]:
        if self._process is not None:
            return self._process.submit(works)
        return asyncio.wrap_future(self._readers.submit(self._commit_here, works))

    def _landed(self, batch: list[tuple[_Write, asyncio.Future[Any]]], reply: asyncio.Future[Any]) -> None:
        resume = self.clock.enter("store")
        self._in_flight -= 1
        error = reply.exception()
        if error is not None:
            self._settle(batch, [(error, None)] * len(batch), 0)
        else:
            self._settle(batch, *reply.result())
        self._kick()
        self.clock.enter(resume)

    def _settle(
        self, batch: list[tuple[_Write, asyncio.Future[Any]]], outcomes: list[Outcome], commits: int
    ) -> None:
        self.commits += commits
        self.writes += sum(1 for error, _ in outcomes if error is None)
        for (_, done), (error, result) in zip(batch, outcomes, strict=True):
            if done.done():
                continue
            if error is None:
                done.set_result(result)
            else:
                done.set_exception(error)

    def _commit_here(self, works: list[_Write]) -> tuple[list[Outcome], int]:
        with self._lock:
            before = self._committer.commits
            outcomes = self._committer.commit(works)
            return outcomes, self._committer.commits - before

    async def create_room(
        self,
        room: RoomRecord,
        seats: list[SeatRecord],
        actions: list[ActionRecord],
        rematch_of: str | None = None,
    ) -> None:
        await self._write(_Create(room, seats, actions, rematch_of))

    async def append(
        self, room_id: str, actions: list[ActionRecord], over: bool = False, also: Call | None = None
    ) -> None:
        """Store ``actions``; ``over``: the game ended with them; ``also``: more to write in the
        same transaction."""
        await self._write(_Append(room_id, actions, over, also))

    async def call(self, function: Any, *args: Any) -> Any:
        """``function(connection, *args)`` in a write transaction of its own batch; its result.
        An integrity error (a unique name taken) raises :class:`StoreConflict`."""
        return await self._write(Call(function, args))

    async def take_seat(self, room_id: str, color: str, token_hash: str) -> bool:
        return bool(await self._write(_TakeSeat(room_id, color, token_hash)))

    # -- reads --------------------------------------------------------------------------------
    async def read(self, function: Callable[[], T]) -> T:
        """Run ``function`` (a read through :attr:`engine`) in the store's reader threads.
        :meth:`close` waits for the reads under way before it disposes of the engine: a
        cancelled task does not stop its thread, and SQLite crashes on a connection disposed
        under a query.  A read cancelled before it started never runs."""
        resume = self.clock.enter("loop")  # the read runs in a thread: the loop goes on meanwhile
        try:
            return await asyncio.wrap_future(self._readers.submit(function))
        finally:
            self.clock.enter(resume)

    async def load(self, room_id: str) -> StoredRoom | None:
        return await self.read(lambda: self._load(room_id))

    def _load(self, room_id: str) -> StoredRoom | None:
        with self.engine.connect() as conn:
            row = conn.execute(rooms_table.select().where(rooms_table.c.id == room_id)).mappings().first()
            if row is None:
                return None
            seats = {
                r["color"]: SeatRecord(r["color"], r["kind"], r["token_hash"], r["last_seq"])
                for r in conn.execute(seats_table.select().where(seats_table.c.room_id == room_id)).mappings()
            }
            actions = []
            for r in conn.execute(
                actions_table.select().where(actions_table.c.room_id == room_id).order_by(actions_table.c.n)
            ).mappings():
                arg = None if r["arg"] is None else json.loads(r["arg"])
                actions.append(ActionRecord(r["n"], r["kind"], r["color"], arg, r["at"], r["seat"], r["seq"]))
                seat = seats.get(r["seat"]) if r["seq"] is not None else None
                if seat is not None and r["seq"] > seat.last_seq:
                    seat.last_seq = r["seq"]  # the seat's newest move (a room's first rows: the seat column)
        return StoredRoom(_room(row), seats, actions)

    async def live_room_ids(self) -> list[str]:
        def read() -> list[str]:
            with self.engine.connect() as conn:
                return [
                    r[0]
                    for r in conn.execute(sa.select(rooms_table.c.id).where(rooms_table.c.over.is_(False)))
                ]

        return await self.read(read)

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

        return await self.read(read)

    async def close(self) -> None:
        while self._pending or self._in_flight:  # the last batches
            await asyncio.sleep(0.005)
        await asyncio.to_thread(self._readers.shutdown, True)  # the reads under way
        if self._process is not None:
            self._process.close()
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
