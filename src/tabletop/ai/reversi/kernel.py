"""The compiled core of the Reversi engine: 8x8 uint64 bitboards under numba.

A position is two bitboards, ``player`` (the side to move) and ``opponent``;
bit ``row * 8 + col`` is a square, with a1 = bit 0 the TOP-left corner (rows are
counted from the top, as everywhere in tabletop).  This module holds move
generation, flips, perft, the pattern evaluation, the exact endgame solver and
the midgame principal-variation search, all as plain functions over integers
and numpy arrays so numba can compile them once (``cache=True``) and reuse the
machine code in later processes.

It must not know about boards, moves as objects, threads or clocks: the Python
layer (:mod:`tabletop.ai.reversi.search`) owns those and passes in the tables,
the node counter and the stop flag as numpy arrays.

Score conventions: the endgame solver returns the exact disc difference from
the mover's side with empty squares given to the winner; the midgame search
returns ``SCALE`` units per disc.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic

from tabletop.ai.reversi.patterns import build_patterns

__all__ = [
    "SCALE",
    "INF",
    "perft",
    "get_moves",
    "flips",
    "count",
    "stable_discs",
    "evaluate",
    "solve_root_move",
    "search_root_move",
    "new_mpc_table",
    "NO_MPC",
    "new_tables",
    "N_FEATURES",
    "PATTERN_SQUARES",
    "PATTERN_OFFSETS",
    "feature_indices",
]

U64 = np.uint64
_cg: Any = _cgutils  # numba's code-generation helpers (untyped)
ZERO = U64(0)
ONE = U64(1)
INNER = U64(0x7E7E7E7E7E7E7E7E)
COL_A = U64(0x0101010101010101)
COL_H = U64(0x8080808080808080)
ROW_1 = U64(0x00000000000000FF)  # the top row
ROW_8 = U64(0xFF00000000000000)  # the bottom row
CORNERS = U64(0x8100000000000081)
S1 = U64(1)
S7 = U64(7)
S8 = U64(8)
S9 = U64(9)

SCALE = 16  # midgame units per disc
INF = 1 << 20

# Square weights for move ordering in the solver (corners first, X/C squares last).
_ORDER_WEIGHT = np.array(
    [
        18, 4, 16, 12, 12, 16, 4, 18,
        4, 2, 6, 8, 8, 6, 2, 4,
        16, 6, 14, 10, 10, 14, 6, 16,
        12, 8, 10, 0, 0, 10, 8, 12,
        12, 8, 10, 0, 0, 10, 8, 12,
        16, 6, 14, 10, 10, 14, 6, 16,
        4, 2, 6, 8, 8, 6, 2, 4,
        18, 4, 16, 12, 12, 16, 4, 18,
    ],
    dtype=np.int64,
)  # fmt: skip

# The 4 quadrants, for parity ordering in the last empties.
_QUADRANT = np.array([(r // 4) * 2 + (c // 4) for r in range(8) for c in range(8)], dtype=np.int64)
_QUADRANT_MASK = np.zeros(4, dtype=np.uint64)
for _sq in range(64):
    _QUADRANT_MASK[_QUADRANT[_sq]] |= np.uint64(1) << np.uint64(_sq)

# Diagonal masks (row - col constant) and anti-diagonal masks (row + col constant) for full-line tests.
_DIAG_MASKS = np.zeros(15, dtype=np.uint64)
_ANTI_MASKS = np.zeros(15, dtype=np.uint64)
for _r in range(8):
    for _c in range(8):
        _DIAG_MASKS[_r - _c + 7] |= np.uint64(1) << np.uint64(_r * 8 + _c)
        _ANTI_MASKS[_r + _c] |= np.uint64(1) << np.uint64(_r * 8 + _c)


# --------------------------------------------------------------------------- patterns
PATTERN_SQUARES, PATTERN_OFFSETS, PATTERN_NAMES = build_patterns()
N_PATTERN_WEIGHTS = int(PATTERN_NAMES[-1][1])
# Scalar features after the pattern tables: mobility difference, potential mobility difference, parity, bias.
F_MOBILITY = N_PATTERN_WEIGHTS
F_POTENTIAL = N_PATTERN_WEIGHTS + 1
F_PARITY = N_PATTERN_WEIGHTS + 2
F_BIAS = N_PATTERN_WEIGHTS + 3
N_FEATURES = N_PATTERN_WEIGHTS + 4
N_PHASES = 12  # the hand-made table's phases (5 empty squares each); a fitted table may have any divisor of 60


# --------------------------------------------------------------------------- bit basics
def _popcount_typer(typingctx: Any, x: Any) -> Any:
    # The CPU's population count (LLVM ctpop): numba compiles for the host processor.
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


def _trailing_zeros_typer(typingctx: Any, x: Any) -> Any:
    # LLVM cttz, defined (64) for a zero argument.
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.uint64), codegen


def _leading_zeros_typer(typingctx: Any, x: Any) -> Any:
    # LLVM ctlz, defined (64) for a zero argument.
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.uint64), codegen


def _prefetch_typer(typingctx: Any, arr: Any, idx: Any) -> Any:
    # LLVM prefetch of row ``idx`` of a C-contiguous 2-d array (a hint: no effect on results).
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = _cg.get_item_pointer(context, builder, aryty, ary, [args[1], zero], wraparound=False)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = _cg.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [i8p, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(arr, types.intp), codegen


_prefetch_row: Any = intrinsic(_prefetch_typer)
_popcount: Any = intrinsic(_popcount_typer)
_leading_zeros: Any = intrinsic(_leading_zeros_typer)
_trailing_zeros: Any = intrinsic(_trailing_zeros_typer)


@njit(cache=True, inline="always")
def count(x: np.uint64) -> int:
    """Number of set bits (int64, not uint64: differences may be negative)."""
    n: int = _popcount(U64(x))
    return n


@njit(cache=True, inline="always")
def lowest_square(x: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero ``x``."""
    sq: int = _trailing_zeros(U64(x))
    return sq


@njit(cache=True, inline="always")
def _moves_dir(p: np.uint64, mo: np.uint64, d: np.uint64) -> np.uint64:
    # Squares reached from our discs over a run of opponent discs, in both senses of one axis:
    # runs grow one step twice, then two steps twice (pairs of opponent discs), up to six.
    d2 = d + d
    t = mo & (p << d)
    t |= mo & (t << d)
    pre = mo & (mo << d)
    t |= pre & (t << d2)
    t |= pre & (t << d2)
    u = mo & (p >> d)
    u |= mo & (u >> d)
    pre = mo & (mo >> d)
    u |= pre & (u >> d2)
    u |= pre & (u >> d2)
    return (t << d) | (u >> d)


@njit(cache=True)
def get_moves(p: np.uint64, o: np.uint64) -> np.uint64:
    """Bitboard of the squares where the side owning ``p`` may play."""
    mo = o & INNER  # a horizontal or diagonal run cannot wrap over a board edge
    moves = _moves_dir(p, mo, S1)
    moves |= _moves_dir(p, o, S8)
    moves |= _moves_dir(p, mo, S7)
    moves |= _moves_dir(p, mo, S9)
    return moves & ~(p | o)


def _rays() -> np.ndarray:
    # The squares from each square to the board edge in each direction: four that climb the
    # square index (+1, +8, +9, +7), then four that descend (-1, -8, -9, -7).
    out = np.zeros((64, 8), dtype=np.uint64)
    steps = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
    for sq in range(64):
        for d, (dr, dc) in enumerate(steps):
            r, c = divmod(sq, 8)
            m = 0
            r, c = r + dr, c + dc
            while 0 <= r < 8 and 0 <= c < 8:
                m |= 1 << (r * 8 + c)
                r, c = r + dr, c + dc
            out[sq, d] = m
    return out


_RAYS = _rays()


@njit(cache=True)
def flips(p: np.uint64, o: np.uint64, sq: int) -> np.uint64:
    """The opponent discs turned by playing ``sq``; 0 when the move is illegal."""
    # Along each ray the first square that is not the opponent's must be ours: climbing rays
    # find it as the lowest set bit, descending ones as the highest (no loops, no branches).
    not_o = ~o
    f = ZERO
    for d in range(4):
        r = _RAYS[sq, d]
        b = r & not_o
        first = b & (ZERO - b)
        f |= (first - ONE) & r & (ZERO - U64((first & p) != ZERO))
    for d in range(4, 8):
        r = _RAYS[sq, d]
        top = U64(0x8000000000000000) >> U64(_leading_zeros((r & not_o) | ONE))
        f |= r & (ZERO - (top << ONE)) & (ZERO - U64((top & p & r) != ZERO))
    return f


# --------------------------------------------------------------------------- perft
@njit("int64(uint64, uint64, int64)", cache=True)  # one typed version: cached recursion needs it
def _perft(p: np.uint64, o: np.uint64, depth: int) -> int:
    moves = get_moves(p, o)
    if moves == ZERO:
        if get_moves(o, p) == ZERO:
            return 1  # the game is over: one leaf
        if depth == 1:
            return 1
        return _perft(o, p, depth - 1)  # a forced pass is one ply
    if depth == 1:
        return count(moves)  # bulk counting at the last ply
    total = 0
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(p, o, sq)
        total += _perft(o ^ f, p ^ f ^ (ONE << U64(sq)), depth - 1)
    return total


def perft(player: int, opponent: int, depth: int) -> int:
    """Leaves ``depth`` plies below the position (a forced pass is one ply, a finished game one leaf)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if player & opponent:
        raise ValueError("the two bitboards overlap")
    if depth == 0:
        return 1
    return int(_perft(U64(player), U64(opponent), depth))


# --------------------------------------------------------------------------- stability
@njit(cache=True)
def stable_discs(p: np.uint64, o: np.uint64) -> np.uint64:
    """A subset of ``p``'s discs that can never be flipped (fixed point from edges and full lines)."""
    filled = p | o
    full_h = ZERO
    for r in range(8):
        row = ROW_1 << U64(8 * r)
        if filled & row == row:
            full_h |= row
    v = filled & (filled >> U64(32))
    v &= v >> U64(16)
    v &= v >> S8
    full_v = (v & ROW_1) * COL_A
    full_d = ZERO
    full_a = ZERO
    for i in range(15):
        m = _DIAG_MASKS[i]
        if filled & m == m:
            full_d |= m
        m = _ANTI_MASKS[i]
        if filled & m == m:
            full_a |= m
    stable = ZERO
    while True:
        # A disc is safe along an axis when that line is full or a neighbour on it is
        # the border or an own stable disc (wrapped bits land on the border columns anyway).
        ok_h = full_h | (stable << S1) | COL_A | (stable >> S1) | COL_H
        ok_v = full_v | (stable << S8) | ROW_1 | (stable >> S8) | ROW_8
        ok_d = full_d | (stable << S9) | COL_A | ROW_1 | (stable >> S9) | COL_H | ROW_8
        ok_a = full_a | (stable << S7) | COL_H | ROW_1 | (stable >> S7) | COL_A | ROW_8
        new = p & ok_h & ok_v & ok_d & ok_a
        if new == stable:
            return stable
        stable = new


# --------------------------------------------------------------------------- evaluation
# A pattern instance's weight index is sum(3**k * digit(square k)), digit 0 empty, 1 ours, 2
# theirs.  Reading it square by square costs a branch a square (about 1 us an evaluation), so
# each instance is read a byte at a time instead: from the board itself, its transpose, or one
# of its two pseudo-rotations by 45 degrees (which bring each diagonal into one byte), with a
# table per byte that turns the bits it holds into their share of the index.
@njit(cache=True, inline="always")
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> U64(n)) | (x << U64(64 - n))


@njit(cache=True, inline="always")
def _transpose(x: np.uint64) -> np.uint64:
    # Mirror in the a1-h8 diagonal (three delta swaps).
    t = U64(0x0F0F0F0F00000000) & (x ^ (x << U64(28)))
    x ^= t ^ (t >> U64(28))
    t = U64(0x3333000033330000) & (x ^ (x << U64(14)))
    x ^= t ^ (t >> U64(14))
    t = U64(0x5500550055005500) & (x ^ (x << U64(7)))
    x ^= t ^ (t >> U64(7))
    return x


@njit(cache=True, inline="always")
def _shear(x: np.uint64, m1: np.uint64, m2: np.uint64, m4: np.uint64) -> np.uint64:
    # Each column rotated (cyclically) by 1, 2 and 4 rows where the masks say: with SHEAR_C
    # column c moves c rows, with SHEAR_7C 7 - c rows, so each diagonal of one direction lands
    # in one row of the result.
    x ^= m1 & (x ^ _rotr(x, 8))
    x ^= m2 & (x ^ _rotr(x, 16))
    x ^= m4 & (x ^ _rotr(x, 32))
    return x


SHEAR_C = (U64(0xAAAAAAAAAAAAAAAA), U64(0xCCCCCCCCCCCCCCCC), U64(0xF0F0F0F0F0F0F0F0))
SHEAR_7C = (U64(0x5555555555555555), U64(0x3333333333333333), U64(0x0F0F0F0F0F0F0F0F))


@njit(cache=True, inline="always")
def _views(x: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64]:
    # The pattern reader's other three boards: the transpose and the two shears.
    return (
        _transpose(x),
        _shear(x, SHEAR_C[0], SHEAR_C[1], SHEAR_C[2]),
        _shear(x, SHEAR_7C[0], SHEAR_7C[1], SHEAR_7C[2]),
    )


def _variant_positions() -> np.ndarray:
    """Where each square's bit lands in each board variant (identity, transpose, two shears)."""
    funcs: tuple[Callable[[Any], Any], ...] = (
        lambda x: x,
        _transpose.py_func,
        lambda x: _shear.py_func(x, *SHEAR_C),
        lambda x: _shear.py_func(x, *SHEAR_7C),
    )
    out = np.zeros((4, 64), dtype=np.int64)
    for v, f in enumerate(funcs):
        for sq in range(64):
            image = int(f(U64(1) << U64(sq)))
            assert image and image & (image - 1) == 0, "a board variant must move bits, not merge them"
            out[v, sq] = image.bit_length() - 1
        assert len(set(out[v])) == 64
    return out


def build_pattern_reads(squares_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per instance, the bytes to read (variant, shift) and their 256-entry index tables."""
    pos = _variant_positions()
    starts = [0]
    variants: list[int] = []
    shifts: list[int] = []
    tables: list[np.ndarray] = []
    for row in squares_of:
        squares = [int(sq) for sq in row if sq >= 0]
        v = min(range(4), key=lambda var: len({pos[var, sq] // 8 for sq in squares}))
        for byte in sorted({pos[v, sq] // 8 for sq in squares}):
            table = np.zeros(256, dtype=np.int32)
            for bits in range(256):
                table[bits] = sum(
                    3**k
                    for k, sq in enumerate(squares)
                    if pos[v, sq] // 8 == byte and bits >> (pos[v, sq] % 8) & 1
                )
            variants.append(v)
            shifts.append(8 * byte)
            tables.append(table)
        starts.append(len(variants))
    return (
        np.array(starts, dtype=np.int64),
        np.array(variants, dtype=np.int64),
        np.array(shifts, dtype=np.uint64),
        np.array(tables, dtype=np.int32),
    )


_READ_START, _READ_VARIANT, _READ_SHIFT, _READ_TABLE = build_pattern_reads(PATTERN_SQUARES)


@njit(cache=True, inline="always")
def _pattern_index(
    i: int,
    p0: np.uint64,
    p1: np.uint64,
    p2: np.uint64,
    p3: np.uint64,
    o0: np.uint64,
    o1: np.uint64,
    o2: np.uint64,
    o3: np.uint64,
) -> int:
    idx = 0
    for e in range(_READ_START[i], _READ_START[i + 1]):
        v = _READ_VARIANT[e]
        if v == 0:
            bp, bo = p0, o0
        elif v == 1:
            bp, bo = p1, o1
        elif v == 2:
            bp, bo = p2, o2
        else:
            bp, bo = p3, o3
        sh = _READ_SHIFT[e]
        idx += _READ_TABLE[e, int((bp >> sh) & U64(0xFF))] + 2 * _READ_TABLE[e, int((bo >> sh) & U64(0xFF))]
    return idx


@njit(cache=True)
def feature_indices(p: np.uint64, o: np.uint64, out: np.ndarray) -> None:
    """Write the weight index of every pattern instance into ``out`` (one per instance)."""
    p1, p2, p3 = _views(p)
    o1, o2, o3 = _views(o)
    for i in range(PATTERN_SQUARES.shape[0]):
        out[i] = PATTERN_OFFSETS[i] + _pattern_index(i, p, p1, p2, p3, o, o1, o2, o3)


@njit(cache=True)
def feature_indices_by_squares(p: np.uint64, o: np.uint64, out: np.ndarray) -> None:
    """:func:`feature_indices` by its definition, a square at a time: the reference that the
    benchmark times it against and the tests check it with."""
    for i in range(PATTERN_SQUARES.shape[0]):
        idx = 0
        for k in range(PATTERN_SQUARES.shape[1] - 1, -1, -1):
            sq = PATTERN_SQUARES[i, k]
            if sq < 0:
                continue
            b = ONE << U64(sq)
            idx *= 3
            if p & b:
                idx += 1
            elif o & b:
                idx += 2
        out[i] = PATTERN_OFFSETS[i] + idx


@njit(cache=True, inline="always")
def _potential(p: np.uint64, o: np.uint64) -> int:
    # Empty squares next to an opponent disc: where moves may appear later.
    empty = ~(p | o)
    n = o & INNER
    around = (n << S1) | (n >> S1) | (o << S8) | (o >> S8) | (n << S7) | (n >> S7) | (n << S9) | (n >> S9)
    return count(around & empty)


@njit(cache=True)
def evaluate(p: np.uint64, o: np.uint64, weights: np.ndarray) -> int:
    """Static score of the position for the side to move, ``SCALE`` units per disc."""
    empties = 64 - count(p | o)
    n_phases = weights.shape[0]  # the phases split the 60 moves evenly
    phase = (60 - empties) * n_phases // 60
    if phase >= n_phases:
        phase = n_phases - 1
    if phase < 0:
        phase = 0
    w = weights[phase]
    total = w[F_BIAS]
    p1, p2, p3 = _views(p)
    o1, o2, o3 = _views(o)
    for i in range(PATTERN_SQUARES.shape[0]):
        total += w[PATTERN_OFFSETS[i] + _pattern_index(i, p, p1, p2, p3, o, o1, o2, o3)]
    total += w[F_MOBILITY] * (count(get_moves(p, o)) - count(get_moves(o, p)))
    total += w[F_POTENTIAL] * (_potential(p, o) - _potential(o, p))
    total += w[F_PARITY] * (1 if empties & 1 else -1)
    v = int(total)
    bound = 64 * SCALE - 1  # a static guess never claims a proven result
    if v > bound:
        return bound
    if v < -bound:
        return -bound
    return v


# --------------------------------------------------------------------------- tables
TT_LOWER = 0
TT_UPPER = 1
TT_DEPTH = 2
TT_MOVE = 3


def new_tables(megabytes: float) -> tuple[np.ndarray, np.ndarray]:
    """A transposition table of about ``megabytes`` (keys, values); a power of two entries."""
    entry = 16 + 16
    n = 1 << max(10, int(megabytes * 1024 * 1024 / entry).bit_length() - 1)
    keys = np.zeros((n, 2), dtype=np.uint64)
    vals = np.zeros((n, 4), dtype=np.int32)
    vals[:, TT_DEPTH] = -1
    return keys, vals


@njit(cache=True, inline="always")
def _slot(p: np.uint64, o: np.uint64, n: int) -> int:
    h = p * U64(0x9E3779B97F4A7C15) ^ (o * U64(0xC2B2AE3D27D4EB4F))
    h ^= h >> U64(29)
    return int(h & U64(n - 1))


@njit(cache=True, inline="always")
def _solved_entry(tt_keys: np.ndarray, tt_vals: np.ndarray, slot: int, p: np.uint64, o: np.uint64) -> bool:
    # The endgame table's line ``slot`` holds the solver's bounds for (p, o).
    found: bool = tt_keys[slot, 0] == p and tt_keys[slot, 1] == o and tt_vals[slot, TT_DEPTH] == 99
    return found


@njit(cache=True, inline="always")
def _score_over(p: np.uint64, o: np.uint64) -> int:
    # Final disc difference with the empty squares given to the winner.
    np_ = count(p)
    no = count(o)
    e = 64 - np_ - no
    d = np_ - no
    if d > 0:
        return d + e
    if d < 0:
        return d - e
    return 0


# --------------------------------------------------------------------------- endgame
def _priority_masks() -> np.ndarray:
    corners = int(CORNERS)
    x_sq = (1 << 9) | (1 << 14) | (1 << 49) | (1 << 54)
    c_sq = (1 << 1) | (1 << 6) | (1 << 8) | (1 << 15) | (1 << 48) | (1 << 55) | (1 << 57) | (1 << 62)
    edges = 0xFF818181818181FF & ~corners & ~c_sq
    inner = 0xFFFFFFFFFFFFFFFF & ~corners & ~x_sq & ~c_sq & ~edges
    return np.array([corners, edges, inner, c_sq, x_sq], dtype=np.uint64)


_PRIORITY_MASKS = _priority_masks()


def _neighbours() -> np.ndarray:
    out = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        r, c = divmod(sq, 8)
        m = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and 0 <= r + dr < 8 and 0 <= c + dc < 8:
                    m |= 1 << ((r + dr) * 8 + c + dc)
        out[sq] = m
    return out


_NEIGHBOUR = _neighbours()  # a move must touch an opponent disc
N_PRIORITY = 5


@njit(cache=True)
def _solve1(p: np.uint64, o: np.uint64, sq: int) -> int:
    # One empty square: whoever can, plays it.
    n = 2 * count(p) - 63  # disc difference with the square still empty
    nb = _NEIGHBOUR[sq]
    if o & nb:
        f = flips(p, o, sq)
        if f:
            return n + 2 * count(f) + 1
    if p & nb:
        f = flips(o, p, sq)
        if f:
            return n - 2 * count(f) - 1
    if n > 0:
        return n + 1
    if n < 0:
        return n - 1
    return 0


@njit(cache=True, inline="always")
def _solve2_side(p: np.uint64, o: np.uint64, bound: int, sq1: int, sq2: int, nodes: np.ndarray) -> int:
    # Best result for the mover ``p`` over the two empties (tried in order; stop at ``bound`` or above),
    # -INF when ``p`` has no move.  Each child is a one-empty node.
    best = -INF
    f = flips(p, o, sq1) if o & _NEIGHBOUR[sq1] else ZERO
    if f:
        nodes[0] += 1
        best = -_solve1(o ^ f, p ^ f ^ (ONE << U64(sq1)), sq2)
        if best >= bound:
            return best
    f = flips(p, o, sq2) if o & _NEIGHBOUR[sq2] else ZERO
    if f:
        nodes[0] += 1
        v = -_solve1(o ^ f, p ^ f ^ (ONE << U64(sq2)), sq1)
        if v > best:
            best = v
    return best


@njit(cache=True)
def _solve2(p: np.uint64, o: np.uint64, alpha: int, beta: int, nodes: np.ndarray) -> int:
    # Two empties, without loops or recursion (tried by quadrant, then square: both squares have
    # the same parity, so the general case's parity order does not apply).
    nodes[0] += 1
    empty = ~(p | o)
    sq1 = lowest_square(empty)
    sq2 = lowest_square(empty & (empty - ONE))
    if _QUADRANT[sq2] < _QUADRANT[sq1]:
        sq1, sq2 = sq2, sq1
    best = _solve2_side(p, o, beta, sq1, sq2, nodes)
    if best > -INF:
        return best
    nodes[0] += 1  # the opponent's node after our pass
    best = _solve2_side(o, p, -alpha, sq1, sq2, nodes)
    if best > -INF:
        return -best
    return _score_over(p, o)


@njit(cache=True)
def _solve3(p: np.uint64, o: np.uint64, alpha: int, beta: int, nodes: np.ndarray) -> int:
    # Three empties, no loops over quadrants: a square alone in an odd quadrant goes first.
    nodes[0] += 1
    empty = ~(p | o)
    sq1 = lowest_square(empty)
    empty &= empty - ONE
    sq2 = lowest_square(empty)
    sq3 = lowest_square(empty & (empty - ONE))
    q1 = _QUADRANT[sq1]
    q2 = _QUADRANT[sq2]
    q3 = _QUADRANT[sq3]
    if q1 == q2 and q2 != q3:  # (sq1, sq2) share a quadrant: sq3 is alone
        sq1, sq2, sq3 = sq3, sq1, sq2
    elif q1 == q3 and q1 != q2:
        sq1, sq2, sq3 = sq2, sq1, sq3
    return _solve_ordered(p, o, alpha, beta, 3, sq1, sq2, sq3, -1, nodes)


@njit(cache=True, inline="always")
def _stable_upper(p: np.uint64, o: np.uint64, alpha: int) -> int:
    # The most the mover can still make against the opponent's stable discs, looked at only
    # when that could be alpha or less (INF otherwise): a cheap cut-off near the end.
    if alpha >= 0 and 64 - 2 * count(o) <= alpha:
        upper: int = 64 - 2 * count(stable_discs(o, p))
        return upper
    return INF


def _priority_class() -> np.ndarray:
    out = np.zeros(64, dtype=np.int64)
    for k, mask in enumerate(_PRIORITY_MASKS):
        for sq in range(64):
            if int(mask) >> sq & 1:
                out[sq] = k
    return out


_PRIORITY_CLASS = _priority_class()


@njit(cache=True, inline="always")
def _order_key(sq: int, others_in_quadrant: int) -> int:
    # The general solver's order as one number: odd quadrants first, then the square's class
    # (corner, edge, inner, C, X), then the square itself.
    key: int = (((others_in_quadrant & 1) * N_PRIORITY + _PRIORITY_CLASS[sq]) << 6) | sq
    return key


@njit(cache=True, inline="always")
def _solve_side(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    n: int,
    s1: int,
    s2: int,
    s3: int,
    s4: int,
    nodes: np.ndarray,
) -> int:
    # Best result for the mover over the n (3 or 4) empties s1.. in that order, -INF when it
    # has no move.  Inlined with a constant n, so each caller gets its own loop-free copy.
    best = -INF
    for k in range(n):
        sq = s1 if k == 0 else s2 if k == 1 else s3 if k == 2 else s4
        if o & _NEIGHBOUR[sq] == ZERO:
            continue
        f = flips(p, o, sq)
        if f == ZERO:
            continue
        if n == 3:
            v = -_solve2(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, nodes)
        else:
            v = -_solve3(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, nodes)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    return best
    return best


@njit(cache=True, inline="always")
def _solve_ordered(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    n: int,
    s1: int,
    s2: int,
    s3: int,
    s4: int,
    nodes: np.ndarray,
) -> int:
    # The mover's best over the n empties in the given order; if it has no move the opponent
    # plays them (one more node); if neither can, the game is over.
    best = _solve_side(p, o, alpha, beta, n, s1, s2, s3, s4, nodes)
    if best > -INF:
        return best
    nodes[0] += 1  # the opponent's node after our pass
    best = _solve_side(o, p, -beta, -alpha, n, s1, s2, s3, s4, nodes)
    if best > -INF:
        return -best
    return _score_over(p, o)


@njit(cache=True)
def _solve4(p: np.uint64, o: np.uint64, alpha: int, beta: int, nodes: np.ndarray) -> int:
    # Four empties, no loops over quadrants or classes: the same order as the general case,
    # from a four-key sorting network.
    nodes[0] += 1
    upper = _stable_upper(p, o, alpha)
    if upper <= alpha:
        return upper
    empty = ~(p | o)
    s1 = lowest_square(empty)
    empty &= empty - ONE
    s2 = lowest_square(empty)
    empty &= empty - ONE
    s3 = lowest_square(empty)
    s4 = lowest_square(empty & (empty - ONE))
    q1 = _QUADRANT[s1]
    q2 = _QUADRANT[s2]
    q3 = _QUADRANT[s3]
    q4 = _QUADRANT[s4]
    e12 = int(q1 == q2)
    e13 = int(q1 == q3)
    e14 = int(q1 == q4)
    e23 = int(q2 == q3)
    e24 = int(q2 == q4)
    e34 = int(q3 == q4)
    k1 = _order_key(s1, e12 + e13 + e14)
    k2 = _order_key(s2, e12 + e23 + e24)
    k3 = _order_key(s3, e13 + e23 + e34)
    k4 = _order_key(s4, e14 + e24 + e34)
    if k2 < k1:
        k1, k2 = k2, k1
    if k4 < k3:
        k3, k4 = k4, k3
    if k3 < k1:
        k1, k3 = k3, k1
    if k4 < k2:
        k2, k4 = k4, k2
    if k3 < k2:
        k2, k3 = k3, k2
    s1, s2, s3, s4 = k1 & 63, k2 & 63, k3 & 63, k4 & 63
    return _solve_ordered(p, o, alpha, beta, 4, s1, s2, s3, s4, nodes)


@njit("int64(uint64, uint64, int64, int64, boolean, int64[::1])", cache=True)
def _solve_small(p: np.uint64, o: np.uint64, alpha: int, beta: int, passed: bool, nodes: np.ndarray) -> int:
    """Few empties: no tables, parity order (squares of odd quadrants first)."""
    # Typed (non-literal) flags: a literal argument would make numba compile an
    # extra, uncacheable specialisation of the recursive function.
    false_ = nodes[0] < 0
    true_ = not false_
    empty = ~(p | o)
    n_empty = count(empty)
    if n_empty == 2 and not passed:
        return _solve2(p, o, alpha, beta, nodes)
    if n_empty == 3 and not passed:
        return _solve3(p, o, alpha, beta, nodes)
    if n_empty == 4 and not passed:
        return _solve4(p, o, alpha, beta, nodes)
    nodes[0] += 1
    if n_empty == 1:
        return _solve1(p, o, lowest_square(empty))
    upper = _stable_upper(p, o, alpha)
    if upper <= alpha:
        return upper
    best = -INF
    any_move = False
    odd = ZERO  # the empties of quadrants with an odd number of them go first
    for q in range(4):
        qm = _QUADRANT_MASK[q]
        if count(empty & qm) & 1:
            odd |= qm
    for k in range(2 * N_PRIORITY):
        qe = (empty & odd if k < N_PRIORITY else empty & ~odd) & _PRIORITY_MASKS[k % N_PRIORITY]
        while qe:
            sq = lowest_square(qe)
            qe &= qe - ONE
            if o & _NEIGHBOUR[sq] == ZERO:
                continue
            f = flips(p, o, sq)
            if f == ZERO:
                continue
            any_move = True
            if n_empty == 5:
                v = -_solve4(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, nodes)
            elif n_empty == 4:
                v = -_solve3(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, nodes)
            elif n_empty == 3:
                v = -_solve2(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, nodes)
            else:
                v = -_solve_small(o ^ f, p ^ f ^ (ONE << U64(sq)), -beta, -alpha, false_, nodes)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        return best
    if not any_move:
        if passed:
            return _score_over(p, o)
        return -_solve_small(o, p, -beta, -alpha, true_, nodes)
    return best


@njit(cache=True)
def _shallow_value(p: np.uint64, o: np.uint64, weights: np.ndarray) -> int:
    # One ply of negamax over the static evaluation (``SCALE`` units), for move ordering only.
    moves = get_moves(p, o)
    if moves == ZERO:
        return -evaluate(o, p, weights)
    best = -INF
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(p, o, sq)
        v = -evaluate(o ^ f, p ^ f ^ (ONE << U64(sq)), weights)
        if v > best:
            best = v
    return best


@njit("int64(uint64, uint64, int64, int64, int64, float32[:, ::1])", cache=True)
def _sort_value(p: np.uint64, o: np.uint64, depth: int, alpha: int, beta: int, weights: np.ndarray) -> int:
    # Plain alpha-beta over the static evaluation (``SCALE`` units), for move ordering only.
    if depth <= 0:
        return evaluate(p, o, weights)
    moves = get_moves(p, o)
    if moves == ZERO:
        if get_moves(o, p) == ZERO:
            return _score_over(p, o) * SCALE
        return -_sort_value(o, p, depth - 1, -beta, -alpha, weights)
    best = -INF
    while moves:
        sq = lowest_square(moves)
        moves &= moves - ONE
        f = flips(p, o, sq)
        v = -_sort_value(o ^ f, p ^ f ^ (ONE << U64(sq)), depth - 1, -beta, -alpha, weights)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


SMALL_EMPTIES = 7
EVAL_ORDER_EMPTIES = 12
EVAL_ORDER_WEIGHT = 1
SHALLOW_ORDER_EMPTIES = 16
SHALLOW_ORDER_WEIGHT = 2
SORT_EMPTIES = 19  # above this, children are ordered by an alpha-beta search of (empties - 14) // 2 plies
SORT_WEIGHT = 2  # the ordering searches below, against fastest-first (64 a reply)
ETC_EMPTIES = 11  # enhanced transposition cut-offs above this (each probe is a likely cache miss)


@njit(
    "int64(uint64, uint64, int64, int64, boolean, int64, uint64[:, ::1], int32[:, ::1], int64[::1], int64[::1],"
    " int64[:, :, ::1], float32[:, ::1])",
    cache=True,
)
def _solve(
    p: np.uint64,
    o: np.uint64,
    alpha: int,
    beta: int,
    passed: bool,
    ply: int,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    nodes: np.ndarray,
    stop: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
) -> int:
    """Exact disc difference within (alpha, beta): fastest-first, TT, stability cut-offs."""
    # Typed (non-literal) flags: a literal argument would make numba compile an
    # extra, uncacheable specialisation of the recursive function.
    false_ = nodes[0] < 0
    true_ = not false_
    empty = ~(p | o)
    n_empty = count(empty)
    if n_empty <= SMALL_EMPTIES:
        return _solve_small(p, o, alpha, beta, passed, nodes)
    nodes[0] += 1
    if stop[0]:
        return 0
    if nodes[1] > 0 and nodes[0] >= nodes[1]:
        stop[0] = 1
        return 0
    # Stability: the opponent's stable discs bound our best result (they are among its
    # discs, so the bound cannot reach below beta while it has too few discs).
    if alpha >= 0 and 64 - 2 * count(o) < beta:
        upper = 64 - 2 * count(stable_discs(o, p))
        if upper <= alpha:
            return upper
        if upper < beta:
            beta = upper
    n = tt_keys.shape[0]
    slot = _slot(p, o, n)
    tt_move = -1
    if _solved_entry(tt_keys, tt_vals, slot, p, o):
        lo = int(tt_vals[slot, TT_LOWER])
        hi = int(tt_vals[slot, TT_UPPER])
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
        tt_move = tt_vals[slot, TT_MOVE]
    moves = get_moves(p, o)
    if moves == ZERO:
        if passed:
            return _score_over(p, o)
        return -_solve(o, p, -beta, -alpha, true_, ply, tt_keys, tt_vals, nodes, stop, scratch, weights)
    # Order: table move, then fewest replies (fastest first), corners, parity.
    sqs = scratch[ply, 0]
    keys = scratch[ply, 1]
    fls = scratch[ply, 2]
    n_moves = 0
    m = moves
    while m:
        sq = lowest_square(m)
        m &= m - ONE
        f = flips(p, o, sq)
        np_ = p ^ f ^ (ONE << U64(sq))
        no = o ^ f
        child_slot = _slot(no, np_, n)
        if n_empty > SMALL_EMPTIES + 1:  # the child will probe the table: load its line meanwhile
            _prefetch_row(tt_keys, child_slot)
            _prefetch_row(tt_vals, child_slot)
        if sq == tt_move:
            key = -1 << 30
        else:
            reply = get_moves(no, np_)
            key = (count(reply) + count(reply & CORNERS)) * 64 - _ORDER_WEIGHT[sq]
            if count(empty & _QUADRANT_MASK[_QUADRANT[sq]]) & 1:
                key -= 24
            # Enhanced transposition cut-off: a child already proven bad enough for the opponent.
            if n_empty > ETC_EMPTIES and _solved_entry(tt_keys, tt_vals, child_slot, no, np_):
                v = -int(tt_vals[child_slot, TT_UPPER])
                if v >= beta:
                    return v
            if n_empty > SORT_EMPTIES:
                # Near the root of a long solve, a few plies of alpha-beta order better still.
                key += _sort_value(no, np_, (n_empty - 14) // 2, -INF, INF, weights) * SORT_WEIGHT
            elif n_empty > SHALLOW_ORDER_EMPTIES:
                # Farther still, a one-ply search of the reply beats its static evaluation.
                key += _shallow_value(no, np_, weights) * SHALLOW_ORDER_WEIGHT
            elif n_empty > EVAL_ORDER_EMPTIES:
                # Far from the end, the evaluation (the opponent's view) orders better than mobility alone.
                key += evaluate(no, np_, weights) * EVAL_ORDER_WEIGHT
        # insertion sort
        j = n_moves
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            sqs[j] = sqs[j - 1]
            fls[j] = fls[j - 1]
            j -= 1
        keys[j] = key
        sqs[j] = sq
        fls[j] = np.int64(f)
        n_moves += 1
    alpha0 = alpha
    best = -INF
    best_sq = -1
    for i in range(n_moves):
        sq = sqs[i]
        f = U64(fls[i])
        np_ = o ^ f
        no = p ^ f ^ (ONE << U64(sq))
        # Principal variation search: the first move with the full window, the others with a
        # null window, searched again with (v, beta) when one fails high inside the window.
        lo = alpha
        hi = beta if i == 0 else alpha + 1
        while True:
            if n_empty <= SMALL_EMPTIES + 1:  # children of the table-free size: no detour through _solve
                v = -_solve_small(np_, no, -hi, -lo, false_, nodes)
            else:
                v = -_solve(
                    np_, no, -hi, -lo, false_, ply + 1, tt_keys, tt_vals, nodes, stop, scratch, weights
                )
            if hi >= beta or v <= alpha or v >= beta:
                break
            lo, hi = v, beta
        if stop[0]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    # Store bounds (always replace: the deepest nodes are the most numerous and cheapest).
    if not _solved_entry(tt_keys, tt_vals, slot, p, o):
        tt_keys[slot, 0] = p
        tt_keys[slot, 1] = o
        tt_vals[slot, TT_LOWER] = -64
        tt_vals[slot, TT_UPPER] = 64
        tt_vals[slot, TT_DEPTH] = 99
    if best >= beta:
        if best > tt_vals[slot, TT_LOWER]:
            tt_vals[slot, TT_LOWER] = best
    elif best <= alpha0:
        if best < tt_vals[slot, TT_UPPER]:
            tt_vals[slot, TT_UPPER] = best
    else:
        tt_vals[slot, TT_LOWER] = best
        tt_vals[slot, TT_UPPER] = best
    tt_vals[slot, TT_MOVE] = best_sq
    return best


def new_scratch() -> np.ndarray:
    """Per-ply move lists for the searches (no allocation inside the compiled code)."""
    return np.zeros((80, 3, 40), dtype=np.int64)


@njit(cache=True, nogil=True)  # nogil: a timer thread may raise the stop flag meanwhile
def solve_root_move(
    p: np.uint64,
    o: np.uint64,
    sq: int,
    alpha: int,
    beta: int,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    nodes: np.ndarray,
    stop: np.ndarray,
    scratch: np.ndarray,
    weights: np.ndarray,
) -> int:
    """Exact score (mover's side, within the window) of playing ``sq`` (-1: pass) from (p, o)."""
    # Typed (non-literal) flags: a literal argument would make numba compile an
    # extra, uncacheable specialisation of the recursive function.
    false_ = nodes[0] < 0
    true_ = not false_
    one = true_ + 0  # ply 1, typed int
    if sq < 0:
        return -_solve(o, p, -beta, -alpha, false_, one, tt_keys, tt_vals, nodes, stop, scratch, weights)
    f = flips(p, o, sq)
    return -_solve(
        o ^ f,
        p ^ f ^ (ONE << U64(sq)),
        -beta,
        -alpha,
        false_,
        one,
        tt_keys,
        tt_vals,
        nodes,
        stop,
        scratch,
        weights,
    )


# --------------------------------------------------------------------------- midgame
# --------------------------------------------------------------------------- selective search
# Multi-ProbCut: a shallow search predicts a deep one as deep = a + b * shallow + e with
# e ~ N(0, sigma), fitted by scripts/fit_reversi_mpc.py.  Before searching a node to
# ``depth``, a null-window search to the fitted shallow depth decides whether the deep
# value lies beyond (alpha, beta) by more than ``t`` sigmas; if so the node is cut.  The
# table has a row per number of empty squares and a column per remaining depth; column
# MPC_END holds the fit against the exact final score, for searches to the end of the game.
MPC_END = 61
MPC_MIN_DEPTH = 3  # below this the shallow search costs about what it would save
MPC_SHALLOW = 0  # the shallow depth (0: no cut for this cell)
MPC_A = 1
MPC_B = 2
MPC_SIGMA = 3  # all three in ``SCALE`` units


def new_mpc_table() -> np.ndarray:
    """An empty cut table (no cuts): rows 0..60 empties, columns 0..60 depth and ``MPC_END``."""
    return np.zeros((61, MPC_END + 1, 4), dtype=np.float32)


NO_MPC = new_mpc_table()


@njit(
    "int64(uint64, uint64, int64, int64, int64, boolean, int64, float32[:, ::1], uint64[:, ::1], int32[:, ::1], int64[::1], int64[::1],"
    " int64[:, :, ::1], float32[:, :, ::1], float64)",
    cache=True,
)
def _search(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    passed: bool,
    ply: int,
    weights: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    nodes: np.ndarray,
    stop: np.ndarray,
    scratch: np.ndarray,
    mpc: np.ndarray,
    mpc_t: float,
) -> int:
    """Principal-variation search to ``depth`` plies; ``SCALE`` units per disc.  With ``mpc_t`` > 0
    nodes are cut by Multi-ProbCut (table ``mpc``) at ``mpc_t`` standard deviations."""
    # Typed (non-literal) flags: a literal argument would make numba compile an
    # extra, uncacheable specialisation of the recursive function.
    false_ = nodes[0] < 0
    true_ = not false_
    nodes[0] += 1
    if stop[0]:
        return 0
    if nodes[1] > 0 and nodes[0] >= nodes[1]:
        stop[0] = 1
        return 0
    n_empty = count(~(p | o))
    if depth >= n_empty and n_empty <= SMALL_EMPTIES:
        # The rest of the game is cheaper to solve than to evaluate: exact, in the window's discs.
        lo_d = max(-65, alpha // SCALE)
        hi_d = min(65, -((-beta) // SCALE))
        return _solve_small(p, o, lo_d, hi_d, passed, nodes) * SCALE
    if depth <= 0:
        return evaluate(p, o, weights)
    n = tt_keys.shape[0]
    slot = _slot(p, o, n)
    tt_move = -1
    if tt_keys[slot, 0] == p and tt_keys[slot, 1] == o:
        tt_move = tt_vals[slot, TT_MOVE]
        if tt_vals[slot, TT_DEPTH] >= depth:
            lo = int(tt_vals[slot, TT_LOWER])
            hi = int(tt_vals[slot, TT_UPPER])
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
    moves = get_moves(p, o)
    if moves == ZERO:
        if passed:
            return _score_over(p, o) * SCALE
        return -_search(
            o,
            p,
            depth,
            -beta,
            -alpha,
            true_,
            ply,
            weights,
            tt_keys,
            tt_vals,
            nodes,
            stop,
            scratch,
            mpc,
            mpc_t,
        )
    if mpc_t > 0.0 and depth >= MPC_MIN_DEPTH:
        col = MPC_END if depth >= n_empty else depth
        shallow = int(mpc[n_empty, col, MPC_SHALLOW])
        if shallow > 0:
            a = mpc[n_empty, col, MPC_A]
            b = mpc[n_empty, col, MPC_B]
            margin = mpc_t * mpc[n_empty, col, MPC_SIGMA]
            if beta < INF // 2:
                # deep >= beta with the asked confidence when shallow >= (beta + margin - a) / b
                bound = int(np.ceil((beta + margin - a) / b))
                if bound < INF // 2:
                    v = _search(
                        p,
                        o,
                        shallow,
                        bound - 1,
                        bound,
                        passed,
                        ply,
                        weights,
                        tt_keys,
                        tt_vals,
                        nodes,
                        stop,
                        scratch,
                        mpc,
                        mpc_t,
                    )
                    if stop[0]:
                        return 0
                    if v >= bound:
                        return beta
            if alpha > -INF // 2:
                bound = int(np.floor((alpha - margin - a) / b))
                if bound > -INF // 2:
                    v = _search(
                        p,
                        o,
                        shallow,
                        bound,
                        bound + 1,
                        passed,
                        ply,
                        weights,
                        tt_keys,
                        tt_vals,
                        nodes,
                        stop,
                        scratch,
                        mpc,
                        mpc_t,
                    )
                    if stop[0]:
                        return 0
                    if v <= bound:
                        return alpha
            if tt_keys[slot, 0] == p and tt_keys[slot, 1] == o:
                tt_move = tt_vals[slot, TT_MOVE]  # the shallow searches' best move orders this one
    sqs = scratch[ply, 0]
    keys = scratch[ply, 1]
    n_moves = 0
    m = moves
    while m:
        sq = lowest_square(m)
        m &= m - ONE
        if sq == tt_move:
            key = -1 << 30
        elif depth >= 3:
            f = flips(p, o, sq)
            np_ = p ^ f ^ (ONE << U64(sq))
            key = evaluate(o ^ f, np_, weights)  # the opponent's view: lower is better for us
        else:
            f = flips(p, o, sq)
            reply = get_moves(o ^ f, p ^ f ^ (ONE << U64(sq)))
            key = (count(reply) + count(reply & CORNERS)) * 64 - _ORDER_WEIGHT[sq]
        j = n_moves
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            sqs[j] = sqs[j - 1]
            j -= 1
        keys[j] = key
        sqs[j] = sq
        n_moves += 1
    alpha0 = alpha
    best = -INF
    best_sq = -1
    for i in range(n_moves):
        sq = sqs[i]
        f = flips(p, o, sq)
        np_ = o ^ f
        no = p ^ f ^ (ONE << U64(sq))
        if i == 0:
            v = -_search(
                np_,
                no,
                depth - 1,
                -beta,
                -alpha,
                false_,
                ply + 1,
                weights,
                tt_keys,
                tt_vals,
                nodes,
                stop,
                scratch,
                mpc,
                mpc_t,
            )
        else:
            v = -_search(
                np_,
                no,
                depth - 1,
                -alpha - 1,
                -alpha,
                false_,
                ply + 1,
                weights,
                tt_keys,
                tt_vals,
                nodes,
                stop,
                scratch,
                mpc,
                mpc_t,
            )
            if alpha < v < beta:
                v = -_search(
                    np_,
                    no,
                    depth - 1,
                    -beta,
                    -v,
                    false_,
                    ply + 1,
                    weights,
                    tt_keys,
                    tt_vals,
                    nodes,
                    stop,
                    scratch,
                    mpc,
                    mpc_t,
                )
        if stop[0]:
            return 0
        if v > best:
            best = v
            best_sq = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    # Depth-preferred replacement keeps the expensive entries near the root.
    same = tt_keys[slot, 0] == p and tt_keys[slot, 1] == o
    if same or tt_vals[slot, TT_DEPTH] <= depth:
        if not same or tt_vals[slot, TT_DEPTH] != depth:
            tt_vals[slot, TT_LOWER] = -INF
            tt_vals[slot, TT_UPPER] = INF
        tt_keys[slot, 0] = p
        tt_keys[slot, 1] = o
        tt_vals[slot, TT_DEPTH] = depth
        if best >= beta:
            tt_vals[slot, TT_LOWER] = best
        elif best <= alpha0:
            tt_vals[slot, TT_UPPER] = best
        else:
            tt_vals[slot, TT_LOWER] = best
            tt_vals[slot, TT_UPPER] = best
        tt_vals[slot, TT_MOVE] = best_sq
    return best


@njit(cache=True, nogil=True)  # nogil: a timer thread may raise the stop flag meanwhile
def search_root_move(
    p: np.uint64,
    o: np.uint64,
    sq: int,
    depth: int,
    alpha: int,
    beta: int,
    weights: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    nodes: np.ndarray,
    stop: np.ndarray,
    scratch: np.ndarray,
    mpc: np.ndarray,
    mpc_t: float,
) -> int:
    """Score (mover's side, ``SCALE`` per disc) of playing ``sq`` (-1: pass) and searching ``depth - 1`` more plies
    (selectively when ``mpc_t`` > 0, see :func:`_search`)."""
    # Typed (non-literal) flags: a literal argument would make numba compile an
    # extra, uncacheable specialisation of the recursive function.
    false_ = nodes[0] < 0
    true_ = not false_
    one = true_ + 0  # ply 1, typed int
    if sq < 0:
        return -_search(
            o,
            p,
            depth - 1,
            -beta,
            -alpha,
            true_,
            one,
            weights,
            tt_keys,
            tt_vals,
            nodes,
            stop,
            scratch,
            mpc,
            mpc_t,
        )
    f = flips(p, o, sq)
    return -_search(
        o ^ f,
        p ^ f ^ (ONE << U64(sq)),
        depth - 1,
        -beta,
        -alpha,
        false_,
        one,
        weights,
        tt_keys,
        tt_vals,
        nodes,
        stop,
        scratch,
        mpc,
        mpc_t,
    )


@njit(cache=True)
def tt_best_move(p: np.uint64, o: np.uint64, tt_keys: np.ndarray, tt_vals: np.ndarray) -> int:
    """The table's best move for (p, o), or -1."""
    slot = _slot(p, o, tt_keys.shape[0])
    if tt_keys[slot, 0] == p and tt_keys[slot, 1] == o:
        return int(tt_vals[slot, TT_MOVE])
    return -1
