"""One game between two seats as numbered actions and observation planes, over the rules library.

:class:`SeatGame` is what the PettingZoo and Gymnasium environments share: it keeps a board of
:mod:`tabletop.games` (and, for Gomoku's ``swap``/``swap2`` openings, an
:class:`~tabletop.games.openings.OpeningPhase`), says which seat acts, which action ids are legal,
plays one, and draws the observation planes for a seat.  It never re-implements a rule.

Seats: seat 0 starts as Black (the *opener* of an opening rule), seat 1 as White; an opening choice
may swap their colours.  Action ids:

- ``0 .. width*height-1``: the squares in ``to_text()`` order (rows from the top, left to right);
- Reversi: ``width*height`` is the pass (legal only when it is the only move);
- Gomoku with ``opening="swap"`` or ``"swap2"``: ``width*height + 0/1/2`` are the opening choices
  ``"black"``, ``"white"`` and (swap2 only) ``"place"``, legal only while that choice is asked for.

Observation planes (``int8``, ``(height, width, planes)``), from the seat's side, named by
:attr:`SeatGame.plane_names`: ``own`` and ``opponent`` stones always; ``black`` (ones when the seat
plays Black) where colours differ (renju, openings); ``forbidden`` (Black's forbidden points) under
renju; ``opening`` (ones while the opening is under way) with an opening rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.games import new_board
from tabletop.games.core import BLACK, PASS, WHITE, BaseBoard, Color, IllegalMoveError, Move
from tabletop.games.mnk import RenjuBoard
from tabletop.games.openings import OPENING_RULES, OpeningError, OpeningPhase

__all__ = ["CHOICES", "SeatGame"]

CHOICES = ("black", "white", "place")  # the opening choices, in action-id order after the squares


class SeatGame:
    """A game of ``game`` (``"reversi"``, ``"gomoku"``, ``"tictactoe"``) with its variant
    ``options`` (``size``, ``rule``, ``forbidden_loses``, and ``opening`` for Gomoku).

    Bad options raise ``ValueError`` naming them, as :func:`tabletop.games.new_board` does.
    """

    def __init__(self, game: str, **options: Any) -> None:
        opts = dict(options)
        opening = opts.pop("opening", None)
        if opening is not None and game != "gomoku":
            raise ValueError(f"opening rules are for gomoku, not {game}")
        if opening is not None and opening not in OPENING_RULES:
            raise ValueError(f"unknown opening rule {opening!r} (known: {', '.join(OPENING_RULES)})")
        self.game = game
        self.options = dict(options)
        self._board_options = opts
        self.opening_rule: str | None = opening
        self.board: BaseBoard = new_board(game, opts)
        self.width, self.height = self.board.width, self.board.height
        self.squares = self.width * self.height
        self.renju = isinstance(self.board, RenjuBoard)
        self.n_actions = self.squares
        if game == "reversi":
            self.n_actions += 1
        if opening is not None:
            self.n_actions += len(CHOICES)
        names = ["own", "opponent"]
        if self.renju or opening is not None:
            names.append("black")
        if self.renju:
            names.append("forbidden")
        if opening is not None:
            names.append("opening")
        self.plane_names: tuple[str, ...] = tuple(names)
        self.phase: OpeningPhase | None = None
        self.colors: list[Color] = [BLACK, WHITE]
        self.reset()

    # -- state ----------------------------------------------------------------------------------------
    def reset(self) -> None:
        self.board = new_board(self.game, self._board_options)
        self.phase = OpeningPhase(self.opening_rule) if self.opening_rule is not None else None
        self.colors = [BLACK, WHITE]

    @property
    def in_opening(self) -> bool:
        return self.phase is not None and not self.phase.done

    def actor(self) -> int:
        """The seat that acts now (the side to move, or the seat the opening asks)."""
        if self.phase is not None and not self.phase.done:
            return int(self.phase.actor)  # seats keep their starting colours until the opening ends
        return self.colors.index(self.board.turn)

    def is_over(self) -> bool:
        return self.board.is_game_over()

    def result(self, seat: int) -> int:
        """+1, 0 or -1 for ``seat`` once the game is over (0 before)."""
        outcome = self.board.outcome()
        if outcome is None or outcome.winner is None:
            return 0
        return 1 if outcome.winner is self.colors[seat] else -1

    def disc_difference(self, seat: int) -> int:
        """Reversi: the seat's discs minus the opponent's (0 in other games)."""
        if self.game != "reversi":
            return 0
        own = other = 0
        for _, _, color in self.board.stones():
            if color is self.colors[seat]:
                own += 1
            else:
                other += 1
        return own - other

    # -- actions --------------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        """``int8`` ones on the action ids the acting seat may play now (all zeros once over)."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if self.is_over():
            return mask
        if self.phase is not None and self.phase.stage == "choose":
            for choice in self.phase.options:
                mask[self.squares + CHOICES.index(choice)] = 1
            return mask
        for move in self.board.legal_moves:
            mask[self.squares if move.is_pass else move.row * self.width + move.col] = 1
        return mask

    def action_name(self, action: int) -> str:
        """The action in words: a square's name, ``pass`` or ``choose black``."""
        if 0 <= action < self.squares:
            return self.board.move_at(action % self.width, action // self.width).name
        if self.game == "reversi" and action == self.squares:
            return "pass"
        if self.opening_rule is not None and 0 <= action - self.squares < len(CHOICES):
            return f"choose {CHOICES[action - self.squares]}"
        return f"action {action}"

    def move_of(self, action: int) -> Move:
        """The board move of a square or pass action id."""
        if self.game == "reversi" and action == self.squares:
            return PASS
        return self.board.move_at(action % self.width, action // self.width)

    def action_of(self, move: Move) -> int:
        """The action id of a board move."""
        return self.squares if move.is_pass else move.row * self.width + move.col

    def play(self, action: Any) -> None:
        """Play ``action`` for the acting seat; an illegal one raises ``ValueError`` naming it and
        changes nothing."""
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action {action!r} is not an action id (0..{self.n_actions - 1})") from None
        if a != action or not 0 <= a < self.n_actions:
            raise ValueError(f"action {action!r} is not an action id (0..{self.n_actions - 1})")
        if self.is_over():
            raise ValueError(f"illegal action {a} ({self.action_name(a)}): the game is over")
        phase = self.phase
        if phase is not None and not phase.done and phase.stage == "choose":
            if a < self.squares:
                raise ValueError(
                    f"illegal action {a} ({self.action_name(a)}): the opening asks for a choice "
                    f"({', '.join(phase.options)})"
                )
            try:
                swapped = phase.choose(CHOICES[a - self.squares])
            except OpeningError as exc:
                raise ValueError(f"illegal action {a} ({self.action_name(a)}): {exc}") from None
            if swapped:
                self.colors.reverse()
            return
        if a >= self.squares + (1 if self.game == "reversi" else 0):
            raise ValueError(f"illegal action {a} ({self.action_name(a)}): no choice is asked for now")
        try:
            self.board.push(self.move_of(a))
        except IllegalMoveError as exc:
            raise ValueError(f"illegal action {a}: {exc}") from None
        if phase is not None and not phase.done:
            phase.stone_placed()

    # -- observation ----------------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """The planes of :attr:`plane_names` from ``seat``'s side, ``int8`` (height, width, planes)."""
        planes = np.zeros((self.height, self.width, len(self.plane_names)), dtype=np.int8)
        own = self.colors[seat]
        for col, row, color in self.board.stones():
            planes[row, col, 0 if color is own else 1] = 1
        index = 2
        if "black" in self.plane_names:
            planes[:, :, index] = 1 if own is BLACK else 0
            index += 1
        if self.renju:
            assert isinstance(self.board, RenjuBoard)
            for move in self.board.forbidden_points():
                planes[move.row, move.col, index] = 1
            index += 1
        if self.opening_rule is not None:
            planes[:, :, index] = 1 if self.in_opening else 0
        return planes

    def text(self) -> str:
        """The board as rows of ``X``/``O``/``-`` and a line saying who acts."""
        lines = str(self.board).splitlines()
        if self.is_over():
            outcome = self.board.outcome()
            assert outcome is not None
            lines.append(f"game over: {outcome.result()} ({outcome.reason})")
        elif self.phase is not None and self.phase.stage == "choose":
            lines.append(f"seat {self.actor()} chooses: {', '.join(self.phase.options)}")
        else:
            lines.append(f"seat {self.actor()} places {self.board.turn.label}")
        return "\n".join(lines)
