"""m,n,k games: k in a row on an m-wide, n-high board (Tic-tac-toe, Gomoku, Renju).

The shared machinery lives in :class:`Board`; each rule set is a short
subclass that overrides a few named hooks, python-chess style:

- :meth:`Board._wins_with` — does a line of this length win for this colour?
- :meth:`Board.forbidden` — is this point forbidden for the side to move?

Squares are named in the renju convention: columns ``a..`` left to right,
rows ``1..`` from the bottom, so ``a1`` is the bottom-left corner and ``b2`` the
centre of Tic-tac-toe.

>>> b = tictactoe()
>>> b.push("b2"); b.push("a1")
>>> b.to_text()
'---/-X-/O-- X'
"""

from __future__ import annotations

from tabletop.games.core import (
    BLACK,
    BaseBoard,
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    column_letter,
)

__all__ = ["Board", "tictactoe", "gomoku", "RULES"]

EMPTY = 0
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Board(BaseBoard):
    """A generic m,n,k board: ``k`` or more in a row wins (the freestyle rule).

    ``Board(m, n, k)`` is m columns by n rows.  ``position`` is a position text
    (see :func:`tabletop.games.core.parse_position_text`); it may be any
    arrangement, reachable or not.
    """

    game = "mnk"
    rule = "freestyle"

    def __init__(self, m: int = 3, n: int = 3, k: int = 3, position: str | None = None) -> None:
        if not (isinstance(m, int) and isinstance(n, int) and isinstance(k, int)):
            raise ValueError("m, n and k must be integers")
        if not (1 <= m <= 26 and 1 <= n <= 26):
            raise ValueError(f"board size {m}x{n} is out of range (1..26 on each side)")
        if not 1 <= k <= max(m, n):
            raise ValueError(f"k={k} cannot fit on a {m}x{n} board")
        super().__init__(m, n)
        self.k = k
        self._cells = [EMPTY] * (m * n)
        self._count = 0
        # outcome after each pushed move, so pop restores it without a rescan
        self._outcomes: list[Outcome | None] = [None]
        if position is not None:
            self._read_position(position)

    # -- geometry -------------------------------------------------------------
    def _move_name(self, col: int, row: int) -> str:
        return f"{column_letter(col)}{self._height - row}"

    def _square_from_name(self, letter: int, number: int) -> tuple[int, int]:
        return letter, self._height - number

    def variant(self) -> dict[str, object]:
        return {"width": self._width, "height": self._height, "k": self.k, "rule": self.rule}

    def piece_at(self, col: int, row: int) -> Color | None:
        v = self._cells[row * self._width + col]
        return None if v == EMPTY else Color(v - 1)

    # -- rules hooks ------------------------------------------------------------
    def _wins_with(self, length: int, color: Color, ends_blocked: int) -> bool:
        """Does an unbroken line of ``length`` stones of ``color`` win?
        ``ends_blocked`` (0..2) counts the ends closed by the opponent or the edge."""
        return length >= self.k

    def forbidden(self, point: Move | str) -> str | None:
        """The kind of foul a Black stone on ``point`` would be, or ``None``.
        Only Renju has forbidden points."""
        self._coerce(point)
        return None

    def forbidden_points(self) -> list[Move]:
        """Every empty point that is forbidden for Black now."""
        return []

    # -- moves --------------------------------------------------------------------
    @property
    def legal_moves(self) -> list[Move]:
        if self.is_game_over():
            return []
        w = self._width
        cells = self._cells
        return [Move(i % w, i // w, self._move_name(i % w, i // w)) for i in range(len(cells)) if cells[i] == EMPTY]

    def _check(self, move: Move) -> None:
        if move.is_pass:
            raise IllegalMoveError("pass: there is no passing in this game")
        if self._cells[move.row * self._width + move.col] != EMPTY:
            raise IllegalMoveError(f"{move}: the point is occupied")

    def _apply(self, move: Move) -> None:
        idx = move.row * self._width + move.col
        color = self._turn
        self._cells[idx] = color + 1
        self._count += 1
        self._turn = color.other
        self._outcomes.append(self._outcome_after(move, color))

    def _unapply(self, move: Move) -> None:
        self._cells[move.row * self._width + move.col] = EMPTY
        self._count -= 1
        self._turn = self._turn.other
        self._outcomes.pop()

    def outcome(self) -> Outcome | None:
        return self._outcomes[-1]

    def line_through(self, col: int, row: int, dc: int, dr: int) -> tuple[list[int], int]:
        """The unbroken run of same-coloured stones through (col, row) along
        (dc, dr): its square indices in order, and how many of its two ends are
        blocked (by the edge or the other colour)."""
        w, h = self._width, self._height
        cells = self._cells
        v = cells[row * w + col]
        run = [row * w + col]
        blocked = 0
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < w and 0 <= r < h and cells[r * w + c] == v:
                if sign == 1:
                    run.append(r * w + c)
                else:
                    run.insert(0, r * w + c)
                c += sign * dc
                r += sign * dr
            if not (0 <= c < w and 0 <= r < h) or cells[r * w + c] != EMPTY:
                blocked += 1
        return run, blocked

    def _outcome_after(self, move: Move, color: Color) -> Outcome | None:
        w = self._width
        for dc, dr in _DIRECTIONS:
            run, blocked = self.line_through(move.col, move.row, dc, dr)
            if len(run) >= self.k and self._wins_with(len(run), color, blocked):
                cells = tuple(Move(i % w, i // w, self._move_name(i % w, i // w)) for i in run)
                score = (1, 0) if color is BLACK else (0, 1)
                return Outcome(color, "line", score, cells=cells)
        if self._count == len(self._cells):
            return Outcome(None, "draw", (0, 0))
        return None

    def _set_position(self, cells: list[list[Color | None]], turn: Color) -> None:
        flat: list[int] = []
        for row in cells:
            flat.extend(EMPTY if c is None else c + 1 for c in row)
        self._cells = flat
        self._count = sum(1 for v in flat if v != EMPTY)
        self._turn = turn
        self._outcomes = [self._scan_outcome()]

    def _scan_outcome(self) -> Outcome | None:
        """The outcome of a set-up position: a winning line anywhere, or a full board."""
        w, h = self._width, self._height
        for idx, v in enumerate(self._cells):
            if v == EMPTY:
                continue
            color = Color(v - 1)
            col, row = idx % w, idx // w
            for dc, dr in _DIRECTIONS:
                pc, pr = col - dc, row - dr
                if 0 <= pc < w and 0 <= pr < h and self._cells[pr * w + pc] == v:
                    continue  # not the start of the run
                run, blocked = self.line_through(col, row, dc, dr)
                if len(run) >= self.k and self._wins_with(len(run), color, blocked):
                    cells = tuple(Move(i % w, i // w, self._move_name(i % w, i // w)) for i in run)
                    return Outcome(color, "line", (1, 0) if color is BLACK else (0, 1), cells=cells)
        if self._count == len(self._cells):
            return Outcome(None, "draw", (0, 0))
        return None

    def copy(self) -> Board:  # faster than deepcopy, used by search
        b = object.__new__(type(self))
        b.__dict__.update(self.__dict__)
        b._cells = list(self._cells)
        b._stack = list(self._stack)
        b._outcomes = list(self._outcomes)
        return b


class TicTacToe(Board):
    """Tic-tac-toe: 3x3, three in a row."""

    game = "tictactoe"

    def __init__(self, position: str | None = None) -> None:
        super().__init__(3, 3, 3, position=position)

    def variant(self) -> dict[str, object]:
        return {}


def tictactoe(position: str | None = None) -> TicTacToe:
    """The 3x3 board with k=3."""
    return TicTacToe(position=position)


class GomokuBoard(Board):
    """Gomoku, freestyle: five or more in a row wins."""

    game = "gomoku"
    rule = "freestyle"

    def __init__(self, width: int = 15, height: int | None = None, position: str | None = None) -> None:
        h = width if height is None else height
        if not (5 <= width <= 26 and 5 <= h <= 26):
            raise ValueError(f"gomoku board size {width}x{h} is out of range (5..26)")
        super().__init__(width, h, 5, position=position)

    def variant(self) -> dict[str, object]:
        return {"width": self._width, "height": self._height, "rule": self.rule}


class StandardGomokuBoard(GomokuBoard):
    """Gomoku, standard: exactly five wins; six or more does not."""

    rule = "standard"

    def _wins_with(self, length: int, color: Color, ends_blocked: int) -> bool:
        return length == 5


RULES: dict[str, type[GomokuBoard]] = {
    "freestyle": GomokuBoard,
    "standard": StandardGomokuBoard,
}


def gomoku(size: int | tuple[int, int] = 15, rule: str = "freestyle", position: str | None = None) -> GomokuBoard:
    """A Gomoku board of ``size`` (an int for square, or ``(width, height)``) under ``rule``."""
    try:
        cls = RULES[rule]
    except KeyError:
        raise ValueError(f"unknown gomoku rule {rule!r} (known: {', '.join(sorted(RULES))})") from None
    if isinstance(size, tuple):
        return cls(size[0], size[1], position=position)
    return cls(size, position=position)


