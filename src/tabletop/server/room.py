"""A room: a :class:`~tabletop.match.Match` with seats, sockets, storage and a clock timer.

A :class:`Room` coordinates: it turns client requests into Match calls, and
every request that changes the room runs under the room's lock as: apply to
the Match (which refuses bad requests and changes nothing) -> append the
action to the store and wait for the commit -> ack the sender -> publish the
new events on the bus.  A room is built from what is stored by replaying its
actions at their stored times, so versions, events and clocks come back
exactly; the running clock resumes from the stored time.

The parts, each in its own module: the seats, the tokens that open them and
the connections in the room (:mod:`.seats`), the room's time and flag timer
(:mod:`.clock`), computer seats (:mod:`.thinking`), rematches
(:mod:`.rematch`) and catching up with other server processes
(:mod:`.catchup`).  The Room holds them and hands each what it needs (a
clock and a callback, a list of clients, the few members a part's own
protocol names), so no part imports this module; the Room knows its hub
only as :class:`Hub`.  Turn logic lives in Match only; sockets and HTTP live
in :mod:`.routers`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, Color
from tabletop.games.mnk import RenjuBoard
from tabletop.match import Event, Match, MatchError
from tabletop.server.bus import Broadcast, Bus, frame
from tabletop.server.catchup import CatchUp, send_missed
from tabletop.server.chat import RoomChat
from tabletop.server.clock import FlagTimer, RoomTime, clock_settings
from tabletop.server.correspondence import check_claim
from tabletop.server.errors import RoomError
from tabletop.server.profile import Clock
from tabletop.server.rematch import RematchOffer, started
from tabletop.server.results import read_players, result_call
from tabletop.server.seats import COLORS, Client, Seats
from tabletop.server.store import ActionRecord, RoomRecord, SqlStore, Store, StoreConflict, StoredRoom
from tabletop.server.thinking import ComputerTurn
from tabletop.server.workers import Pool

__all__ = ["Hub", "Room", "RoomError"]

log = logging.getLogger("tabletop.server")


class Hub(Protocol):
    """What a room needs of the rooms of its process (:class:`~.rooms.RoomHub` is one)."""

    @property
    def store(self) -> Store: ...

    @property
    def bus(self) -> Bus: ...

    @property
    def pool(self) -> Pool: ...

    @property
    def shared(self) -> bool: ...

    @property
    def replay_limit(self) -> int: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def now(self) -> Callable[[], float]: ...

    @property
    def away_timeout(self) -> float:
        """Seconds a player's seat may stay empty before the other player may end the game."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...

    def release(self, room: Room) -> None: ...

    async def create_rematch(self, old: Room) -> Room: ...


class Room:
    """One game room: its record, seats, Match and the parts around them."""

    def __init__(self, hub: Hub, stored: StoredRoom, *, new: bool = False) -> None:
        """The room as stored: ``stored.actions`` are replayed (none for a new room; ``new``: one
        this process is creating, so nothing of it is in the store yet)."""
        self.hub = hub
        self.id: str = stored.room.id
        self.lock = asyncio.Lock()
        self.seats = Seats(stored.seats, now=hub.now())  # nobody is connected yet
        self.computer = ComputerTurn()
        self.flag = FlagTimer()
        self.rematch_offer = RematchOffer()
        self.catch_up = CatchUp()
        self.chat = RoomChat(stored.room.id, new=new)
        self.closed = False
        self.stop_listening: Callable[[], None] = lambda: None  # the bus subscription of a shared room
        # the signed-in players by stored seat row (results.read_players), read on first need
        self.players: dict[str, Any] | None = None
        self.players_read = False
        self._restore(stored)

    # -- building ---------------------------------------------------------------------------------
    def _restore(self, stored: StoredRoom) -> None:
        """(Re)build the Match from the stored record and actions; the room's
        clients keep their sockets (their tokens follow the seats)."""
        if self.seats.swapped:
            self.seats.swap()  # the clients' tokens back to the stored rows' colours: the replay swaps again
        self.seats = Seats(stored.seats, self.seats)
        self.record: RoomRecord = stored.room
        # a room whose seats are all people never schedules a search (an opening swap keeps the kinds)
        self.has_computer = any(kind != "human" for kind in stored.room.seats.values())
        self.time = RoomTime(self.hub.now)  # the server's wall clock (a test's own in tests)
        resume = self.hub.clock.enter("match")  # CPU by part (--profile)
        try:
            self._replay(stored)
        finally:
            self.hub.clock.enter(resume)
        clock = self.match.clock
        if clock is not None and clock.running is not None and clock.settings.per_move is None:
            # resume from the stored times; the downtime is nobody's (a correspondence clock, of days
            # a move, counts the days since the last move however the server came and went)
            clock.since = self.time()

    def _replay(self, stored: StoredRoom) -> None:
        """A new Match for the record, with the stored actions applied at their stored times."""
        self.match = _new_match(stored.room, self.time)
        # only Renju has forbidden points: every other board's turns carry an empty list, unscanned
        self.forbids = isinstance(self.match.board, RenjuBoard)
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

    def _annotate(self, event: Event) -> None:
        """Renju: Black's forbidden points go with each turn change to Black; an
        opening rule that swaps the seats swaps them here."""
        if event.kind == "turn_changed":
            self.extra[event.version] = {"forbidden": self.forbidden()}
        elif event.kind == "colors_chosen" and event.data.get("swapped"):
            self.seats.swap()

    async def reload(self) -> None:
        """Rebuild from what is committed (after a failed write, or when another
        server process changed the room), lock held; sockets and timers stay, and
        each socket is sent the events it has not had."""
        stored = await self.hub.store.load(self.id)
        if stored is None:
            return
        self.match.unsubscribe_all()
        self._restore(stored)
        self.players_read = False  # another process may have seated them or stored their ratings
        self.send_missed()
        self.after_change()

    def send_missed(self) -> None:
        """Send each connection the events of the log it has not had, in order (:mod:`.catchup`)."""
        send_missed(self.seats.clients, self.match.events, self.event_frame)

    def release(self) -> None:
        """The room leaves memory: timers stop and nothing refers back to it."""
        self.closed = True
        self.flag.cancel()
        self.stop_listening()
        # the match's listener is the room's own method: without this cycle the room
        # is freed at once rather than by a full collection of the whole heap
        self.match.unsubscribe_all()

    # -- views ------------------------------------------------------------------------------------
    async def read_players(self) -> None:
        """Read the room's players and their ratings from the store (after a seek seats them, and
        after the game's result and rating change are committed)."""
        store = self.hub.store
        if not isinstance(store, SqlStore):
            return

        def read() -> dict[str, Any] | None:
            with store.engine.connect() as conn:
                return read_players(conn, self.id)

        self.players = await store.read(read)
        self.players_read = True

    async def ensure_players(self) -> None:
        """The players read once per room in memory; in a room shared with other server processes,
        on every request for the state of a room that has players (its game may have ended there)."""
        if not self.players_read or (self.hub.shared and self.players is not None):
            await self.read_players()

    def players_view(self) -> dict[str, Any] | None:
        """The players by the colour each plays now (an opening rule may have swapped the seats)."""
        p = self.players
        if p is None:
            return None
        return {**p, "black": p[self.seats.row_label("black")], "white": p[self.seats.row_label("white")]}

    def forbidden(self) -> list[str]:
        if not self.forbids or self.match.turn is not BLACK:
            return []
        board = self.match.board
        assert isinstance(board, RenjuBoard)
        try:
            return [str(p) for p in board.forbidden_points()]
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
            away=self.away(),
            rematch=self.record.rematch,
            players=self.players_view(),
        )
        return s

    def event_frame(self, event: Event) -> dict[str, Any]:
        data = event.to_dict()
        extra = self.extra.get(event.version)
        if extra is not None:
            data.update(extra)
        return frame("event", version=event.version, event=data)

    # -- connections ----------------------------------------------------------------------------------
    async def greet(self, client: Client, tokens: list[str], since: int | None) -> list[str]:
        """Seat the client by its tokens (returns the bad ones), then send state or
        the missed events, and subscribe it to the room's live events.  A room
        shared with other server processes is read from the store first: this
        process's copy may be behind (a seat taken, a move committed elsewhere)."""
        async with self.lock:
            if self.hub.shared:
                await self.reload()
            await self.ensure_players()
            bad = self.seats.admit(client, tokens)
            m = self.match
            missed = None if since is None else m.version - since
            if missed is not None and 0 <= missed <= self.hub.replay_limit:
                for event in m.events[since:]:
                    client.send(self.event_frame(event))
            else:
                shown = self.state()
                # the client is here: its own seats are not away (it enters the room just below)
                shown["away"] = {k: v for k, v in shown["away"].items() if COLORS[k] not in client.colors}
                client.send(frame("state", you=sorted(c.label for c in client.colors), **shown))
            client.version = m.version
            if self.record.mode == "online":  # the chat this client may read (:mod:`.chat`)
                history = await self.chat.history(
                    self.hub.store, seated=bool(client.tokens), over=m.is_over(), again=self.hub.shared
                )
                if history is not None:
                    client.send(history)
            client.greeted = True
            self.seats.enter(client, self.hub.bus.subscribe(self.id, client.deliver))
        await self.hub.bus.publish(self.id, Broadcast("watchers", [self.presence_frame()]))
        return bad

    async def say(self, client: Client, text: str, guest: str | None, account: str | None) -> None:
        """A chat message from ``client`` (``guest``: its browser's key; ``account``: its signed-in
        name): checked, stored and sent to the room by :mod:`.chat`."""
        async with self.lock:
            await self.ensure_players()
            players = self.players_view() or {}
            who = self.chat.speaker(
                client,
                mode=self.record.mode,
                seats=[(c.label, self.seats.row_label(c.label)) for c in client.colors],
                names={c: str(players[c]["name"]) for c in COLORS if isinstance(players.get(c), dict)},
                guest=guest,
                account=account,
            )
            broadcast = await self.chat.post(self.hub.store, who, text, client, over=self.match.is_over())
            await self.hub.bus.publish(self.id, broadcast)  # under the lock: a client greeted meanwhile has it once
        client.send(frame("chat_sent", author=who.author))  # the sender's page knows its own messages

    async def leave(self, client: Client) -> None:
        if not self.seats.leave(client, self.hub.now()):
            return
        await self.hub.bus.publish(self.id, Broadcast("watchers", [self.presence_frame()]))
        self.hub.release(self)

    # -- requests ------------------------------------------------------------------------------------------
    def acting(self) -> Color:
        """The seat that must act: :attr:`Match.actor` (during an opening the seat
        placing stones or choosing, which may differ from the board's side to move),
        else the board's side to move.  ``Color.BLACK`` is 0, so never ``actor or ...``."""
        actor = self.match.actor
        return self.match.board.turn if actor is None else actor

    def speaker(self, client: Client, *, to_move: bool = False, answering: Color | None = None) -> Color:
        """The seat ``client``'s request speaks for (see :meth:`Seats.speaker`)."""
        return self.seats.speaker(client, self.acting, to_move=to_move, answering=answering)

    async def move(self, client: Client, text: str, seq: int | None) -> None:
        color = self.speaker(client, to_move=True)
        async with self.lock:
            if seq is not None and seq <= self.seats[color.label].last_seq:
                client.send(frame("ack", seq=seq, duplicate=True))
                return
            await self.change("play", color, text, seq=seq, client=client)

    async def request(self, client: Client, kind: str, arg: bool | str | None = None) -> None:
        """undo, redo, takeback, draw, resign (takeback/draw with ``arg``: an answer),
        choose (``arg``: the opening's colour choice, swap and swap2)."""
        async with self.lock:
            m = self.match
            if kind in ("undo", "redo", "resign"):
                await self.change(kind, self.speaker(client, to_move=True), None)
            elif kind == "choose":
                await self.change(kind, self.speaker(client, to_move=True), arg)
            elif kind in ("abort", "claim_abandoned"):
                await self._end_early(kind, self.speaker(client))
            elif kind in ("takeback", "draw"):
                if arg is None:
                    await self.change(kind, self.speaker(client), None)
                else:
                    asker = m.takeback_from if kind == "takeback" else m.draw_from
                    await self.change(f"{kind}_answer", self.speaker(client, answering=asker), arg)
            elif kind == "claim_time":  # correspondence: the other side's time ran out (refused otherwise)
                check_claim(m, self.speaker(client))
                await self.change("check_time", None, None)
            else:
                raise RoomError("bad_frame", f"unknown request {kind!r}")

    # -- an abandoned game ----------------------------------------------------------------------------
    def away(self) -> dict[str, float]:
        """The seats of a live online game between people that no connection holds (the player
        has left), each with the seconds until the other player may end the game (0: now).
        None in a room shared with other server processes: this process sees only its own
        connections, and a player connected to another process is not gone."""
        m = self.match
        if self.record.mode != "online" or self.hub.shared or not m.started or m.is_over() or self.seats.free():
            return {}
        if m.clock is not None and m.clock.settings.per_move is not None:
            return {}  # correspondence: players come and go for days; the clock decides (:mod:`.correspondence`)
        timeout = self.hub.away_timeout
        return {label: round(max(0.0, timeout - gone), 1) for label, gone in self.seats.away(self.hub.now()).items()}

    def presence_frame(self) -> dict[str, Any]:
        """Who is here (:meth:`Seats.presence_frame`) and who has left a live game (:meth:`away`)."""
        return {**self.seats.presence_frame(), "away": self.away()}

    async def _end_early(self, kind: str, color: Color) -> None:
        """``color`` aborts the game (``abort``: no result, never rated) or claims the win
        (``claim_abandoned``, rated as the game is).  A game in which a side has not moved yet may
        be aborted at any time; otherwise the other player must have been away for the room's
        away timeout (the lock held)."""
        m = self.match
        if self.record.mode != "online":
            raise RoomError("not_allowed", "only an online game is aborted or claimed; here, resign or start anew")
        if m.is_over():
            raise RoomError("game_over", "the game is over")
        if kind == "abort" and not (m.has_moved(BLACK) and m.has_moved(WHITE)):
            await self.change("abort", color, None)
            return
        left = self.away().get(color.other.label)
        if left is None:
            raise RoomError("opponent_present", "your opponent is here: the game goes on")
        if left > 0:
            raise RoomError(
                "claim_too_early", f"your opponent may still come back: you can end the game in {math.ceil(left)} s"
            )
        if kind == "abort":
            await self.change("abort", color, "abandoned")
        else:
            await self.change("abandoned", color, None)

    async def rematch(self, client: Client) -> None:
        """``client`` asks for a rematch of the finished game: announce the offer, or create
        the rematch room and announce it (:mod:`.rematch` decides which)."""
        color = self.speaker(client)
        async with self.lock:
            offer = self.rematch_offer.request(
                color,
                over=self.match.is_over(),
                record=self.record,
                humans=self.seats.humans(),
                colors=client.colors,
            )
            if offer is not None:
                await self.hub.bus.publish(self.id, offer)
                return
            new = await self.hub.create_rematch(self)
            self.record.rematch = new.id
            await self.hub.bus.publish(self.id, started(new.id))

    async def begin(self) -> None:
        """Start the game, and its clock, if no move has started it yet (the opponent has joined)."""
        async with self.lock:
            if not self.match.started and not self.closed:
                await self.change("start", None, None)

    async def act_computer(self, color: Color, actions: list[tuple[str, str]], version: int) -> None:
        """A computer seat's actions (``("play", move)``, or an opening step: a
        ``("choose", choice)`` and stones), decided at ``version``: dropped if the room
        moved on meanwhile.  Each is stored on its own; a refused one ends them."""
        async with self.lock:
            if self.match.version != version or self.closed:
                return
            for kind, arg in actions:
                try:
                    await self.change(kind, color, arg)
                except RoomError:
                    return

    async def change(
        self,
        kind: str,
        color: Color | None,
        arg: Any,
        *,
        seq: int | None = None,
        client: Client | None = None,
    ) -> None:
        """Apply one action (the lock held), store it, ack, publish.  Refusals change nothing."""
        m = self.match
        before = m.version
        at = self.hub.now()
        label = None if color is None else color.label
        self.time.fixed = at
        error: MatchError | None = None
        parts = self.hub.clock  # CPU by part (--profile)
        resume = parts.enter("match")
        try:
            _apply(m, kind, label, arg)
        except MatchError as exc:
            error = exc
        finally:
            self.time.fixed = None
            parts.enter(resume)
        if m.version != before:
            stored_seq = seq if error is None and label is not None else None
            await self._store(ActionRecord(self.next_action, kind, label, arg, at), stored_seq)
            if client is not None and seq is not None and error is None:
                client.send(frame("ack", seq=seq))
            resume = parts.enter("bus")
            events = Broadcast("events", [self.event_frame(e) for e in m.events[before:]], m.version)
            await self.hub.bus.publish(self.id, events)
            parts.enter(resume)
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
        if also is not None and self.players is not None:
            await self.read_players()  # the result and rating change just stored, before the end is announced

    def after_change(self) -> None:
        """Re-arm the flag timer and let a computer seat think, for the room as it is now."""
        m = self.match
        if m.clock is not None:  # without a clock no timer was ever armed
            self.flag.arm(m.clock, not m.is_over() and not self.closed, self._flag_time)
        if self.has_computer:
            self.computer.schedule(self)

    def _flag_time(self) -> None:
        """The flag timer's call: the side to move may have run out of time."""
        self.hub.spawn(self._check_time())

    async def _check_time(self) -> None:
        """Record the flag's fall under the lock (or, if a move came first, wait on)."""
        async with self.lock:
            await self.change("check_time", None, None)
            self.after_change()


def _new_match(record: RoomRecord, now: RoomTime) -> Match:
    board = new_board(record.game, record.options, record.position)
    seats = {COLORS[label]: kind for label, kind in record.seats.items()}
    opening = record.options.get("opening")
    return Match(
        board,
        seats,
        clock=clock_settings(record.clock),
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
    elif kind == "abort":
        m.abort(color, abandoned=arg == "abandoned")
    elif kind == "abandoned":
        m.claim_win(color)
    elif kind == "check_time":
        m.check_time()
    elif kind == "choose":
        m.choose(color, str(arg))
    else:
        raise MatchError("bad_action", f"unknown action {kind!r}")
