"""The rooms of one server process: :class:`RoomHub` creates, loads, finds and releases them.

A room is loaded from the store on first use and stays in memory while anyone
watches it or its game goes on; a finished room nobody watches is released and
loads again on demand.  Rooms shared with other server processes (a Redis bus)
listen to the bus for changes made elsewhere (:mod:`.catchup`).

What a room does is in :mod:`.room` and its parts; this module only keeps the
set of rooms and makes new ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import time
from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import Any

from tabletop.match import MatchError
from tabletop.server.bus import Broadcast, Bus, frame
from tabletop.server.errors import RoomError
from tabletop.server.profile import NO_CLOCK, Clock
from tabletop.server.rematch import rematch_records
from tabletop.server.results import seat_rematch_players
from tabletop.server.room import Room
from tabletop.server.seats import Client, hash_secret, new_secret
from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, SqlStore, Store, StoredRoom
from tabletop.server.workers import Pool

__all__ = ["Client", "Room", "RoomError", "RoomHub", "hash_secret", "new_room_id", "new_secret"]

# the 64 characters of URL-safe base64 in ASCII order, so that ids sort as their times do
_SORTED_DIGITS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


def new_room_id(now: float | None = None) -> str:
    """A room id: its creation time in milliseconds (7 characters, in order until
    the year 2109), then 72 random bits (12 characters), all URL-safe.

    Ids made later sort later, so the rooms being played sit together at the end
    of the database's indexes: a batch of moves from many rooms writes a few
    index pages instead of one per room."""
    ms = int((time.time() if now is None else now) * 1000)
    digits = []
    for _ in range(7):
        ms, digit = divmod(ms, 64)
        digits.append(_SORTED_DIGITS[digit])
    return "".join(reversed(digits)) + secrets.token_urlsafe(9)


class RoomHub:
    """All rooms of this process: create, join, find (loading from the store), resume."""

    def __init__(
        self,
        store: Store,
        bus: Bus,
        pool: Pool,
        *,
        replay_limit: int = 500,
        shared: bool = False,
        clock: Clock = NO_CLOCK,
        now: Callable[[], float] = time.time,
        away_timeout: float = 60.0,
    ) -> None:
        """``now``: the wall clock the rooms' games and clocks run on (a test hands in its own)."""
        self.store = store
        self.now = now
        self.away_timeout = away_timeout  # seconds a player may be gone before the other may end the game
        self.clock = clock  # the loop's CPU by part (--profile), charged by the rooms and their sockets
        self.bus = bus
        self.shared = shared  # other server processes change rooms too (shared database and bus)
        self.pool = pool
        self.replay_limit = replay_limit  # the most missed events a reconnecting client is sent
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as a task the hub cancels when it closes."""
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def resume(self) -> int:
        """Load every unfinished room so clocks run and computers think again."""
        count = 0
        for room_id in await self.store.live_room_ids():
            if await self.get(room_id) is not None:
                count += 1
        return count

    async def get(self, room_id: str) -> Room | None:
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        lock = self._loading.setdefault(room_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(room_id)
            if room is None:
                stored = await self.store.load(room_id)
                if stored is None:
                    return None
                room = self._keep(Room(self, stored))
        self._loading.pop(room_id, None)
        return room

    def _keep(self, room: Room) -> Room:
        self.rooms[room.id] = room
        if self.shared:
            room.stop_listening = self.bus.subscribe(room.id, partial(room.catch_up.on_broadcast, room))
        room.after_change()
        return room

    def release(self, room: Room) -> None:
        """Drop a finished room nobody watches from memory (it loads again on demand)."""
        if room.seats.clients or room.computer.busy or not room.match.is_over():
            return
        if room.lock.locked():
            # The last client left while a change holds the room (a rematch starting):
            # try again once it is done, or finished rooms would pile up in memory.
            self.spawn(self._release_when_free(room))
            return
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            room.release()

    async def _release_when_free(self, room: Room) -> None:
        async with room.lock:
            pass
        self.release(room)

    async def create(
        self,
        *,
        game: str,
        options: dict[str, Any],
        position: str | None,
        seats: dict[str, str],
        clock: dict[str, Any] | None,
        mode: str,
        as_: str,
        listed: bool,
        moves: Sequence[str] = (),
    ) -> tuple[Room, dict[str, str], str | None]:
        """A new room: returns it, the creator's tokens and the invite secret (if any).

        ``moves`` are played from the start position before anyone moves (a game
        imported from a record goes on from there); ``ValueError`` names the first
        illegal one.  A room that waits for its opponent takes none: its game and
        clock start when the seat is taken."""
        kinds = {"black": seats.get("black", "human"), "white": seats.get("white", "human")}
        if as_ == "random":
            as_ = secrets.choice(["black", "white"])
        humans = [label for label, kind in kinds.items() if kind == "human"]
        if mode == "local":
            mine = humans
        else:
            mine = [as_] if as_ in humans else humans[:1]
        tokens = {label: new_secret() for label in mine}
        invite = new_secret() if any(h not in mine for h in humans) else None
        if clock is not None and mode == "online":
            # between people online, each side's clock starts with its first move (match.ClockSettings)
            clock = {**clock, "from_first_move": True}
        record = RoomRecord(
            id=new_room_id(),
            game=game,
            options=dict(options),
            position=position,
            seats=kinds,
            clock=clock,
            mode=mode,
            listed=listed and invite is not None,
            invite_hash=None if invite is None else hash_secret(invite),
            created=self.now(),
        )
        seat_records = {
            label: SeatRecord(label, kind, hash_secret(tokens[label]) if label in tokens else None)
            for label, kind in kinds.items()
        }
        room = await self._start(record, seat_records, moves=moves)
        return room, tokens, invite

    async def _start(
        self,
        record: RoomRecord,
        seats: dict[str, SeatRecord],
        rematch_of: str | None = None,
        moves: Sequence[str] = (),
    ) -> Room:
        room = Room(self, StoredRoom(record, seats), new=True)  # ValueError: a bad game, option or position
        room.players_read = True  # none yet: a seek's accept seats them, then reads them (lobby.py)
        # a room that waits for its opponent starts (and its clock runs) when the seat is taken (join)
        at = self.now()
        actions = [] if room.seats.free() else [ActionRecord(0, "start", None, None, at)]
        if moves and not actions:
            raise ValueError("a room that waits for its opponent starts from a position, without moves")
        room.time.fixed = at
        try:
            if actions:
                room.match.start()
            for index, text in enumerate(moves):
                stack = room.match.board.move_stack
                if index < len(stack) and stack[index].is_pass and text.lower() == "pass":
                    continue  # a forced pass the Match played itself (and plays again on replay)
                color = room.acting()
                try:
                    room.match.play(color, text)
                except MatchError as exc:
                    raise ValueError(f"move {index + 1} ({text}): {exc}") from None
                actions.append(ActionRecord(len(actions), "play", color.label, text, at))
        finally:
            room.time.fixed = None
        record.over = room.match.is_over()
        await self.store.create_room(record, list(seats.values()), actions, rematch_of=rematch_of)
        room.next_action = len(actions)
        return self._keep(room)

    async def create_rematch(self, old: Room) -> Room:
        """The same players with colours swapped: each keeps its token."""
        record, seats = rematch_records(old.record, old.seats.rows, new_room_id())
        room = await self._start(record, seats, rematch_of=old.id)  # one commit for both rooms
        await old.ensure_players()
        if old.players is not None and isinstance(self.store, SqlStore):
            # before anyone greets the new room: its first state names the players
            black_row, white_row = old.seats.row_label("white"), old.seats.row_label("black")
            await self.store.call(seat_rematch_players, old.id, room.id, black_row, white_row)
            await room.read_players()
        return room

    async def join(self, room_id: str, invite: str | None) -> tuple[str, str]:
        room = await self.get(room_id)
        if room is None:
            raise RoomError("unknown_room", f"there is no room {room_id!r}", 404)
        if invite is not None:
            if room.record.invite_hash is None or not hmac.compare_digest(
                room.record.invite_hash, hash_secret(invite)
            ):
                raise RoomError("bad_invite", "this invite link is not valid for the room", 403)
        elif not room.record.listed:
            raise RoomError("bad_invite", "this room needs its invite link to join", 403)
        free = room.seats.free()
        if not free:
            raise RoomError("seat_taken", "both seats are taken; you can watch the game", 409)
        token = new_secret()
        digest = hash_secret(token)
        if not await self.store.take_seat(room_id, room.seats.row_label(free[0]), digest):
            raise RoomError("seat_taken", "the seat was just taken", 409)
        room.seats[free[0]].token_hash = digest
        joined = frame("event", event={"kind": "seat_joined", "color": free[0]})
        await self.bus.publish(room.id, Broadcast("seat_joined", [joined]))
        await room.begin()
        return free[0], token

    async def close(self) -> None:
        for room in self.rooms.values():
            room.closed = True
            room.flag.cancel()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
