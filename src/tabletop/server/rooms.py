"""Rooms: a :class:`~tabletop.match.Match` with seats, sockets, storage and a clock timer.

:class:`RoomHub` creates, loads and finds rooms; a :class:`Room` turns client
requests into Match calls.  Every request that changes a room runs under the
room's lock as: apply to the Match (which refuses bad requests and changes
nothing) -> append the action to the store and wait for the commit -> ack the
sender -> publish the new events on the bus.  A room is rebuilt after a restart
by replaying its stored actions at their stored times, so versions, events and
clocks come back exactly; the running clock resumes from the stored time.

Turn logic lives in Match only; sockets and HTTP live in :mod:`.app`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import inspect
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import orjson

from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, Color
from tabletop.match import ClockSettings, Event, Match, MatchError
from tabletop.server.bus import Bus
from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, Store, StoreConflict, StoredRoom
from tabletop.server.workers import Pool, analyse_job, choose_job

__all__ = ["Client", "Room", "RoomError", "RoomHub", "hash_secret", "new_secret"]

log = logging.getLogger("tabletop.server")
COLORS = {"black": BLACK, "white": WHITE}


class RoomError(ValueError):
    """A refused request: ``code`` for error frames, ``status`` for HTTP."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


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


def new_secret() -> str:
    """A seat token or invite secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    """Only this hash is stored, so a copied database gives no seat away."""
    return hashlib.sha256(secret.encode()).hexdigest()


def dumps(data: Any) -> str:
    """Compact JSON text of a frame (orjson: one C call; keys may be any scalar)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


def frame(kind: str, **data: Any) -> str:
    return dumps({"type": kind, **data})


class RoomTime:
    """The clock source of a room's Match: wall time, or a fixed time while an
    action is applied or replayed (so the stored time is exactly the one used)."""

    def __init__(self) -> None:
        self.fixed: float | None = None

    def __call__(self) -> float:
        return time.time() if self.fixed is None else self.fixed


class Client:
    """One websocket's view of a room: its seats and an outgoing queue."""

    def __init__(self, send: Callable[[str], None], follow: Callable[[str], None] | None = None) -> None:
        """``follow(room_id)``: called after a ``rematch_started`` notice when the
        connection asked to be moved into the rematch room (``?follow=1``)."""
        self.send = send
        self.follow = follow
        self.tokens: dict[Color, str] = {}
        self.greeted = False

    @property
    def colors(self) -> set[Color]:
        return set(self.tokens)

    def deliver(self, payload: str) -> None:
        # a rematch notice carries this client's own tokens, with colours swapped
        if payload.startswith('{"type":"event","event":{"kind":"rematch_started"') and (
            self.tokens or self.follow is not None
        ):
            data = orjson.loads(payload)
            if self.tokens:
                data["event"]["tokens"] = {c.other.label: t for c, t in self.tokens.items()}
                payload = dumps(data)
            self.send(payload)
            if self.follow is not None:
                self.follow(str(data["event"]["room"]))
            return
        self.send(payload)


class Room:
    """One game room: record, seats, Match, sockets, timers."""

    def __init__(self, hub: RoomHub, record: RoomRecord, seats: dict[str, SeatRecord]) -> None:
        self.hub = hub
        self.record = record
        self.seats = seats
        self.time = RoomTime()
        self.match = _new_match(record, self.time)
        self.extra: dict[int, dict[str, Any]] = {}  # per-version additions (forbidden points)
        self.match.subscribe(self._annotate)
        self.actions = 0
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.unsubscribe: dict[Client, Callable[[], None]] = {}
        self.thinking: Color | None = None
        self.think_task: asyncio.Task[None] | None = None
        self.flag_timer: asyncio.TimerHandle | None = None
        self.rematch_from: Color | None = None
        self.closed = False
        self.reloading = False
        self.swapped = False  # seats swapped by an opening rule (swap, swap2)
        self.unfollow: Callable[[], None] = lambda: None

    @property
    def id(self) -> str:
        return self.record.id

    # -- building ---------------------------------------------------------------------------------
    def _annotate(self, event: Event) -> None:
        """Renju: Black's forbidden points go with each turn change to Black."""
        if event.kind == "turn_changed":
            self.extra[event.version] = {"forbidden": self.forbidden()}
        elif event.kind == "colors_chosen" and event.data.get("swapped"):
            # an opening rule swapped the seats: each token now plays the other colour
            self.swapped = not self.swapped
            black, white = self.seats["black"], self.seats["white"]
            self.seats = {
                "black": SeatRecord("black", white.kind, white.token_hash, white.last_seq),
                "white": SeatRecord("white", black.kind, black.token_hash, black.last_seq),
            }
            for client in self.clients:
                client.tokens = {c.other: t for c, t in client.tokens.items()}

    def row_label(self, label: str) -> str:
        """The stored seat row of the seat now playing ``label`` (rows keep the colours of the start)."""
        return {"black": "white", "white": "black"}[label] if self.swapped else label

    def forbidden(self) -> list[str]:
        board = self.match.board
        points = getattr(board, "forbidden_points", None)
        if points is None or self.match.turn is not BLACK:
            return []
        try:
            return [str(p) for p in points()]
        except (ValueError, NotImplementedError):
            return []

    def replay(self, actions: list[ActionRecord]) -> None:
        for action in actions:
            self.time.fixed = action.at
            try:
                _apply(self.match, action.kind, action.color, action.arg)
            except MatchError:
                pass  # refused after emitting (a flag fall found on the way): same as when it happened
            finally:
                self.time.fixed = None
            self.actions = action.n + 1
        clock = self.match.clock
        if clock is not None and clock.running is not None:
            clock.since = self.time()  # resume from the stored times; the downtime is nobody's

    def follow(self, payload: str) -> None:
        """Bus handler (several server processes): an event newer than this room's
        version was made by another process, so reload what it committed."""
        prefix = '{"type":"event","version":'
        if payload.startswith('{"type":"event","event":{"kind":"seat_joined"'):
            newer = True  # a seat taken through another process
        elif payload.startswith(prefix):
            newer = int(payload[len(prefix) : payload.index(",", len(prefix))]) > self.match.version
        else:
            return
        if newer and not self.reloading:
            self.reloading = True
            self.hub.spawn(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            async with self.lock:
                await self.hub.reload(self)
        finally:
            self.reloading = False

    # -- views ------------------------------------------------------------------------------------
    def watchers(self) -> int:
        return sum(1 for c in self.clients if not c.tokens)

    def connected(self, color: Color) -> bool:
        return any(color in c.tokens for c in self.clients)

    def state(self) -> dict[str, Any]:
        m = self.match
        s = m.state()
        s.pop("variant", None)
        s.update(
            id=self.id,
            options=self.record.options,
            start_position=self.record.position,
            mode=self.record.mode,
            listed=self.record.listed,
            seats={
                label: {
                    "kind": seat.kind,
                    "connected": seat.kind != "human" or self.connected(COLORS[label]),
                    "taken": seat.kind != "human" or seat.token_hash is not None,
                }
                for label, seat in self.seats.items()
            },
            forbidden=self.forbidden(),
            thinking=None if self.thinking is None else self.thinking.label,
            watchers=self.watchers(),
            rematch=self.record.rematch,
        )
        return s

    def event_frame(self, event: Event) -> str:
        data = event.to_dict()
        data.update(self.extra.get(event.version, {}))
        return dumps({"type": "event", "version": event.version, "event": data})

    def seat_of(self, token: str) -> Color | None:
        digest = hash_secret(token)
        for label, seat in self.seats.items():
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return COLORS[label]
        return None

    # -- connections ----------------------------------------------------------------------------------
    async def greet(self, client: Client, tokens: list[str], since: int | None) -> list[str]:
        """Seat the client by its tokens (returns the bad ones), then send state or
        the missed events, and subscribe it to the room's live events."""
        bad: list[str] = []
        for token in tokens:
            color = self.seat_of(token)
            if color is None:
                bad.append(token)
            else:
                client.tokens[color] = token
        async with self.lock:
            self.clients.add(client)
            m = self.match
            missed = None if since is None else m.version - since
            if missed is not None and 0 <= missed <= self.hub.settings_replay_limit:
                for event in m.events[since:]:
                    client.send(self.event_frame(event))
            else:
                client.send(frame("state", you=sorted(c.label for c in client.colors), **self.state()))
            client.greeted = True
            self.clients.add(client)
            self.unsubscribe[client] = self.hub.bus.subscribe(self.id, client.deliver)
        await self.presence()
        return bad

    async def leave(self, client: Client) -> None:
        if client not in self.clients:
            return
        self.clients.discard(client)
        self.unsubscribe.pop(client, lambda: None)()
        await self.presence()
        self.hub.release(self)

    async def presence(self) -> None:
        seats = {label: self.connected(COLORS[label]) or s.kind != "human" for label, s in self.seats.items()}
        await self.hub.bus.publish(self.id, frame("watchers", count=self.watchers(), seats=seats))

    # -- requests ------------------------------------------------------------------------------------------
    def acting(self) -> Color:
        """The seat that must act: :attr:`Match.actor` (during an opening the seat
        placing stones or choosing, which may differ from the board's side to move),
        else the board's side to move.  ``Color.BLACK`` is 0, so never ``actor or ...``."""
        actor = self.match.actor
        return self.match.board.turn if actor is None else actor

    def actor(self, client: Client, *, to_move: bool = False, answering: Color | None = None) -> Color:
        """The seat a request speaks for: the client's only seat, or for a hot-seat
        client the side to move (``to_move``) or the side answering ``answering``."""
        colors = client.tokens  # its keys: the client's seats
        if not colors:
            raise RoomError("not_seated", "spectators can only watch; join a seat to play")
        if len(colors) == 1:
            return next(iter(colors))
        if answering is not None:
            return answering.other
        turn = self.acting()
        if to_move or turn in colors:
            return turn
        return next(iter(colors))

    async def move(self, client: Client, text: str, seq: int | None) -> None:
        color = self.actor(client, to_move=True)
        async with self.lock:
            seat = self.seats[color.label]
            if seq is not None and seq <= seat.last_seq:
                client.send(frame("ack", seq=seq, duplicate=True))
                return
            await self._change("play", color, text, seq=seq, client=client)

    async def request(self, client: Client, kind: str, accept: bool | None = None) -> None:
        """undo, redo, takeback, draw, resign (takeback/draw with ``accept``: an answer)."""
        async with self.lock:
            m = self.match
            if kind in ("undo", "redo"):
                color = self.actor(client, to_move=True)
                await self._change(kind, color, None)
            elif kind == "resign":
                await self._change("resign", self.actor(client, to_move=True), None)
            elif kind in ("takeback", "draw"):
                asker = m.takeback_from if kind == "takeback" else m.draw_from
                if accept is None:
                    color = self.actor(client, to_move=False)
                    await self._change("takeback" if kind == "takeback" else "draw", color, None)
                else:
                    color = self.actor(client, answering=asker)
                    await self._change(f"{kind}_answer", color, accept)
            else:
                raise RoomError("bad_frame", f"unknown request {kind!r}")

    async def choose(self, client: Client, choice: str) -> None:
        """The opening's colour choice (swap, swap2)."""
        async with self.lock:
            await self._change("choose", self.actor(client, to_move=True), choice)

    async def _change(
        self,
        kind: str,
        color: Color | None,
        arg: Any,
        *,
        seq: int | None = None,
        client: Client | None = None,
    ) -> None:
        """Apply one action (lock held), store it, ack, publish.  Refusals change nothing."""
        m = self.match
        before = m.version
        at = time.time()
        label = None if color is None else color.label
        self.time.fixed = at
        error: MatchError | None = None
        try:
            _apply(m, kind, label, arg)
        except MatchError as exc:
            error = exc
        finally:
            self.time.fixed = None
        if m.version != before:
            action = ActionRecord(self.actions, kind, label, arg, at)
            stored_seq = (
                (self.row_label(label), seq) if error is None and seq is not None and label is not None else None
            )
            try:
                await self.hub.store.append(self.id, [action], seq=stored_seq, over=m.is_over())
            except StoreConflict:
                # another server process stored this action number first: take its version
                await self.hub.reload(self)
                raise RoomError("stale_room", "the game changed on another server; try again", 409) from None
            except Exception:
                log.exception("room %s: could not store action %d; reloading the room", self.id, action.n)
                await self.hub.reload(self)
                raise RoomError(
                    "store_failed", "the move could not be saved; please try again", 503
                ) from None
            self.actions += 1
            if stored_seq is not None and label is not None:
                self.seats[label].last_seq = stored_seq[1]
            if client is not None and seq is not None and error is None:
                client.send(frame("ack", seq=seq))
            # the change's events as one payload, a frame a line: one delivery per socket
            await self.hub.bus.publish(self.record.id, "\n".join([self.event_frame(e) for e in m.events[before:]]))
            self.after_change()
        if error is not None:
            raise RoomError(error.code, str(error))

    def after_change(self) -> None:
        self.arm_clock()
        self.schedule_computer()

    # -- clocks ------------------------------------------------------------------------------------------------
    def arm_clock(self) -> None:
        if self.flag_timer is not None:
            self.flag_timer.cancel()
            self.flag_timer = None
        clock = self.match.clock
        if clock is None or clock.running is None or self.match.is_over() or self.closed:
            return
        left = clock.left(clock.running)
        loop = asyncio.get_running_loop()
        self.flag_timer = loop.call_later(max(0.0, left) + 0.005, lambda: self.hub.spawn(self._flag()))

    async def _flag(self) -> None:
        async with self.lock:
            await self._change("check_time", None, None)
            self.arm_clock()

    # -- computer seats ------------------------------------------------------------------------------------------
    def schedule_computer(self) -> None:
        if self.closed or (self.think_task is not None and not self.think_task.done()):
            return
        if self.match.computer_to_move():
            self.think_task = self.hub.spawn(self._think())

    async def _think(self) -> None:
        m = self.match
        color = self.acting()
        version = m.version
        spec = m.seats[color].kind
        self.thinking = color
        await self.hub.bus.publish(self.id, frame("event", event={"kind": "thinking", "color": color.label}))
        try:
            move = await self.hub.pool.run(
                choose_job,
                self.record.game,
                self.record.options,
                self.record.position,
                [str(x) for x in m.board.move_stack],
                spec,
            )
        except Exception as exc:  # noqa: BLE001 - a broken engine must not take the room down
            log.warning("room %s: computer %s failed: %s", self.id, spec, exc)
            self.thinking = None
            await self.hub.bus.publish(
                self.id,
                frame(
                    "error", code="engine_failed", message=f"the computer ({spec}) failed: {exc}", seq=None
                ),
            )
            return
        self.thinking = None
        async with self.lock:
            if m.version != version or self.closed:
                pass  # the room moved on (undo, resign, flag) while it thought
            else:
                with contextlib.suppress(RoomError):
                    await self._change("play", color, move)
        self.think_task = None
        self.schedule_computer()

    # -- analysis and rematch ---------------------------------------------------------------------------------------
    async def hint(self, seconds: float = 1.0) -> dict[str, Any]:
        m = self.match
        result: dict[str, Any] = await self.hub.pool.run(
            analyse_job,
            self.record.game,
            self.record.options,
            self.record.position,
            [str(x) for x in m.board.move_stack],
            seconds,
        )
        return result

    async def rematch(self, client: Client) -> None:
        color = self.actor(client)
        async with self.lock:
            if not self.match.is_over():
                raise RoomError("game_not_over", "a rematch can be offered once the game is over")
            if self.record.rematch is not None:
                raise RoomError("rematch_exists", "the rematch has already started")
            humans = [c for label, c in COLORS.items() if self.seats[label].kind == "human"]
            needs_answer = (
                self.record.mode == "online" and len(humans) == 2 and not client.colors >= set(humans)
            )
            if needs_answer and self.rematch_from in (None, color):
                self.rematch_from = color
                await self.hub.bus.publish(
                    self.id, frame("event", event={"kind": "rematch_offered", "color": color.label})
                )
                return
            new = await self.hub.create_rematch(self)
            self.record.rematch = new.id
            await self.hub.bus.publish(
                self.id, frame("event", event={"kind": "rematch_started", "room": new.id})
            )


def _new_match(record: RoomRecord, now: RoomTime) -> Match:
    board = new_board(record.game, record.options, record.position)
    seats = {COLORS[label]: kind for label, kind in record.seats.items()}
    clock = None
    if record.clock is not None:
        days = record.clock.get("days")
        clock = ClockSettings(
            initial=float(record.clock.get("initial", 300.0)),
            increment=float(record.clock.get("increment", 0.0)),
            per_move=None if days is None else float(days) * 86400.0,
        )
    kwargs: dict[str, Any] = {}
    opening = record.options.get("opening")
    if opening and "opening" in inspect.signature(Match).parameters:
        kwargs["opening"] = opening  # swap / swap2 where Match supports them
    return Match(board, seats, clock=clock, local=record.mode == "local", now=now, **kwargs)


def _apply(m: Match, kind: str, color_label: str | None, arg: Any) -> None:
    """Run one stored or requested action on the Match."""
    color = COLORS[color_label] if color_label is not None else m.board.turn
    if kind == "start":
        m.start()
    elif kind == "play":
        m.play(color, str(arg))
    elif kind == "undo":
        m.undo()
    elif kind == "redo":
        m.redo()
    elif kind == "takeback":
        m.request_takeback(color)
    elif kind == "takeback_answer":
        m.answer_takeback(color, bool(arg))
    elif kind == "draw":
        m.offer_draw(color)
    elif kind == "draw_answer":
        m.answer_draw(color, bool(arg))
    elif kind == "resign":
        m.resign(color)
    elif kind == "check_time":
        m.check_time()
    elif kind == "choose":
        m.choose(color, str(arg))
    else:
        raise MatchError("bad_action", f"unknown action {kind!r}")


class RoomHub:
    """All rooms of this process: create, join, find (loading from the store), resume."""

    def __init__(
        self, store: Store, bus: Bus, pool: Pool, *, replay_limit: int = 500, shared: bool = False
    ) -> None:
        self.store = store
        self.bus = bus
        self.shared = shared  # other server processes change rooms too (shared database and bus)
        self.pool = pool
        self.settings_replay_limit = replay_limit
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def resume(self) -> int:
        """Load every unfinished room so clocks run and computers think again."""
        count = 0
        for room_id in await self.store.live_room_ids():
            room = await self.get(room_id)
            if room is not None:
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
                room = self._build(stored)
                self.rooms[room_id] = room
                if self.shared:
                    room.unfollow = self.bus.subscribe(room_id, room.follow)
                room.after_change()
        self._loading.pop(room_id, None)
        return room

    def release(self, room: Room) -> None:
        """Drop a finished room nobody watches from memory (it loads again on demand)."""
        busy = room.think_task is not None and not room.think_task.done()
        if room.clients or busy or not room.match.is_over():
            return
        if room.lock.locked():
            # The last client left while a change holds the room (a rematch starting):
            # try again once it is done, or finished rooms would pile up in memory.
            self.spawn(self._release_when_free(room))
            return
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            room.closed = True
            room.unfollow()
            # the match's listener is the room's own method: without this cycle the room
            # is freed at once rather than by a full collection of the whole heap
            room.match.unsubscribe_all()

    async def _release_when_free(self, room: Room) -> None:
        async with room.lock:
            pass
        self.release(room)

    def _build(self, stored: StoredRoom) -> Room:
        room = Room(self, stored.room, stored.seats)
        room.replay(stored.actions)
        return room

    async def reload(self, room: Room) -> None:
        """Rebuild the room from what is committed (after a failed write, or when
        another server process changed it); sockets and timers stay."""
        stored = await self.store.load(room.id)
        if stored is None:
            return
        fresh = self._build(stored)
        # the fresh Match keeps its own clock source; its events now annotate this room
        room.match, room.time, room.extra = fresh.match, fresh.time, fresh.extra
        room.actions, room.seats, room.record = fresh.actions, fresh.seats, fresh.record
        if fresh.swapped != room.swapped:
            # another process saw the opening's colour swap: this room's sockets follow it too
            for client in room.clients:
                client.tokens = {c.other: t for c, t in client.tokens.items()}
        room.swapped = fresh.swapped
        room.match.unsubscribe_all()  # the fresh Room built for the replay must not annotate
        room.match.subscribe(room._annotate)
        room.after_change()

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
    ) -> tuple[Room, dict[str, str], str | None]:
        """A new room: returns it, the creator's tokens and the invite secret (if any)."""
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
            created=time.time(),
        )
        seat_records = {
            label: SeatRecord(label, kind, hash_secret(tokens[label]) if label in tokens else None)
            for label, kind in kinds.items()
        }
        room = await self._start(record, seat_records)
        return room, tokens, invite

    async def _start(
        self, record: RoomRecord, seats: dict[str, SeatRecord], rematch_of: str | None = None
    ) -> Room:
        room = Room(self, record, seats)  # raises ValueError for a bad game, option or position
        at = time.time()
        room.time.fixed = at
        try:
            room.match.start()
        finally:
            room.time.fixed = None
        start = ActionRecord(0, "start", None, None, at)
        record.over = room.match.is_over()
        await self.store.create_room(record, list(seats.values()), [start], rematch_of=rematch_of)
        room.actions = 1
        self.rooms[record.id] = room
        if self.shared:
            room.unfollow = self.bus.subscribe(record.id, room.follow)
        room.after_change()
        return room

    async def create_rematch(self, old: Room) -> Room:
        """The same players with colours swapped: each keeps its token."""
        r = old.record
        record = RoomRecord(
            id=new_room_id(),
            game=r.game,
            options=dict(r.options),
            position=r.position,
            seats={"black": r.seats["white"], "white": r.seats["black"]},
            clock=r.clock,
            mode=r.mode,
            listed=False,
            invite_hash=r.invite_hash,
            created=time.time(),
        )
        seats = {
            label: SeatRecord(label, old.seats[other].kind, old.seats[other].token_hash)
            for label, other in (("black", "white"), ("white", "black"))
        }
        return await self._start(record, seats, rematch_of=old.id)  # one commit for both rooms

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
        free = [label for label, s in room.seats.items() if s.kind == "human" and s.token_hash is None]
        if not free:
            raise RoomError("seat_taken", "both seats are taken; you can watch the game", 409)
        token = new_secret()
        digest = hash_secret(token)
        if not await self.store.take_seat(room_id, room.row_label(free[0]), digest):
            raise RoomError("seat_taken", "the seat was just taken", 409)
        room.seats[free[0]].token_hash = digest
        await self.bus.publish(room.id, frame("event", event={"kind": "seat_joined", "color": free[0]}))
        return free[0], token

    async def close(self) -> None:
        for room in self.rooms.values():
            room.closed = True
            if room.flag_timer is not None:
                room.flag_timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
