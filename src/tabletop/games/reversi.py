"""Reversi/Othello rules on any even board from 4x4 to 16x16, on Python-int bitboards.

A position is two bitboards (Black's discs, White's discs) and the side to
move.  Bit ``row * size + col`` is a square, with ``a1`` = bit 0 the TOP-left
corner: columns ``a..`` run left to right and rows ``1..`` top to bottom, as
Othello players write them (so ``Move.row`` is the written number minus one).

Moves and flips are found by shifting whole bitboards along the 8 directions
and masking the wrap-around columns, never by visiting squares one by one.
``push`` keeps the flipped discs on an undo stack, so ``pop`` is O(1).

A side with no placement passes: :data:`~tabletop.games.core.PASS` is then its
only legal move.  The game ends when neither side can place; the outcome gives
the raw disc counts (``discs``) and the standard score (``score``: empty
squares go to the winner, split evenly on a draw).

This module is the single source of truth for the Reversi rules; it must stay
free of I/O, of engines and of any dependency beyond the standard library.

>>> board = Board()
>>> [str(m) for m in board.legal_moves]
['d3', 'c4', 'f5', 'e6']
>>> board.push("f5"); board.to_text()
'--------/--------/--------/---OX---/---XXX--/--------/--------/-------- O'
>>> perft(Board(), 3)
56
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop.games.core import (
    BLACK,
    PASS,
    WHITE,
    BaseBoard,
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    column_letter,
)

__all__ = [
    "Board",
    "Geometry",
    "MAX_SIZE",
    "MIN_SIZE",
    "flips_mask",
    "geometry",
    "moves_mask",
    "perft",
    "perft_bitboards",
    "perft_reference",
]

MIN_SIZE = 4
MAX_SIZE = 16


class Geometry:
    """The masks and move tables of one board size, built once and shared.

    ``full`` has every square set; ``inner`` every square but the first and
    last columns (an opponent disc on an edge column cannot sit inside a
    horizontal or diagonal line, and masking it stops rows from wrapping).
    """

    __slots__ = ("size", "full", "inner", "steps", "move_table", "names", "moves_mask", "flips_mask", "perft")

    def __init__(self, size: int) -> None:
        self.size = size
        self.full = (1 << (size * size)) - 1
        row_inner = ((1 << size) - 1) & ~1 & ~(1 << (size - 1))
        inner = 0
        for row in range(size):
            inner |= row_inner << (row * size)
        self.inner = inner
        # Kogge-Stone style fill: two single steps cover chains of 2 opponent
        # discs, each double step adds 2 more, up to the size - 2 a line can hold.
        self.steps = max(0, (size - 4) // 2)
        self.names = [f"{column_letter(sq % size)}{sq // size + 1}" for sq in range(size * size)]
        self.move_table = [Move(sq % size, sq // size, self.names[sq]) for sq in range(size * size)]
        compiled = _compile(self)
        #: ``moves_mask(player, opponent) -> int``: the placements of ``player``.
        self.moves_mask: Callable[[int, int], int] = compiled["moves_mask"]
        #: ``flips_mask(player, opponent, square_bit) -> int``: the discs a placement turns.
        self.flips_mask: Callable[[int, int, int], int] = compiled["flips_mask"]
        #: ``perft(player, opponent, depth) -> int`` (depth >= 1).
        self.perft: Callable[[int, int, int], int] = compiled["perft"]

    def moves_of(self, mask: int) -> list[Move]:
        """The squares set in ``mask`` as moves, lowest square first."""
        table = self.move_table
        out = []
        while mask:
            low = mask & -mask
            mask ^= low
            out.append(table[low.bit_length() - 1])
        return out


# The hot functions are generated per board size with the masks and shifts
# written in as constants and the direction loop unrolled: in CPython that
# halves the time of the readable versions (moves_mask / flips_mask below,
# which the tests hold the generated ones to).  The generated code is the same
# shift-and-mask algorithm, nothing else.


def _movegen_lines(
    geo: Geometry, player: str, opponent: str, indent: str, full: str | None = None, inner: str | None = None
) -> list[str]:
    """Source lines that leave in ``M`` the placements of ``player``.  ``full``
    and ``inner`` name other masks than the board's (for packed boards)."""
    n = geo.size
    lines = [f"{indent}H = {opponent} & {inner or geo.inner}", f"{indent}M = 0"]
    for s, o in ((1, "H"), (n, opponent), (n + 1, "H"), (n - 1, "H")):
        # o & (o >> s) == (o & (o << s)) >> s: the "pair" mask serves both directions
        lines.append(f"{indent}q = {o} & ({o} << {s})")
        for shift, pair in (("<<", "q"), (">>", "r")):
            if shift == ">>":
                lines.append(f"{indent}r = q >> {s}")
            lines.append(f"{indent}t = {o} & ({player} {shift} {s}); t |= {o} & (t {shift} {s})")
            for _ in range(geo.steps):
                lines.append(f"{indent}t |= {pair} & (t {shift} {2 * s})")
            lines.append(f"{indent}M |= t {shift} {s}")
    lines.append(f"{indent}M &= {full or geo.full} ^ ({player} | {opponent})")
    return lines


def _flipgen_lines(geo: Geometry, player: str, opponent: str, square: str, indent: str) -> list[str]:
    n = geo.size
    lines = [f"{indent}H = {opponent} & {geo.inner}", f"{indent}F = 0"]
    for s, o in ((1, "H"), (n, opponent), (n + 1, "H"), (n - 1, "H")):
        for shift in ("<<", ">>"):
            lines += [
                f"{indent}y = {square} {shift} {s}",
                f"{indent}if y & {o}:",
                f"{indent}    c = 0",
                f"{indent}    while y & {o}:",
                f"{indent}        c |= y",
                f"{indent}        y {shift}= {s}",
                f"{indent}    if y & {player}:",
                f"{indent}        F |= c",
            ]
    return lines


def _compile(geo: Geometry) -> dict[str, Callable[..., int]]:
    cells = geo.size * geo.size
    slot = cells + 2 * geo.size + 4
    # masks for k packed boards, k = 0 .. the most moves a position can have
    fulls, inners, lows = [0], [0], [0]
    for k in range(cells - 4):
        fulls.append(fulls[-1] | (geo.full << (k * slot)))
        inners.append(inners[-1] | (geo.inner << (k * slot)))
        lows.append(lows[-1] | (1 << (k * slot)))
    src = ["def moves_mask(P, O):", *_movegen_lines(geo, "P", "O", "    "), "    return M"]
    src += ["def flips_mask(P, O, x):", *_flipgen_lines(geo, "P", "O", "x", "    ")]
    src.append("    return F")
    src += [
        "def perft(P, O, d):",
        "    m = moves_mask(P, O)",
        "    if not m:",
        "        if not moves_mask(O, P):",
        "            return 1",
        "        if d == 1:",
        "            return 1",
        "        return perft(O, P, d - 1)",
        "    if d == 1:",
        "        return m.bit_count()",
        "    n = 0",
        "    if d == 2:",
        # The children of a leaf parent are only counted, so they are packed
        # side by side into one int, a lane of SLOT bits each, and their moves
        # found by ONE run of the shift-and-mask code over all lanes.  The gap
        # above each board (2 * size + 4 bits) swallows what a shift pushes out
        # of a lane, and the masks are zero there, so lanes never mix.
        "        A = B = 0",
        "        k = 0",
        "        while m:",
        "            b = m & -m",
        "            m ^= b",
        *_flipgen_lines(geo, "P", "O", "b", "            "),
        f"            A |= (O ^ F) << (k * {slot})",
        f"            B |= (P | F | b) << (k * {slot})",
        "            k += 1",
        *_movegen_lines(geo, "A", "B", "        ", full="FULLS[k]", inner="INNERS[k]"),
        # A child with no placement (a pass or a finished game) is one leaf:
        # adding 2**(size*size) - 1 to every lane carries into the lane's next
        # bit exactly when the lane is not zero, which counts the zero lanes.
        f"        return M.bit_count() + k - (((M + FULLS[k]) >> {cells}) & LOWS[k]).bit_count()",
        "    while m:",
        "        b = m & -m",
        "        m ^= b",
        "        f = flips_mask(P, O, b)",
        "        n += perft(O ^ f, P | f | b, d - 1)",
        "    return n",
    ]
    namespace: dict[str, Any] = {"FULLS": fulls, "INNERS": inners, "LOWS": lows}
    exec("\n".join(src), namespace)  # noqa: S102 - our own generated source, no outside input
    return {name: namespace[name] for name in ("moves_mask", "flips_mask", "perft")}


_GEOMETRIES: dict[int, Geometry] = {}


def geometry(size: int) -> Geometry:
    """The shared :class:`Geometry` for ``size`` (an even number 4..16)."""
    geo = _GEOMETRIES.get(size)
    if geo is None:
        _check_size(size)
        geo = _GEOMETRIES[size] = Geometry(size)
    return geo


def _check_size(size: object) -> int:
    if isinstance(size, bool) or not isinstance(size, int):
        raise ValueError(f"reversi board size must be an integer, not {size!r}")
    if size % 2 or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"reversi board size must be even and between {MIN_SIZE} and {MAX_SIZE}, not {size}")
    return size


def moves_mask(player: int, opponent: int, geo: Geometry) -> int:
    """The squares where ``player`` may place, as a bitboard (the readable
    version of ``geo.moves_mask``)."""
    n = geo.size
    empty = geo.full & ~(player | opponent)
    oh = opponent & geo.inner
    steps = geo.steps
    moves = 0
    for s, o in ((1, oh), (n, opponent), (n + 1, oh), (n - 1, oh)):
        s2 = s + s
        # towards higher bits
        t = o & (player << s)
        t |= o & (t << s)
        pre = o & (o << s)
        for _ in range(steps):
            t |= pre & (t << s2)
        moves |= t << s
        # towards lower bits
        t = o & (player >> s)
        t |= o & (t >> s)
        pre = o & (o >> s)
        for _ in range(steps):
            t |= pre & (t >> s2)
        moves |= t >> s
    return moves & empty


def flips_mask(player: int, opponent: int, square_bit: int, geo: Geometry) -> int:
    """The opponent discs that ``player`` turns by placing on ``square_bit``
    (0 when the placement flanks nothing).  The square itself must be empty.
    (The readable version of ``geo.flips_mask``.)"""
    n = geo.size
    oh = opponent & geo.inner
    flipped = 0
    for s, o in ((1, oh), (n, opponent), (n + 1, oh), (n - 1, oh)):
        line = 0
        y = square_bit << s
        while y & o:
            line |= y
            y <<= s
        if y & player:
            flipped |= line
        line = 0
        y = square_bit >> s
        while y & o:
            line |= y
            y >>= s
        if y & player:
            flipped |= line
    return flipped


def perft_bitboards(player: int, opponent: int, depth: int, size: int = 8) -> int:
    """Leaves of the game tree ``depth`` plies below the position where
    ``player`` (a bitboard) is to move.  A forced pass is one ply; a finished
    game is one leaf whatever depth remains."""
    if depth < 1:
        return 1
    return geometry(size).perft(player, opponent, depth)


def perft_reference(player: int, opponent: int, depth: int, size: int = 8) -> int:
    """:func:`perft_bitboards` with the readable move functions (for tests)."""
    geo = geometry(size)
    if depth < 1:
        return 1
    moves = moves_mask(player, opponent, geo)
    if not moves:
        if not moves_mask(opponent, player, geo):
            return 1  # game over: one leaf
        if depth == 1:
            return 1  # a forced pass is a ply
        return perft_reference(opponent, player, depth - 1, size)
    if depth == 1:
        return moves.bit_count()  # bulk count: no need to play the last ply
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        f = flips_mask(player, opponent, bit, geo)
        total += perft_reference(opponent ^ f, player | f | bit, depth - 1, size)
    return total


def perft(board: Board, depth: int) -> int:
    """Leaves ``depth`` plies below ``board`` (see :func:`perft_bitboards`)."""
    if depth < 1 or board.is_game_over():
        return 1
    black, white = board.bitboards()
    player, opponent = (black, white) if board.turn is BLACK else (white, black)
    return board.geometry.perft(player, opponent, depth)


class Board(BaseBoard):
    """A Reversi position on an even ``size`` x ``size`` board (4..16).

    ``position`` is the position text (``"--------/.../-------- X"``) or, on
    8x8, the 64-character OBF form (``"---...--- X"``, any ``; MOVE:SCORE;``
    annotations after it are ignored).
    """

    game = "reversi"

    def __init__(self, position: str | None = None, size: int = 8) -> None:
        size = _check_size(size)
        super().__init__(size, size)
        self._geo = geometry(size)
        self._black = 0
        self._white = 0
        self._undo: list[int] = []  # flipped discs of each push (0 for a pass)
        self._moves_cache = -1  # placement mask of the side to move, -1 = unknown
        if position is None:
            m = size // 2
            self._white = self._bit(m - 1, m - 1) | self._bit(m, m)
            self._black = self._bit(m, m - 1) | self._bit(m - 1, m)
        else:
            self._read_any_position(position)

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_bitboards(cls, black: int, white: int, turn: Color | int, size: int = 8) -> Board:
        """A board from two bitboards (bit ``row * size + col``, a1 = bit 0 at the
        top-left) and the side to move.  Overlapping or off-board bits raise
        ``ValueError``."""
        board = cls(size=size)
        geo = board._geo
        if black < 0 or white < 0 or (black | white) & ~geo.full:
            raise ValueError(f"bitboards have bits outside the {size}x{size} board")
        if black & white:
            raise ValueError("bitboards overlap: a square cannot hold both colours")
        board._black, board._white = black, white
        board._turn = Color(int(turn))
        return board

    def _read_any_position(self, text: str) -> None:
        stripped = text.strip()
        head = stripped.split(";", 1)[0].strip()
        parts = head.split()
        if len(parts) == 2 and "/" not in parts[0] and len(parts[0]) == self._width * self._height:
            if self._width != 8:
                raise ValueError("the OBF position form (no slashes) is only read for 8x8 boards")
            n = self._width
            rows = "/".join(parts[0][r * n : (r + 1) * n] for r in range(n))
            self._read_position(f"{rows} {parts[1]}")
            return
        if len(parts) == 2 and "/" not in parts[0] and self._width == 8:
            raise ValueError(
                f"cannot read OBF position: expected 64 squares, found {len(parts[0])}"
            )
        self._read_position(head)

    def _set_position(self, cells: list[list[Color | None]], turn: Color) -> None:
        black = white = 0
        for row, row_cells in enumerate(cells):
            for col, cell in enumerate(row_cells):
                if cell is BLACK:
                    black |= self._bit(col, row)
                elif cell is WHITE:
                    white |= self._bit(col, row)
        self._black, self._white = black, white
        self._turn = turn
        self._undo = []
        self._moves_cache = -1

    def _bit(self, col: int, row: int) -> int:
        return 1 << (row * self._width + col)

    # -- queries -------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self._width

    @property
    def geometry(self) -> Geometry:
        return self._geo

    def bitboards(self) -> tuple[int, int]:
        """``(black, white)`` with bit ``row * size + col`` (a1 = bit 0, top-left)."""
        return self._black, self._white

    def _sides(self) -> tuple[int, int]:
        if self._turn is BLACK:
            return self._black, self._white
        return self._white, self._black

    def variant(self) -> dict[str, object]:
        return {"size": self._width}

    def piece_at(self, col: int, row: int) -> Color | None:
        if not self.on_board(col, row):
            return None
        bit = self._bit(col, row)
        if self._black & bit:
            return BLACK
        if self._white & bit:
            return WHITE
        return None

    def placements_mask(self) -> int:
        """The squares where the side to move may place, as a bitboard."""
        if self._moves_cache < 0:
            player, opponent = self._sides()
            self._moves_cache = self._geo.moves_mask(player, opponent)
        return self._moves_cache

    @property
    def legal_moves(self) -> list[Move]:
        mask = self.placements_mask()
        if mask:
            # Geometry.moves_of inlined: this runs every turn of every game and playout
            table = self._geo.move_table
            out = []
            while mask:
                bit = mask & -mask
                mask ^= bit
                out.append(table[bit.bit_length() - 1])
            return out
        player, opponent = self._sides()
        if self._geo.moves_mask(opponent, player):
            return [PASS]
        return []

    def flips(self, move: Move | str) -> list[Move]:
        """The discs ``move`` would turn for the side to move (empty for a pass,
        an occupied square or a placement that flanks nothing)."""
        m = self._coerce(move)
        if m.is_pass:
            return []
        bit = self._bit(m.col, m.row)
        if (self._black | self._white) & bit:
            return []
        player, opponent = self._sides()
        return self._geo.moves_of(self._geo.flips_mask(player, opponent, bit))

    def discs(self) -> tuple[int, int]:
        """``(black, white)`` disc counts."""
        return self._black.bit_count(), self._white.bit_count()

    def is_game_over(self) -> bool:
        if self.placements_mask():
            return False
        player, opponent = self._sides()
        return not self._geo.moves_mask(opponent, player)

    def outcome(self) -> Outcome | None:
        if not self.is_game_over():
            return None
        black, white = self.discs()
        empty = self._width * self._height - black - white
        if black > white:
            return Outcome(BLACK, "discs", (black + empty, white), discs=(black, white))
        if white > black:
            return Outcome(WHITE, "discs", (black, white + empty), discs=(black, white))
        return Outcome(None, "discs", (black + empty // 2, white + empty // 2), discs=(black, white))

    # -- notation ------------------------------------------------------------------
    def _move_name(self, col: int, row: int) -> str:
        return self._geo.names[row * self._width + col]

    def _square_from_name(self, letter: int, number: int) -> tuple[int, int]:
        return letter, number - 1

    # -- moves ---------------------------------------------------------------------
    def _check(self, move: Move) -> None:
        placements = self.placements_mask()
        if move.is_pass:
            if placements:
                example = self._geo.names[(placements & -placements).bit_length() - 1]
                raise IllegalMoveError(f"pass: {self._turn.label} has a placement (for example {example})")
            return
        bit = self._bit(move.col, move.row)
        if (self._black | self._white) & bit:
            raise IllegalMoveError(f"{move}: the square is occupied")
        if not placements & bit:
            raise IllegalMoveError(f"{move}: flips no disc")

    def _apply(self, move: Move) -> None:
        if move.is_pass:
            self._undo.append(0)
        else:
            bit = self._bit(move.col, move.row)
            player, opponent = self._sides()
            flipped = self._geo.flips_mask(player, opponent, bit)
            if self._turn is BLACK:
                self._black |= flipped | bit
                self._white ^= flipped
            else:
                self._white |= flipped | bit
                self._black ^= flipped
            self._undo.append(flipped)
        self._turn = self._turn.other
        self._moves_cache = -1

    def _unapply(self, move: Move) -> None:
        flipped = self._undo.pop()
        self._turn = self._turn.other
        self._moves_cache = -1
        if move.is_pass:
            return
        bit = self._bit(move.col, move.row)
        if self._turn is BLACK:
            self._black ^= flipped | bit
            self._white |= flipped
        else:
            self._white ^= flipped | bit
            self._black |= flipped

    # -- identity ------------------------------------------------------------------
    def __hash__(self) -> int:
        return hash(("reversi", self._width, self._black, self._white, int(self._turn)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return super().__eq__(other)
        return (
            self._width == other._width
            and self._black == other._black
            and self._white == other._white
            and self._turn is other._turn
        )

    def copy(self) -> Board:
        clone = type(self).__new__(type(self))
        clone._width = clone._height = self._width
        clone._geo = self._geo
        clone._black, clone._white = self._black, self._white
        clone._turn = self._turn
        clone._stack = list(self._stack)
        clone._undo = list(self._undo)
        clone._moves_cache = self._moves_cache
        return clone
