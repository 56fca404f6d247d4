"""m,n,k games: k in a row on an m-wide, n-high board (Tic-tac-toe, Gomoku, Renju).

The shared machinery lives in :class:`Board`; each rule set is a short
subclass that overrides a few named hooks, python-chess style:

- :meth:`Board._wins_with` — does a line of this length win for this colour?
- :meth:`Board.forbidden` — is this point forbidden for the side to move?

Gomoku's rules (:data:`RULES`, built by :func:`gomoku`): ``freestyle``
(:class:`GomokuBoard`, five or more wins), ``standard`` (exactly five),
``caro`` (a five not blocked at both ends by the opponent, or six or more) and ``renju``
(:class:`RenjuBoard`: Black exactly five and no double-three, double-four or
overline; the judgement lives in :mod:`tabletop.games.renju`).  Opening rules
(swap, swap2) are in :mod:`tabletop.games.openings`.  This module must not
know about turns between people, clocks or any view.

Squares are named in the renju convention: columns ``a..`` left to right,
rows ``1..`` from the bottom, so ``a1`` is the bottom-left corner and ``b2`` the
centre of Tic-tac-toe.

>>> b = tictactoe()
>>> b.push("b2"); b.push("a1")
>>> b.to_text()
'---/-X-/O-- X'
"""

from __future__ import annotations

from tabletop.games import renju
from tabletop.games.core import (
    BLACK,
    BaseBoard,
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    column_letter,
)

__all__ = ["Board", "CaroBoard", "GomokuBoard", "RULES", "RenjuBoard", "StandardGomokuBoard", "gomoku", "tictactoe"]

EMPTY = 0
_MARKS = ("-", BLACK.symbol, BLACK.other.symbol)  # a cell's mark in position texts, by its value
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Board(BaseBoard):
    """A generic m,n,k board: ``k`` or more in a row wins (the freestyle rule).

    ``Board(m, n, k)`` is m columns by n rows.  ``position`` is a position text
    (see :func:`tabletop.games.core.parse_position_text`); it may be any
    arrangement, reachable or not.
    """

    game = "mnk"
    rule = "freestyle"
    edge_blocks = True  # does the edge of the board close a line's end (for ``_wins_with``)?

    def __init__(self, m: int = 3, n: int = 3, k: int = 3, position: str | None = None) -> None:
        if not (isinstance(m, int) and isinstance(n, int) and isinstance(k, int)):
            raise ValueError("m, n and k must be integers")
        if not (1 <= m <= 26 and 1 <= n <= 26):
            raise ValueError(f"board size {m}x{n} is out of range (1..26 on each side)")
        if not 1 <= k <= max(m, n):
            raise ValueError(f"k={k} cannot fit on a {m}x{n} board")
        super().__init__(m, n)
        self.k = k
        # one Move per square, shared by every board of this size (legal moves are not rebuilt each turn)
        self._moves = _move_table(m, n)
        self._by_name = _MOVE_NAMES[(m, n)]
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

    def to_text(self) -> str:
        # the base board's text, read straight from the cells (a new room's state and start use it)
        w = self._width
        marks = "".join([_MARKS[v] for v in self._cells])
        return "/".join([marks[i : i + w] for i in range(0, len(marks), w)]) + " " + self._turn.symbol

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
        if self._outcomes[-1] is not None:
            return []
        return [m for m, v in zip(self._moves, self._cells) if v == EMPTY]

    def parse_move(self, text: str) -> Move:
        # a square's own name (as clients send it) is found at once; anything else is read in full
        move = self._by_name.get(text)
        return move if move is not None else super().parse_move(text)

    def _coerce(self, move: Move | str) -> Move:
        if isinstance(move, Move) and 0 <= move.col < self._width and 0 <= move.row < self._height:
            return self._moves[move.row * self._width + move.col]
        return super()._coerce(move)

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
        blocked (by the other colour, or by the edge where :attr:`edge_blocks`)."""
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
            if 0 <= c < w and 0 <= r < h:
                if cells[r * w + c] != EMPTY:
                    blocked += 1
            elif self.edge_blocks:
                blocked += 1
        return run, blocked

    def _outcome_after(self, move: Move, color: Color) -> Outcome | None:
        """The outcome once ``color`` has played ``move``: each line through it is
        counted in place, and its cells are listed only for a winning line."""
        w, h = self._width, self._height
        cells = self._cells
        v = color + 1
        col0, row0 = move.col, move.row
        for dc, dr in _DIRECTIONS:
            length = 1
            blocked = 0
            for sign in (1, -1):
                sc, sr = sign * dc, sign * dr
                c, r = col0 + sc, row0 + sr
                while 0 <= c < w and 0 <= r < h and cells[r * w + c] == v:
                    length += 1
                    c += sc
                    r += sr
                if 0 <= c < w and 0 <= r < h:
                    if cells[r * w + c] != EMPTY:
                        blocked += 1
                elif self.edge_blocks:
                    blocked += 1
            if length >= self.k and self._wins_with(length, color, blocked):
                run, _ = self.line_through(col0, row0, dc, dr)
                line = tuple(self._moves[i] for i in run)
                return Outcome(color, "line", (1, 0) if color is BLACK else (0, 1), cells=line)
        if self._count == len(cells):
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
                    cells = tuple(self._moves[i] for i in run)
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


_MOVE_TABLES: dict[tuple[int, int], list[Move]] = {}
_MOVE_NAMES: dict[tuple[int, int], dict[str, Move]] = {}  # the same Moves by name


def _move_table(width: int, height: int) -> list[Move]:
    """Every square's Move for a ``width`` x ``height`` board, row-major from the top."""
    table = _MOVE_TABLES.get((width, height))
    if table is None:
        table = [Move(i % width, i // width, f"{column_letter(i % width)}{height - i // width}") for i in range(width * height)]
        _MOVE_TABLES[(width, height)] = table
        _MOVE_NAMES[(width, height)] = {m.name: m for m in table}
    return table


class StandardGomokuBoard(GomokuBoard):
    """Gomoku, standard: exactly five wins; six or more does not."""

    rule = "standard"

    def _wins_with(self, length: int, color: Color, ends_blocked: int) -> bool:
        return length == 5


class CaroBoard(GomokuBoard):
    """Caro, the Gomocup caro rule (``INFO rule 8``): a five wins only when it is
    not blocked at both ends by the opponent's stones; six or more wins always.

    The edge of the board blocks nothing, and a line of six or more holds a
    five with one of its own stones at an end, so it is never dead.  This is
    what Gomocup engines play under rule 8 (AlphaGomoku calls it CARO6; its
    CARO5, rule 9, would also refuse overlines).
    """

    rule = "caro"
    edge_blocks = False

    def _wins_with(self, length: int, color: Color, ends_blocked: int) -> bool:
        return length >= 6 or (length == 5 and ends_blocked < 2)


class RenjuBoard(GomokuBoard):
    """Renju: Black wins only with exactly five and may not play a
    double-three, a double-four or an overline (unless the same move makes a
    five); White wins with five or more.

    By default forbidden points are not legal moves for Black.  With
    ``forbidden_loses=True`` they are legal and lose at once, as a tournament
    referee scores them (outcome reason ``"forbidden"``, White wins, and
    ``cells`` holds the foul point).

    The judgement itself lives in :mod:`tabletop.games.renju`; this class
    keeps the padded grid it works on in step with the board.

    >>> b = gomoku(rule="renju", position="/".join(["-" * 15] * 15) + " X")
    >>> b.forbidden("h8") is None
    True
    """

    rule = "renju"

    def __init__(
        self,
        width: int = 15,
        height: int | None = None,
        position: str | None = None,
        forbidden_loses: bool = False,
    ) -> None:
        h = width if height is None else height
        self.forbidden_loses = bool(forbidden_loses)
        self._grid = renju.new_grid(width, h)
        self._dirs = renju.directions(width)
        self._blacks: list[int] = []  # padded indices of Black's stones, in play order
        self._forbidden_cache: dict[int, str] | None = None
        super().__init__(width, h, position=position)

    def variant(self) -> dict[str, object]:
        v = super().variant()
        if self.forbidden_loses:
            v["forbidden_loses"] = True
        return v

    def _wins_with(self, length: int, color: Color, ends_blocked: int) -> bool:
        return length == 5 if color is BLACK else length >= 5

    # -- forbidden points ---------------------------------------------------------
    def _padded(self, col: int, row: int) -> int:
        return (row + 1) * (self._width + 1) + col

    def _forbidden_map(self) -> dict[int, str]:
        """Padded index -> kind for the whole board, cached until the position changes."""
        if self._forbidden_cache is None:
            self._forbidden_cache = renju.forbidden_points(self._grid, self._blacks, self._dirs)
        return self._forbidden_cache

    def forbidden(self, point: Move | str) -> str | None:
        """``None`` or the kind of foul (``"double-three"``, ``"double-four"``,
        ``"overline"``) a Black stone on ``point`` would be now.  Occupied
        points are never forbidden.  The answer is for Black whoever is to move."""
        m = self._coerce(point)
        if m.is_pass:
            raise IllegalMoveError("pass: there is no passing in this game")
        p = self._padded(m.col, m.row)
        if self._forbidden_cache is not None:
            return self._forbidden_cache.get(p)
        return renju.forbidden_kind(self._grid, p, self._dirs)

    def forbidden_points(self) -> list[Move]:
        """Every empty point forbidden for Black now, top row first."""
        stride = self._width + 1
        points = []
        for p in sorted(self._forbidden_map()):
            row, col = divmod(p, stride)
            points.append(self.move_at(col, row - 1))
        return points

    def outcome(self) -> Outcome | None:
        """As for every board, and a draw when Black is to move and every empty
        point is forbidden (Black has no legal move; Renju has no pass here)."""
        out = self._outcomes[-1]
        if out is not None or self._turn is not BLACK or self.forbidden_loses:
            return out
        if len(self._forbidden_map()) < len(self._cells) - self._count:
            return None
        return Outcome(None, "draw", (0, 0))

    # -- moves --------------------------------------------------------------------
    @property
    def legal_moves(self) -> list[Move]:
        if self.outcome() is not None:
            return []
        moves = super().legal_moves
        if self._turn is BLACK and not self.forbidden_loses and moves:
            fouls = self._forbidden_map()
            if fouls:
                moves = [m for m in moves if self._padded(m.col, m.row) not in fouls]
        return moves

    def _check(self, move: Move) -> None:
        super()._check(move)
        if self._turn is BLACK and not self.forbidden_loses:
            kind = self.forbidden(move)
            if kind is not None:
                raise IllegalMoveError(f"{move}: forbidden for Black ({kind})")

    def _apply(self, move: Move) -> None:
        p = self._padded(move.col, move.row)
        foul = None
        if self._turn is BLACK and self.forbidden_loses:
            foul = self.forbidden(move)
        color = self._turn
        super()._apply(move)
        self._grid[p] = renju.BLACK_STONE if color is BLACK else renju.WHITE_STONE
        if color is BLACK:
            self._blacks.append(p)
        self._forbidden_cache = None
        if foul is not None:
            self._outcomes[-1] = Outcome(Color.WHITE, "forbidden", (0, 1), cells=(move,))

    def _unapply(self, move: Move) -> None:
        super()._unapply(move)
        p = self._padded(move.col, move.row)
        if self._grid[p] == renju.BLACK_STONE:
            self._blacks.pop()  # pops undo pushes, so Black's last stone is this one
        self._grid[p] = renju.EMPTY
        self._forbidden_cache = None

    def _set_position(self, cells: list[list[Color | None]], turn: Color) -> None:
        super()._set_position(cells, turn)
        self._grid = renju.new_grid(self._width, self._height)
        self._blacks = []
        for row, row_cells in enumerate(cells):
            for col, c in enumerate(row_cells):
                if c is not None:
                    p = self._padded(col, row)
                    self._grid[p] = renju.BLACK_STONE if c is BLACK else renju.WHITE_STONE
                    if c is BLACK:
                        self._blacks.append(p)
        self._forbidden_cache = None

    def _repr_svg_(self) -> str:
        """The board as SVG, with Black's forbidden points crossed when Black is to move."""
        from tabletop.games.svg import board_svg

        black_to_move = self._turn is BLACK and not self.is_game_over()
        return board_svg(self, forbidden=self.forbidden_points() if black_to_move else None)

    def copy(self) -> RenjuBoard:
        b = super().copy()
        assert isinstance(b, RenjuBoard)
        b._grid = list(self._grid)
        b._blacks = list(self._blacks)
        return b


RULES: dict[str, type[GomokuBoard]] = {
    "freestyle": GomokuBoard,
    "standard": StandardGomokuBoard,
    "renju": RenjuBoard,
    "caro": CaroBoard,
}


def gomoku(
    size: int | tuple[int, int] = 15,
    rule: str = "freestyle",
    position: str | None = None,
    forbidden_loses: bool = False,
) -> GomokuBoard:
    """A Gomoku board of ``size`` (an int for square, or ``(width, height)``,
    each 5..26) under ``rule`` (``freestyle``, ``standard``, ``renju``, ``caro``).

    ``forbidden_loses`` (renju only) makes Black's forbidden points legal moves
    that lose at once instead of illegal ones.  ``position`` is a position text
    of the right size, any arrangement, reachable or not.

    >>> b = gomoku(size=(9, 7), rule="caro")
    >>> (b.width, b.height, b.rule)
    (9, 7, 'caro')
    """
    try:
        cls = RULES[rule]
    except KeyError:
        raise ValueError(f"unknown gomoku rule {rule!r} (known: {', '.join(sorted(RULES))})") from None
    if isinstance(size, tuple):
        if len(size) != 2:
            raise ValueError(f"gomoku size {size!r} must be one number or (width, height)")
        width, height = size
    else:
        width, height = size, size
    if not (isinstance(width, int) and isinstance(height, int)) or isinstance(width, bool) or isinstance(height, bool):
        raise ValueError(f"gomoku size {size!r} must be whole numbers")
    if cls is RenjuBoard:
        return RenjuBoard(width, height, position=position, forbidden_loses=forbidden_loses)
    if forbidden_loses:
        raise ValueError(f"forbidden_loses applies to the renju rule only, not {rule!r}")
    return cls(width, height, position=position)
