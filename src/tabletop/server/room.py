"""A room: a :class:`~tabletop.match.Match` with seats, sockets, storage and a clock timer.

A :class:`Room` turns client requests into Match calls.  Every request that
changes a room runs under the room's lock as: apply to the Match (which
refuses bad requests and changes nothing) -> append the action to the store
and wait for the commit -> ack the sender -> publish the new events on the bus.
A room is built from what is stored by replaying its actions at their stored
times, so versions, events and clocks come back exactly; the running clock
resumes from the stored time.

The parts, each in its own module: the seats and the tokens that open them
(:mod:`.seats`), the flag timer (:mod:`.clock`), computer seats
(:mod:`.thinking`) and rematches (:mod:`.rematch`).  Turn logic lives in Match
only; sockets and HTTP live in :mod:`.routers`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tabletop.games import new_board
from tabletop.games.core import BLACK, Color
from tabletop.match import ClockSettings, Event, Match, MatchError
from tabletop.server.bus import Broadcast, frame
from tabletop.server.clock import FlagTimer
from tabletop.server.errors import RoomError
from tabletop.server.rematch import RematchOffer
from tabletop.server.results import result_call
from tabletop.server.seats import COLORS, Client, Seats
from tabletop.server.store import ActionRecord, RoomRecord, StoreConflict, StoredRoom
from tabletop.server.thinking import ComputerTurn
from tabletop.server.workers import analyse_job

if TYPE_CHECKING:
    from tabletop.server.rooms import RoomHub

__all__ = ["Room", "RoomError"]

log = logging.getLogger("tabletop.server")


class RoomTime:
    """The clock source of a room's Match: wall time, or a fixed time while an
    action is applied or replayed (so the stored time is exactly the one used)."""

    def __init__(self) -> None:
        self.fixed: float | None = None

    def __call__(self) -> float:
        return time.time() if self.fixed is None else self.fixed


class Room:
    """One game room: its record, seats, Match and the parts around them."""

    def __init__(self, hub: RoomHub, stored: StoredRoom) -> None:
        """The room as stored: ``stored.actions`` are replayed (none for a new room)."""
        self.hub = hub
        self.lock = asyncio.Lock()
        self.seats = Seats(stored.seats)
        self.computer = ComputerTurn()
        self.flag = FlagTimer()
        self.rematch_offer = RematchOffer()
        self.unsubscribe: dict[Client, Callable[[], None]] = {}
        self.closed = False
        self.reloading = False
        self.stop_listening: Callable[[], None] = lambda: None  # the bus subscription of a shared room
        self._restore(stored)

    @property
    def id(self) -> str:
        return self.record.id

    # -- building ---------------------------------------------------------------------------------
    def _restore(self, stored: StoredRoom) -> None:
        """(Re)build the Match from the stored record and actions; the room's
        clients keep their sockets (their tokens follow the seats)."""
        if self.seats.swapped:
            self.seats.swap()  # the clients' tokens back to the stored rows' colours: the replay swaps again
        self.seats = Seats(stored.seats, self.seats.clients)
        self.record: RoomRecord = stored.room
        self.time = RoomTime()
        self.match = _new_match(stored.room, self.time)
        self.extra: dict[int, dict[str, Any]] = {}  # per-version additions (forbidden points)
        self.match.subscribe(self._annotate)
        self.next_action = 0  # the number the next stored action gets
        for action in stored.actions:
            self.time.fixed = action.at
            try:
                _apply(self.match, action.kind, action.color, action.arg)
            except MatchError:
                pass  # refused after emitting (a flag fall found on the way): same as when it happened
            finally:
                self.time.fixed = None
            self.next_action = action.n + 1
        clock = self.match.clock
        if clock is not None and clock.running is not None:
            clock.since = self.time()  # resume from the stored times; the downtime is nobody's

    def _annotate(self, event: Event) -> None:
        """Renju: Black's forbidden points go with each turn change to Black; an
        opening rule that swaps the seats swaps them here."""
        if event.kind == "turn_changed":
            self.extra[event.version] = {"forbidden": self.forbidden()}
        elif event.kind == "colors_chosen" and event.data.get("swapped"):
            self.seats.swap()

    def on_broadcast(self, broadcast: Broadcast) -> None:
        """Bus handler of a room shared with other server processes: a change this
        process has not made (a newer version, a seat taken elsewhere) is reloaded."""
        newer = broadcast.kind == "seat_joined" or (
            broadcast.version is not None and broadcast.version > self.match.version
        )
        if newer and not self.reloading:
            self.reloading = True
            self.hub.spawn(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            async with self.lock:
                await self.reload()
        finally:
            self.reloading = False

    async def reload(self) -> None:
        """Rebuild from what is committed (after a failed write, or when another
        server process changed the room); sockets and timers stay."""
        stored = await self.hub.store.load(self.id)
        if stored is None:
            return
        self.match.unsubscribe_all()
        self._restore(stored)
        self.after_change()

    def release(self) -> None:
        """The room leaves memory: timers stop and nothing refers back to it."""
        self.closed = True
        self.flag.cancel()
        self.stop_listening()
        # the match's listener is the room's own method: without this cycle the room
        # is freed at once rather than by a full collection of the whole heap
        self.match.unsubscribe_all()

    # -- views ------------------------------------------------------------------------------------
    def forbidden(self) -> list[str]:
        board = self.match.board
        points = getattr(board, "forbidden_points", None)
        if points is None or self.match.turn is not BLACK:
            return []
        try:
            return [str(p) for p in points()]
        except (ValueError, NotImplementedError):
            return []

    def state(self) -> dict[str, Any]:
        s = self.match.state()
        s.pop("variant", None)
        thinking = self.computer.thinking
        s.update(
            id=self.id,
            options=self.record.options,
            start_position=self.record.position,
            mode=self.record.mode,
            listed=self.record.listed,
            seats=self.seats.view(),
            forbidden=self.forbidden(),
            thinking=None if thinking is None else thinking.label,
            watchers=self.seats.watchers(),
            rematch=self.record.rematch,
        )
        return s

    def event_frame(self, event: Event) -> dict[str, Any]:
        data = event.to_dict()
        data.update(self.extra.get(event.version, {}))
        return frame("event", version=event.version, event=data)

    # -- connections ----------------------------------------------------------------------------------
    async def greet(self, client: Client, tokens: list[str], since: int | None) -> list[str]:
        """Seat the client by its tokens (returns the bad ones), then send state or
        the missed events, and subscribe it to the room's live events."""
        bad = self.seats.admit(client, tokens)
        async with self.lock:
            m = self.match
            missed = None if since is None else m.version - since
            if missed is not None and 0 <= missed <= self.hub.replay_limit:
                for event in m.events[since:]:
                    client.send(self.event_frame(event))
            else:
                client.send(frame("state", you=sorted(c.label for c in client.colors), **self.state()))
            client.greeted = True
            self.seats.clients.add(client)
            self.unsubscribe[client] = self.hub.bus.subscribe(self.id, client.deliver)
        await self.presence()
        return bad

    async def leave(self, client: Client) -> None:
        if client not in self.seats.clients:
            return
        self.seats.clients.discard(client)
        self.unsubscribe.pop(client, lambda: None)()
        await self.presence()
        self.hub.release(self)

    async def presence(self) -> None:
        watchers = frame("watchers", count=self.seats.watchers(), seats=self.seats.presence())
        await self.hub.bus.publish(self.id, Broadcast("watchers", [watchers]))

    # -- requests ------------------------------------------------------------------------------------------
    def acting(self) -> Color:
        """The seat that must act: :attr:`Match.actor` (during an opening the seat
        placing stones or choosing, which may differ from the board's side to move),
        else the board's side to move.  ``Color.BLACK`` is 0, so never ``actor or ...``."""
        actor = self.match.actor
        return self.match.board.turn if actor is None else actor

    def speaker(self, client: Client, *, to_move: bool = False, answering: Color | None = None) -> Color:
        """The seat ``client``'s request speaks for (see :meth:`Seats.speaker`)."""
        return self.seats.speaker(client, self.acting(), to_move=to_move, answering=answering)

    async def move(self, client: Client, text: str, seq: int | None) -> None:
        color = self.speaker(client, to_move=True)
        async with self.lock:
            if seq is not None and seq <= self.seats[color.label].last_seq:
                client.send(frame("ack", seq=seq, duplicate=True))
                return
            await self._change("play", color, text, seq=seq, client=client)

    async def request(self, client: Client, kind: str, accept: bool | None = None) -> None:
        """undo, redo, takeback, draw, resign (takeback/draw with ``accept``: an answer)."""
        async with self.lock:
            m = self.match
            if kind in ("undo", "redo", "resign"):
                await self._change(kind, self.speaker(client, to_move=True), None)
            elif kind in ("takeback", "draw"):
                if accept is None:
                    await self._change(kind, self.speaker(client), None)
                else:
                    asker = m.takeback_from if kind == "takeback" else m.draw_from
                    await self._change(f"{kind}_answer", self.speaker(client, answering=asker), accept)
            else:
                raise RoomError("bad_frame", f"unknown request {kind!r}")

    async def choose(self, client: Client, choice: str) -> None:
        """The opening's colour choice (swap, swap2)."""
        async with self.lock:
            await self._change("choose", self.speaker(client, to_move=True), choice)

    async def begin(self) -> None:
        """Start the game, and its clock, if no move has started it yet (the opponent has joined)."""
        async with self.lock:
            if not self.match.started and not self.closed:
                await self._change("start", None, None)

    async def play_computer(self, color: Color, move: str, version: int) -> None:
        """A computer seat's move, searched at ``version`` (dropped if the room moved on)."""
        async with self.lock:
            if self.match.version == version and not self.closed:
                with contextlib.suppress(RoomError):
                    await self._change("play", color, move)

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
            stored_seq = seq if error is None and label is not None else None
            await self._store(ActionRecord(self.next_action, kind, label, arg, at), stored_seq)
            if client is not None and seq is not None and error is None:
                client.send(frame("ack", seq=seq))
            events = Broadcast("events", [self.event_frame(e) for e in m.events[before:]], m.version)
            await self.hub.bus.publish(self.id, events)
            self.after_change()
        if error is not None:
            raise RoomError(error.code, str(error))

    async def _store(self, action: ActionRecord, seq: int | None) -> None:
        """Append ``action`` (and the client's ``seq`` of a move) and wait for the commit;
        a write that fails leaves the room as the database has it."""
        if seq is not None and action.color is not None:
            action.seat, action.seq = self.seats.row_label(action.color), seq
        try:
            over = self.match.is_over()
            also = result_call(self.id, self.match, self.seats) if over else None  # players' result, ratings
            await self.hub.store.append(self.id, [action], over=over, also=also)
        except StoreConflict:
            # another server process stored this action number first: take its version
            await self.reload()
            raise RoomError("stale_room", "the game changed on another server; try again", 409) from None
        except Exception:
            log.exception("room %s: could not store action %d; reloading the room", self.id, action.n)
            await self.reload()
            raise RoomError("store_failed", "the move could not be saved; please try again", 503) from None
        self.next_action += 1
        if seq is not None and action.color is not None:
            self.seats[action.color].last_seq = seq

    def after_change(self) -> None:
        self.flag.arm(self.match.clock, not self.match.is_over() and not self.closed, self._flag_fell)
        self.computer.schedule(self)

    def _flag_fell(self) -> None:
        self.hub.spawn(self._flag())

    async def _flag(self) -> None:
        async with self.lock:
            await self._change("check_time", None, None)
            self.after_change()

    # -- analysis and rematch ---------------------------------------------------------------------------------------
    async def hint(self, seconds: float = 1.0) -> dict[str, Any]:
        r = self.record
        moves = [str(x) for x in self.match.board.move_stack]
        result: dict[str, Any] = await self.hub.pool.run(
            analyse_job, r.game, r.options, r.position, moves, seconds
        )
        return result

    async def rematch(self, client: Client) -> None:
        color = self.speaker(client)
        async with self.lock:
            if not self.match.is_over():
                raise RoomError("game_not_over", "a rematch can be offered once the game is over")
            if self.record.rematch is not None:
                raise RoomError("rematch_exists", "the rematch has already started")
            humans = self.seats.humans()
            needs_answer = (
                self.record.mode == "online" and len(humans) == 2 and not client.colors >= set(humans)
            )
            if self.rematch_offer.offer(color, needs_answer=needs_answer):
                offered = frame("event", event={"kind": "rematch_offered", "color": color.label})
                await self.hub.bus.publish(self.id, Broadcast("rematch_offered", [offered]))
                return
            new = await self.hub.create_rematch(self)
            self.record.rematch = new.id
            started = frame("event", event={"kind": "rematch_started", "room": new.id})
            await self.hub.bus.publish(self.id, Broadcast("rematch_started", [started]))


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
    opening = record.options.get("opening")
    return Match(
        board,
        seats,
        clock=clock,
        local=record.mode == "local",
        now=now,
        opening=str(opening) if opening else None,
        computer_chooses=False,  # a computer seat's opening step is decided in the worker pool (thinking.py)
    )


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
