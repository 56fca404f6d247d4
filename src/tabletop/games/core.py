"""The game protocol every board follows, in the style of python-chess.

This module holds the value types shared by all games (:class:`Color`,
:class:`Move`, :class:`Outcome`), the error raised for illegal moves, and
:class:`BaseBoard`, the shared machinery of a board: move parsing from text,
the position text, hashing, copying and the SVG picture.  It must stay free of
any game's rules and of any dependency beyond the standard library.

>>> Color.BLACK.other
<Color.WHITE: 1>
>>> str(PASS)
'pass'
"""

from __future__ import annotations

import copy as _copy
import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

__all__ = [
    "BLACK",
    "WHITE",
    "PASS",
    "BaseBoard",
    "Board",
    "Color",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "column_letter",
    "column_index",
]


class Color(enum.IntEnum):
    """A side. Black moves first in every game of tabletop."""

    BLACK = 0
    WHITE = 1

    @property
    def other(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def symbol(self) -> str:
        """The position-text symbol: ``X`` for Black, ``O`` for White."""
        return "X" if self is Color.BLACK else "O"

    @property
    def label(self) -> str:
        """The lower-case name used on the wire and in records: ``black``/``white``."""
        return _LABELS[self]

    @classmethod
    def parse(cls, text: str) -> Color:
        """Read ``X``/``O``/``B``/``W``/``black``/``white`` (any case)."""
        t = text.strip().lower()
        if t in ("x", "b", "black", "*"):
            return cls.BLACK
        if t in ("o", "w", "white"):
            return cls.WHITE
        raise ValueError(f"unknown colour {text!r} (expected X/O, B/W, black or white)")


BLACK = Color.BLACK
WHITE = Color.WHITE
_LABELS = tuple(c.name.lower() for c in Color)  # by value: the server names colours in every frame


class IllegalMoveError(ValueError):
    """A move the rules do not allow; the message says why."""


def column_letter(col: int) -> str:
    """0 -> 'a', 25 -> 'z'."""
    if not 0 <= col < 26:
        raise ValueError(f"column {col} has no letter")
    return chr(ord("a") + col)


def column_index(letter: str) -> int:
    """'a' -> 0 (any case)."""
    c = letter.lower()
    if len(c) != 1 or not "a" <= c <= "z":
        raise ValueError(f"{letter!r} is not a column letter")
    return ord(c) - ord("a")


@dataclass(frozen=True, order=True)
class Move:
    """A placement at (``col``, ``row``), both 0-based, ``row`` counted from the top;
    or the pass (``col == row == -1``).

    ``name`` is the move in its game's notation (``"f5"``, ``"h8"``, ``"pass"``);
    it does not take part in equality, so moves made by any board compare by
    square alone.
    """

    col: int
    row: int
    name: str = field(default="", compare=False, hash=False)

    @property
    def is_pass(self) -> bool:
        return self.col < 0

    def __str__(self) -> str:
        if self.name:
            return self.name
        if self.is_pass:
            return "pass"
        return f"(col {self.col}, row {self.row} from the top)"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


PASS = Move(-1, -1, "pass")


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``winner`` is ``None`` for a draw.  ``reason`` is a short word:
    ``"line"`` (k in a row), ``"discs"`` (Reversi count), ``"draw"``,
    ``"forbidden"`` (Renju foul), ``"resign"``, ``"time"``, ``"agreement"``,
    ``"abandoned"`` (the other player left an online game) and ``"aborted"`` (called off:
    no winner and no result).
    ``score`` is ``(black, white)``: discs for Reversi with empty squares given
    to the winner, or ``(1, 0)``/``(0, 1)``/``(0, 0)`` for line games.
    ``discs`` is the raw disc count (Reversi only) and ``cells`` the winning
    line (line games only).
    """

    winner: Color | None
    reason: str
    score: tuple[int, int] = (0, 0)
    discs: tuple[int, int] | None = None
    cells: tuple[Move, ...] = ()

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2`` from Black's side."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is BLACK else "0-1"

    def to_dict(self) -> dict[str, object]:
        return {
            "winner": None if self.winner is None else self.winner.label,
            "reason": self.reason,
            "score": list(self.score),
            "discs": None if self.discs is None else list(self.discs),
            "cells": [str(c) for c in self.cells],
        }


@runtime_checkable
class Board(Protocol):
    """What every game's board offers (see ``docs/DESIGN.md``)."""

    game: str

    @property
    def turn(self) -> Color: ...
    @property
    def legal_moves(self) -> list[Move]: ...
    @property
    def move_stack(self) -> list[Move]: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    def push(self, move: Move | str) -> None: ...
    def pop(self) -> Move: ...
    def is_game_over(self) -> bool: ...
    def outcome(self) -> Outcome | None: ...
    def copy(self) -> Board: ...
    def parse_move(self, text: str) -> Move: ...
    def to_text(self) -> str: ...
    def piece_at(self, col: int, row: int) -> Color | None: ...
    def is_legal(self, move: Move | str) -> bool: ...
    def _repr_svg_(self) -> str: ...


_B = TypeVar("_B", bound="BaseBoard")


class BaseBoard:
    """Shared machinery for rectangular boards.

    Subclasses keep the position however they like and implement
    :meth:`piece_at`, :meth:`legal_moves`, :meth:`_apply`, :meth:`_unapply`,
    :meth:`outcome`, :meth:`_move_name`, :meth:`_parse_square` and
    :meth:`_set_position` (from the rows of a position text).
    """

    game: str = "board"

    def __init__(self, width: int, height: int) -> None:
        self._width = width
        self._height = height
        self._turn = BLACK
        self._stack: list[Move] = []

    # -- geometry -----------------------------------------------------------
    @property
    def width(self) -> int:
        return self._width

    @property
    def height(self) -> int:
        return self._height

    @property
    def turn(self) -> Color:
        return self._turn

    @property
    def move_stack(self) -> list[Move]:
        return list(self._stack)

    def squares(self) -> Iterator[tuple[int, int]]:
        for row in range(self._height):
            for col in range(self._width):
                yield col, row

    def on_board(self, col: int, row: int) -> bool:
        return 0 <= col < self._width and 0 <= row < self._height

    def move_at(self, col: int, row: int) -> Move:
        """The move that places on (col, row), named in this game's notation."""
        if not self.on_board(col, row):
            raise IllegalMoveError(f"square ({col}, {row}) is off the {self._width}x{self._height} board")
        return Move(col, row, self._move_name(col, row))

    # -- hooks ---------------------------------------------------------------
    def piece_at(self, col: int, row: int) -> Color | None:
        raise NotImplementedError

    @property
    def legal_moves(self) -> list[Move]:
        raise NotImplementedError

    def outcome(self) -> Outcome | None:
        raise NotImplementedError

    def _move_name(self, col: int, row: int) -> str:
        raise NotImplementedError

    def _square_from_name(self, letter: int, number: int) -> tuple[int, int]:
        """(column index, number as written) -> (col, row from top)."""
        raise NotImplementedError

    def _check(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` naming why ``move`` is illegal now."""
        raise NotImplementedError

    def _apply(self, move: Move) -> None:
        raise NotImplementedError

    def _unapply(self, move: Move) -> None:
        raise NotImplementedError

    def _set_position(self, cells: list[list[Color | None]], turn: Color) -> None:
        raise NotImplementedError

    # -- moves ----------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        """Read a move in this game's notation (any case); raise ``ValueError``
        naming the problem when the text is not a square of this board."""
        t = text.strip().lower()
        if t in ("pass", "pa", "ps", "--", "@@"):
            return PASS
        if len(t) < 2 or not t[0].isalpha() or not t[1:].isdigit():
            raise ValueError(f"cannot read move {text!r}: expected a column letter and a row number, like 'c4'")
        col_letter = column_index(t[0])
        number = int(t[1:])
        col, row = self._square_from_name(col_letter, number)
        if not self.on_board(col, row):
            raise IllegalMoveError(f"{text.strip()} is off the {self._width}x{self._height} board")
        return Move(col, row, self._move_name(col, row))

    def _coerce(self, move: Move | str) -> Move:
        if isinstance(move, str):
            return self.parse_move(move)
        if move.is_pass:
            return PASS
        if not self.on_board(move.col, move.row):
            raise IllegalMoveError(f"{move} is off the {self._width}x{self._height} board")
        return Move(move.col, move.row, self._move_name(move.col, move.row))

    def is_legal(self, move: Move | str) -> bool:
        try:
            m = self._coerce(move)
            if self.is_game_over():
                return False
            self._check(m)
        except ValueError:
            return False
        return True

    def push(self, move: Move | str) -> None:
        """Play ``move`` (a :class:`Move` or its text).  An illegal move raises
        :class:`IllegalMoveError` and leaves the board unchanged."""
        m = self._coerce(move)
        if self.is_game_over():
            raise IllegalMoveError(f"{m}: the game is over")
        self._check(m)
        self._apply(m)
        self._stack.append(m)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        m = self._stack.pop()
        self._unapply(m)
        return m

    def peek(self) -> Move | None:
        return self._stack[-1] if self._stack else None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -- text ----------------------------------------------------------------------
    def to_text(self) -> str:
        """The position text: rows from the top, ``X``/``O``/``-``, joined by ``/``,
        a space, and the side to move."""
        rows = []
        for row in range(self._height):
            rows.append(
                "".join(
                    "-" if (c := self.piece_at(col, row)) is None else c.symbol for col in range(self._width)
                )
            )
        return "/".join(rows) + " " + self._turn.symbol

    def _read_position(self, text: str) -> None:
        """Parse a position text for this board's size and set it up."""
        cells, turn = parse_position_text(text, self._width, self._height)
        self._set_position(cells, turn)
        self._stack = []

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._width, self._height, self.to_text()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseBoard):
            return NotImplemented
        return type(self) is type(other) and self.to_text() == other.to_text() and self.variant() == other.variant()

    def variant(self) -> dict[str, object]:
        """The constructor options that define the variant (size, rule, ...)."""
        return {"width": self._width, "height": self._height}

    def copy(self: _B) -> _B:
        return _copy.deepcopy(self)

    def __str__(self) -> str:
        return "\n".join(self.to_text().split(" ")[0].split("/"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_text()!r})"

    def _repr_svg_(self) -> str:
        from tabletop.games.svg import board_svg

        return board_svg(self)

    def stones(self) -> Iterable[tuple[int, int, Color]]:
        for col, row in self.squares():
            c = self.piece_at(col, row)
            if c is not None:
                yield col, row, c


def parse_position_text(text: str, width: int, height: int) -> tuple[list[list[Color | None]], Color]:
    """Read ``"---/-X-/--- O"`` into rows of cells (top first) and the side to move.

    Raises ``ValueError`` naming what is wrong (row count, row length, symbol).
    """
    parts = text.strip().split()
    if len(parts) != 2:
        raise ValueError(
            f"cannot read position {text!r}: expected the rows joined by '/', a space, and the side to move (X or O)"
        )
    board_part, side = parts
    if side.upper() not in ("X", "O"):
        raise ValueError(f"cannot read position: side to move must be X or O, not {side!r}")
    turn = BLACK if side.upper() == "X" else WHITE
    rows = board_part.split("/")
    if len(rows) != height:
        raise ValueError(f"cannot read position: expected {height} rows, found {len(rows)}")
    cells: list[list[Color | None]] = []
    for r, row_text in enumerate(rows):
        if len(row_text) != width:
            raise ValueError(
                f"cannot read position: row {r + 1} has {len(row_text)} squares, expected {width}"
            )
        row_cells: list[Color | None] = []
        for ch in row_text:
            if ch in "Xx*":
                row_cells.append(BLACK)
            elif ch in "Oo":
                row_cells.append(WHITE)
            elif ch in "-.":
                row_cells.append(None)
            else:
                raise ValueError(f"cannot read position: unknown square symbol {ch!r} in row {r + 1}")
        cells.append(row_cells)
    return cells, turn
