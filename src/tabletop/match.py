"""A game between two seats: turn order, clocks, takebacks, draws, resignation, events.

:class:`Match` turns a board into a game between seats.  It knows nothing of
any view or transport: the terminal, the tournament runner and the server all
drive a ``Match`` and listen to its events.  Every change is an
:class:`Event` with a version that rises by one, delivered in order to every
subscriber, so a log of events can be replayed.

Illegal requests raise :class:`MatchError` (a ``ValueError``) with a
machine-readable ``code`` and change nothing.

>>> from tabletop.games.mnk import tictactoe
>>> m = Match(tictactoe())
>>> m.start()
>>> m.play(BLACK, "b2")
Move('b2')
>>> [e.kind for e in m.events]
['game_started', 'turn_changed', 'move_played', 'turn_changed']
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tabletop.games.core import BLACK, PASS, WHITE, BaseBoard, Color, IllegalMoveError, Move, Outcome
from tabletop.games.openings import OpeningError, OpeningPhase

if TYPE_CHECKING:
    from tabletop.ai.base import Limit, Player

__all__ = ["Clock", "ClockSettings", "Event", "Match", "MatchError", "Seat"]


class MatchError(ValueError):
    """A request the match refuses; ``code`` names the kind for error frames."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Event:
    """One change to a match.  ``data`` holds plain JSON values."""

    kind: str
    version: int
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}


@dataclass(frozen=True)
class ClockSettings:
    """``initial`` seconds each, plus ``increment`` per move; or
    ``per_move`` seconds for every move (correspondence: days * 86400).
    ``from_first_move``: a side's clock does not run before that side's first move
    (which earns no increment), as online games between people do, so that nobody
    loses time while the other player finds the game."""

    initial: float = 300.0
    increment: float = 0.0
    per_move: float | None = None
    from_first_move: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"initial": self.initial, "increment": self.increment, "per_move": self.per_move,
                "from_first_move": self.from_first_move}


class Clock:
    """Two countdowns; only the side to move runs.  Time comes from ``now``
    (seconds, monotonic by default) so a server can persist and resume it."""

    def __init__(self, settings: ClockSettings, now: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.now = now
        start = settings.per_move if settings.per_move is not None else settings.initial
        self.remaining = [float(start), float(start)]
        self.running: Color | None = None
        self.since = 0.0

    def start(self, color: Color) -> None:
        self.running = color
        self.since = self.now()

    def stop(self) -> None:
        if self.running is not None:
            self.remaining[self.running] -= self.now() - self.since
        self.running = None

    def left(self, color: Color) -> float:
        r = self.remaining[color]
        if self.running is color:
            r -= self.now() - self.since
        return r

    def switch(self, mover: Color) -> None:
        """``mover`` has just moved: charge its time, add the increment, start the other."""
        self.stop()
        if self.settings.per_move is not None:
            self.remaining[mover] = self.settings.per_move
        else:
            self.remaining[mover] += self.settings.increment
        self.start(mover.other)

    def flagged(self) -> Color | None:
        if self.running is not None and self.left(self.running) <= 0:
            return self.running
        return None

    def snapshot(self) -> dict[str, float]:
        return {"black": max(0.0, self.left(BLACK)), "white": max(0.0, self.left(WHITE))}


@dataclass
class Seat:
    """Who plays a colour: ``"human"`` or a player SPEC (``level:5``, ``mcts:200``...)."""

    kind: str = "human"
    _player: Player | None = field(default=None, repr=False)

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    def player(self, game: str) -> Player:
        if self.is_human:
            raise MatchError("not_allowed", "a human seat has no computer player")
        if self._player is None:
            from tabletop.players import player

            self._player = player(self.kind, game=game)
        return self._player


Listener = Callable[[Event], None]


class Match:
    """Two seats playing one board.

    ``seats`` maps each colour to ``"human"`` or a player SPEC.  ``local`` games
    (one screen, or against the computer) allow free undo/redo; online games use
    takeback requests instead.  ``auto_pass`` plays a forced pass for the side
    that has nothing else (Reversi), so a UI only has to announce it.
    """

    def __init__(
        self,
        board: BaseBoard,
        seats: dict[Color, str] | None = None,
        *,
        clock: ClockSettings | None = None,
        local: bool = True,
        auto_pass: bool = True,
        now: Callable[[], float] = time.monotonic,
        opening: str | None = None,
        computer_chooses: bool = True,
    ) -> None:
        """``computer_chooses``: a computer seat's opening choice is made at once (it takes White);
        a caller that decides for its computer seats itself (the server, in its worker pool) passes
        False and calls :meth:`choose` for them (a stone they play instead takes the colour to move)."""
        self.board = board
        self.computer_chooses = computer_chooses
        # an opening rule (swap, swap2): one seat places the first stones, then a seat picks a colour
        self.opening: OpeningPhase | None = None
        if opening:
            if board.game != "gomoku":
                raise ValueError(f"opening rules are for gomoku, not {board.game}")
            self.opening = OpeningPhase(opening)
        given = seats or {}
        self.seats: dict[Color, Seat] = {c: Seat(given.get(c, "human")) for c in (BLACK, WHITE)}
        self.clock = Clock(clock, now) if clock is not None else None
        self.local = local
        self.auto_pass = auto_pass
        self.events: list[Event] = []
        self._listeners: list[Listener] = []
        self._redo: list[Move] = []
        self._result: Outcome | None = None  # resign, time, agreement
        self.takeback_from: Color | None = None
        self.draw_from: Color | None = None
        self.started = False
        # the seats that have moved (a stone, a pass or an opening choice), by the colour each
        # plays now: a side's clock may wait for its first move, and until both have moved
        # either side may abort the game
        self._movers: set[Color] = set()

    # -- events ----------------------------------------------------------------------
    @property
    def version(self) -> int:
        return len(self.events)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every later event; returns an unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def unsubscribe_all(self) -> None:
        """Drop every listener (a server handing the match to a new room object)."""
        self._listeners.clear()

    def _emit(self, kind: str, **data: Any) -> Event:
        ev = Event(kind, len(self.events) + 1, data)
        self.events.append(ev)
        for listener in list(self._listeners):
            listener(ev)
        return ev

    # -- state ---------------------------------------------------------------------------
    @property
    def game(self) -> str:
        return self.board.game

    @property
    def turn(self) -> Color | None:
        return None if self.is_over() else self.board.turn

    def outcome(self) -> Outcome | None:
        return self._result or self.board.outcome()

    def is_over(self) -> bool:
        # asked several times a move (by turn, actor, the server's room): one call less than outcome()
        return self._result is not None or self.board.outcome() is not None

    @property
    def actor(self) -> Color | None:
        """The seat that must act now: the side to move, or during an opening
        the seat placing the opening stones or making the choice."""
        if self.is_over():
            return None
        if self.opening is not None and not self.opening.done:
            return self.opening.actor
        return self.board.turn

    def computer_to_move(self) -> bool:
        actor = self.actor
        return actor is not None and not self.seats[actor].is_human

    def _turn_data(self, legal: list[Move] | None = None) -> dict[str, Any]:
        """``legal``: the board's legal moves when the caller has just computed them."""
        t = self.turn
        data: dict[str, Any] = {"turn": None if t is None else t.label}
        if t is not None:
            # a move's name is its text (str() only for a nameless one): this runs every turn
            data["legal"] = [m.name or str(m) for m in (self.board.legal_moves if legal is None else legal)]
        if self.opening is not None:
            actor = self.actor
            data["actor"] = None if actor is None else actor.label
            data["opening"] = self.opening.to_dict()
            if self.opening.stage == "choose":
                data["legal"] = []  # nobody places a stone until the choice is made
        if self.clock is not None:
            data["clocks"] = self.clock.snapshot()
            running = self.clock.running
            data["clock_running"] = None if running is None else running.label
        return data

    def start(self) -> None:
        """Announce the game: ``game_started`` then ``turn_changed``."""
        if self.started:
            return
        self.started = True
        self._emit(
            "game_started",
            game=self.game,
            variant=self.board.variant(),
            position=self.board.to_text(),
            seats={c.label: s.kind for c, s in self.seats.items()},
            **({} if self.opening is None else {"opening": self.opening.rule}),
        )
        if self.opening is not None:
            self._emit("opening_started", rule=self.opening.rule, color=self.opening.actor.label, stones=self.opening.stones_left)
        if not self.is_over():
            self._run_clock(self.board.turn)
        self._after_move()

    # -- moves -------------------------------------------------------------------------------
    def _require_live(self) -> None:
        if not self.started:
            self.start()
        self.check_time()
        if self.is_over():
            raise MatchError("game_over", "the game is over")

    def play(self, color: Color, move: Move | str) -> Move:
        """``color`` plays ``move``.  Raises :class:`MatchError` (``not_your_turn``,
        ``game_over``, ``illegal_move``) and changes nothing when refused."""
        self._require_live()
        phase = self.opening
        if phase is not None and phase.stage == "choose" and color is phase.actor and not self.seats[color].is_human:
            # a computer chooser that places a stone takes the colour to move, as a Gomocup engine
            # answers a swap with a move (so rooms stored when computers took White at once replay)
            self.choose(color, self.board.turn.label)
            color = self.board.turn
        if self.opening is not None and not self.opening.done:
            try:  # the placing seat puts down stones of both colours
                self.opening.check_stone(color)
            except OpeningError as exc:
                raise MatchError(exc.code, str(exc)) from None
        elif color is not self.board.turn:
            raise MatchError("not_your_turn", f"it is {self.board.turn.label}'s turn, not {color.label}'s")
        try:
            m = self.board.parse_move(move) if isinstance(move, str) else move
            flips = self._flips(m)
            self.board.push(m)
        except (IllegalMoveError, ValueError) as exc:
            raise MatchError("illegal_move", str(exc)) from None
        m = self.board.peek() or m
        if self.opening is not None and not self.opening.done:
            self.opening.stone_placed()
        self._redo.clear()
        self.takeback_from = None
        self.draw_from = None
        self._moved(color, m, flips)
        return m

    def _flips(self, move: Move) -> list[str]:
        flips = getattr(self.board, "flips", None)
        if flips is None or move.is_pass:
            return []
        try:
            return [str(x) for x in flips(move)]
        except (IllegalMoveError, ValueError):
            return []

    def _moved(self, color: Color, move: Move, flips: list[str]) -> None:
        self._charge(color)
        self._clock_to_actor()
        self._emit("move_played", color=color.label, move=str(move), ply=len(self.board.move_stack), flips=flips)
        if self.opening is not None and self.opening.stage == "choose" and not self.is_over():
            chooser = self.opening.actor
            self._emit("opening_choice_required", color=chooser.label, options=list(self.opening.options), rule=self.opening.rule)
            if self.computer_chooses and not self.seats[chooser].is_human:
                self.choose(chooser, self.opening.computer_choice())
                return
        self._after_move()

    def _clock_to_actor(self) -> None:
        """During an opening the seat that acts next may be the one that just moved."""
        if self.clock is None or self.opening is None:
            return
        actor = self.actor
        if actor is not None:
            self._run_clock(actor)

    def _charge(self, mover: Color) -> None:
        """``mover`` has just moved: charge its time (with the increment, unless this was a
        first move its clock waited for) and run the other side's clock."""
        first = mover not in self._movers
        self._movers.add(mover)
        clock = self.clock
        if clock is None:
            return
        if first and clock.settings.from_first_move:
            clock.stop()
            self._run_clock(mover.other)
        else:
            clock.switch(mover)  # stops, adds the increment, runs the other side's clock
            if not self._clock_runs(mover.other):
                clock.stop()

    def _clock_runs(self, color: Color) -> bool:
        """Whether ``color``'s clock may run now (see :attr:`ClockSettings.from_first_move`)."""
        return self.clock is not None and (not self.clock.settings.from_first_move or color in self._movers)

    def _run_clock(self, color: Color) -> None:
        """Make ``color``'s clock the running one, if it may run; else no clock runs."""
        clock = self.clock
        if clock is None or clock.running is color and self._clock_runs(color):
            return
        clock.stop()
        if self._clock_runs(color):
            clock.start(color)

    def has_moved(self, color: Color) -> bool:
        """Whether the seat playing ``color`` has made a move (a stone, a pass or an opening choice)."""
        return color in self._movers

    @property
    def clock_running(self) -> Color | None:
        """The colour whose clock runs now (None without a clock, before a first move, and at the end)."""
        return None if self.clock is None else self.clock.running

    # -- opening rules ---------------------------------------------------------------------------
    def choose(self, color: Color, choice: str) -> None:
        """``color``'s seat answers the opening's question: ``"black"`` or
        ``"white"``, or in swap2 ``"place"`` (two more stones).  Taking the
        other seat's colour swaps the seats (and their clocks).  Raises
        :class:`MatchError` (``no_choice_pending``, ``not_your_choice``,
        ``bad_choice``) and changes nothing when refused."""
        self._require_live()
        phase = self.opening
        if phase is None or phase.stage != "choose":
            raise MatchError("no_choice_pending", "there is no opening choice to make now")
        if color is not phase.actor:
            raise MatchError("not_your_choice", f"{phase.actor.label} makes this choice, not {color.label}")
        try:
            swapped = phase.choose(choice)
        except OpeningError as exc:
            raise MatchError(exc.code, str(exc)) from None
        picked = phase.choices[-1][1]
        self._movers.add(color)
        if self.clock is not None:
            self.clock.stop()
        if not phase.done:
            self._emit("opening_choice_made", color=color.label, choice=picked)
        else:
            if swapped:
                self.seats = {BLACK: self.seats[WHITE], WHITE: self.seats[BLACK]}
                self._movers = {c.other for c in self._movers}  # each seat's first move went with it
                if self.clock is not None:
                    self.clock.remaining.reverse()  # each seat keeps its own time
            seats = {c.label: s.kind for c, s in self.seats.items()}
            self._emit("colors_chosen", color=color.label, choice=picked, swapped=swapped, seats=seats)
        if self.actor is not None:
            self._run_clock(self.actor)
        self._emit("turn_changed", **self._turn_data(), passing=False)

    def _after_move(self) -> None:
        """Emit ``turn_changed`` (and forced passes), or ``game_ended``."""
        while True:
            outcome = self.outcome()
            if outcome is not None:
                if self.clock is not None:
                    self.clock.stop()
                self._emit("game_ended", **self._end_data(outcome))
                return
            legal = self.board.legal_moves
            if self.auto_pass and len(legal) == 1 and legal[0].is_pass:
                color = self.board.turn
                self._emit("turn_changed", **self._turn_data(), passing=True)
                self.board.push(PASS)
                self._charge(color)
                self._emit("move_played", color=color.label, move="pass", ply=len(self.board.move_stack), flips=[])
                continue
            self._emit("turn_changed", **self._turn_data(legal), passing=False)
            return

    # -- computer seats --------------------------------------------------------------------------
    def player_for(self, color: Color) -> Player:
        return self.seats[color].player(self.game)

    def think(self, limit: Limit | None = None) -> Move:
        """Let the computer seat to move choose and play (synchronously)."""
        self._require_live()
        actor = self.actor  # during an opening, the placing seat
        color = self.board.turn if actor is None else actor
        player = self.player_for(color)
        if self.clock is not None and self.clock.settings.per_move is None and hasattr(player, "clock"):
            # an engine that manages its own time sees its clock: (seconds left, increment)
            player.clock = (self.clock.left(color), self.clock.settings.increment)
        mv = player.choose(self.board.copy(), limit)
        return self.play(color, mv)

    # -- undo / redo (local games) --------------------------------------------------------------------
    def _plies_to_undo(self) -> int:
        """Undo back to a human's turn: past computer moves and forced passes."""
        stack = self.board.move_stack
        n = 0
        while n < len(stack):
            n += 1
            mover = self._mover_of(len(stack) - n)
            if self.seats[mover].is_human and not stack[len(stack) - n].is_pass:
                break
        return n

    def _mover_of(self, ply: int) -> Color:
        """Colour that played ply ``ply`` (0-based) of the board's stack."""
        b = self.board.copy()
        while len(b.move_stack) > ply:
            b.pop()
        return b.turn

    def undo(self) -> list[Move]:
        """Take back the last human move (and the computer replies after it)."""
        if not self.local:
            raise MatchError("not_allowed", "undo is for local games; offer a takeback instead")
        if not self.started:
            self.start()
        if not self.board.move_stack:
            raise MatchError("nothing_to_undo", "there is no move to undo")
        if not any(s.is_human for s in self.seats.values()):
            raise MatchError("not_allowed", "no human seat to undo for")
        plies = self._plies_to_undo()
        self._guard_opening(plies)
        return self._take_back(plies, keep_redo=True)

    def _guard_opening(self, plies: int) -> None:
        """Refuse to take back into an opening: its stones and choices stand."""
        if self.opening is None:
            return
        if not self.opening.done or len(self.board.move_stack) - plies < self.opening.stones_placed:
            raise MatchError("not_allowed", "the opening stones and the colour choice cannot be taken back")

    def _take_back(self, plies: int, keep_redo: bool) -> list[Move]:
        undone: list[Move] = []
        self._result = None
        for _ in range(plies):
            m = self.board.pop()
            undone.append(m)
            self._emit("move_undone", move=str(m), ply=len(self.board.move_stack) + 1)
        if keep_redo:
            self._redo.extend(undone)
        else:
            self._redo.clear()
        self.takeback_from = None
        self.draw_from = None
        if self.clock is not None:
            self.clock.stop()
            self._run_clock(self.board.turn)
        self._emit("turn_changed", **self._turn_data(), passing=False)
        return undone

    def redo(self) -> list[Move]:
        """Replay moves taken back by :meth:`undo` up to the next human turn."""
        if not self.local:
            raise MatchError("not_allowed", "redo is for local games")
        if not self._redo:
            raise MatchError("nothing_to_redo", "there is no move to redo")
        replayed: list[Move] = []
        saved = self._redo
        self._redo = []
        try:
            while saved:
                self._drop_replayed_passes(saved)
                if not saved:
                    break
                m = saved.pop()
                try:
                    self.play(self.board.turn, m)
                except MatchError:
                    saved.append(m)  # a refused move stays redoable with the rest
                    raise
                replayed.append(m)
                if self.seats[self.board.turn].is_human or self.is_over():
                    break
            self._drop_replayed_passes(saved)
        finally:
            self._redo = saved
        return replayed

    def _drop_replayed_passes(self, saved: list[Move]) -> None:
        """A forced pass on the redo line that the move before it already brought back
        (``auto_pass``): the side to move now has placements, so the pass is not played."""
        while saved and saved[-1].is_pass and not (self.board.legal_moves == [PASS] and not self.is_over()):
            saved.pop()

    # -- takebacks (online) ---------------------------------------------------------------------------
    def request_takeback(self, color: Color) -> None:
        """``color`` asks to take back its last move; the other side answers."""
        self._require_live()
        stack = self.board.move_stack
        if not any(self._mover_of(i) is color and not stack[i].is_pass for i in range(len(stack))):
            raise MatchError("nothing_to_undo", f"{color.label} has no move to take back")
        if self.opening is not None:  # the answer takes back to color's last move: not into the opening
            last = max(i for i in range(len(stack)) if self._mover_of(i) is color and not stack[i].is_pass)
            self._guard_opening(len(stack) - last)
        self.takeback_from = color
        self._emit("takeback_requested", color=color.label)

    def answer_takeback(self, color: Color, accept: bool) -> None:
        if self.takeback_from is None or self.takeback_from is color:
            raise MatchError("no_request", "there is no takeback request to answer")
        asker = self.takeback_from
        self.takeback_from = None
        self._emit("takeback_answered", color=color.label, accept=accept)
        if not accept:
            return
        # undo back to (and including) the asker's last real move
        stack = self.board.move_stack
        n = 0
        while n < len(stack):
            n += 1
            idx = len(stack) - n
            if self._mover_of(idx) is asker and not stack[idx].is_pass:
                break
        self._take_back(n, keep_redo=False)

    # -- draws, resignation, time ---------------------------------------------------------------------
    def offer_draw(self, color: Color) -> None:
        self._require_live()
        if self.draw_from is not None and self.draw_from is not color:
            self.answer_draw(color, True)
            return
        self.draw_from = color
        self._emit("draw_offered", color=color.label)

    def answer_draw(self, color: Color, accept: bool) -> None:
        if self.draw_from is None or self.draw_from is color:
            raise MatchError("no_request", "there is no draw offer to answer")
        self.draw_from = None
        self._emit("draw_answered", color=color.label, accept=accept)
        if accept:
            self._finish(Outcome(None, "agreement", (0, 0)))

    def resign(self, color: Color) -> None:
        self._require_live()
        winner = color.other
        self._finish(Outcome(winner, "resign", (1, 0) if winner is BLACK else (0, 1)))

    def abort(self, color: Color, *, abandoned: bool = False) -> None:
        """``color`` calls the game off: it ends with no result (reason ``"aborted"``).  Either side
        may while one side has not moved yet; after that only when the other player has
        ``abandoned`` the game (the caller has seen them away long enough).  Raises
        :class:`MatchError` (``not_allowed``, ``game_over``) and changes nothing when refused."""
        self._require_live()
        if not abandoned and self.has_moved(BLACK) and self.has_moved(WHITE):
            raise MatchError("not_allowed", "both sides have moved: the game can no longer be aborted")
        self._finish(Outcome(None, "aborted", (0, 0)))

    def claim_win(self, color: Color) -> None:
        """``color`` wins because the other player abandoned the game (reason ``"abandoned"``;
        the caller has seen them away long enough).  Only once both sides have moved: before
        that the game can only be aborted.  Raises :class:`MatchError` and changes nothing when refused."""
        self._require_live()
        if not (self.has_moved(BLACK) and self.has_moved(WHITE)):
            raise MatchError("not_allowed", "a side has not moved yet: abort the game instead of claiming it")
        self._finish(Outcome(color, "abandoned", (1, 0) if color is BLACK else (0, 1)))

    def check_time(self) -> bool:
        """End the game if the side to move has run out of time; True if it did."""
        if self.clock is None or self.is_over():
            return False
        flagged = self.clock.flagged()
        if flagged is None:
            return False
        self.clock.remaining[flagged] = 0.0
        winner = flagged.other
        self._finish(Outcome(winner, "time", (1, 0) if winner is BLACK else (0, 1)))
        return True

    def _finish(self, outcome: Outcome) -> None:
        self._result = outcome
        self.takeback_from = None
        self.draw_from = None
        if self.clock is not None:
            self.clock.stop()
        self._emit("game_ended", **self._end_data(outcome))

    def _end_data(self, outcome: Outcome) -> dict[str, Any]:
        """``game_ended``'s data: the outcome, and the clocks as they stopped (a flag fall's
        loser at 0), so a page shows the time left at the end rather than at the last turn."""
        data: dict[str, Any] = {"outcome": outcome.to_dict(), "result": outcome.result()}
        if self.clock is not None:
            data["clocks"] = self.clock.snapshot()
        return data

    # -- rematch -------------------------------------------------------------------------------------------
    def rematch(self, board: BaseBoard) -> Match:
        """A new match on ``board`` (a fresh board of the same variant) with colours swapped."""
        swapped = {BLACK: self.seats[WHITE].kind, WHITE: self.seats[BLACK].kind}
        settings = self.clock.settings if self.clock is not None else None
        now = self.clock.now if self.clock is not None else time.monotonic
        opening = None if self.opening is None else self.opening.rule
        return Match(board, swapped, clock=settings, local=self.local, auto_pass=self.auto_pass, now=now, opening=opening,
                     computer_chooses=self.computer_chooses)

    def state(self) -> dict[str, Any]:
        """A JSON-ready snapshot (the server's room state builds on it)."""
        outcome = self.outcome()
        turn, actor, running = self.turn, self.actor, self.clock_running  # each asked once
        return {
            "game": self.game,
            "variant": self.board.variant(),
            "position": self.board.to_text(),
            "moves": [str(m) for m in self.board.move_stack],
            "turn": None if turn is None else turn.label,
            "legal": [] if turn is None else [m.name or str(m) for m in self.board.legal_moves],
            "outcome": None if outcome is None else outcome.to_dict(),
            "version": self.version,
            "seats": {c.label: s.kind for c, s in self.seats.items()},
            "clocks": None if self.clock is None else self.clock.snapshot(),
            "clock_running": None if running is None else running.label,
            "moved": {c.label: c in self._movers for c in (BLACK, WHITE)},
            "takeback_from": None if self.takeback_from is None else self.takeback_from.label,
            "draw_from": None if self.draw_from is None else self.draw_from.label,
            "opening": None if self.opening is None else self.opening.to_dict(),
            "actor": None if actor is None else actor.label,
        }
