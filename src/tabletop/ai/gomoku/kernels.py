"""The engine's numba kernels: the board tuple, the scan box, putting and taking back stones,
Renju's forbidden points judged exactly, the VCF and VCT solvers and the alpha-beta search.

They live in one module on purpose: numba 0.68 crashed (a segmentation fault, or an LLVM
"symbol not found") when a cached kernel of one module called a recursive kernel of another
and was loaded from numba's cache, so every recursive kernel and everything that calls one
is here.  :mod:`tabletop.ai.gomoku.threats` and :mod:`tabletop.ai.gomoku.search` set the
kernels up and read their results.

Every kernel of :mod:`tabletop.ai.gomoku.threats` and :mod:`tabletop.ai.gomoku.search`
takes the engine position as one tuple ``B`` (:func:`board_tuple`: its arrays, then its
scratch rows) and a *box*: the rows
and columns (padded coordinates) within two of a stone, the only places a candidate,
a four or a five point can be.  :func:`put` / :func:`take` keep the patterns, the
Zobrist hash and the box in step, saving what they change in one row of a ``saved``
array, so a kernel's line of play costs no recomputation on the way back.

:func:`forbidden` is Renju's rule for Black as :mod:`tabletop.games.renju` states it
(exactly five is never forbidden; overline; two fours; two real threes, a three being
real when its straight-four point is itself not forbidden, judged recursively), ported
to the engine's padded board: the cell values and the walls mean the same there, only
the stride differs.  :func:`is_foul` first asks the line patterns whether a foul is
possible at all (a four, five or overline pattern on some line, or threes on two lines)
and runs the exact judgement only then.

This module reads the clock only to stop at the deadline it is handed (every 256 threat nodes,
every 1,024 search nodes), and must not know about rules boards and moves.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba import njit, objmode

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.jit import njit_plain

__all__ = ["ABORTED", "INF", "LINE", "MAXPLY", "MAX_NODES", "NODES", "ROOT_WIDTH", "SAVED", "STACK", "TNODES", "VCF_DEPTH", "WIN",
           "board_tuple", "forbidden", "initial_box", "is_foul", "negamax", "put", "root_moves", "take", "vcf_kernel",
           "vct_kernel"]

SAVED = 140  # a saved row: 128 pattern/score entries, the four totals, the box (4), the hash (1)
LINE = 256  # the longest line a threat kernel writes

# ctl: the kernels' counters and limits (main-search nodes, their limit, the abort flag, threat nodes)
NODES, MAX_NODES, ABORTED, TNODES = 0, 1, 2, 3

WIN = 1_000_000
INF = 2 * WIN
_EXACT, _LOWER, _UPPER = 0, 1, 2
MAXPLY = 96  # deeper lines are scored statically (forced blocks and fours do not use up depth)
EXTEND_PLIES = 24  # a four extends the search only this close to the root
ROOT_WIDTH = 24
VCF_DEPTH = 10  # fours in a VCF check inside the search
FUTILITY_MARGIN = 600  # evaluation units (0.4 of log-odds): a quiet move at the frontier gains less
LMR_AFTER = 3  # calm moves (see negamax) after the first three are reduced by one ply...
LMR_MORE_AFTER = 8  # ... and after the first eight by two
VCF_THREATS = 6  # quiet moves a VCT attacker node tries for the VCF they may threaten

TAPER_PLY = 4  # with a taper (opts), nodes this far from the root or farther consider fewer candidates
TAPER2_PLY = 5  # with a second taper (opts), nodes this far or farther consider fewer still

# opts: the search's settings (candidate width, pruning on, threat nodes per VCF check, table age,
# fours extended, candidates fewer from TAPER_PLY on, fewer still from TAPER2_PLY on, killer moves on)
_OPT_WIDTH, _OPT_PRUNE, _OPT_VCF, _OPT_AGE, _OPT_EXTEND, _OPT_TAPER, _OPT_TAPER2, _OPT_KILLERS = 0, 1, 2, 3, 4, 5, 6, 7
KILLERS = 2  # killer moves remembered a ply (``killers``' columns)

_NONE, _OVERLINE, _DOUBLE_FOUR, _DOUBLE_THREE = 0, 1, 2, 3
STACK = 128  # columns of the position's scratch rows (``B[12]``): a VCF's levels, at most STACK - 1

# Every kernel but initial_box is compiled without numba's reference counting (``_nrt=False``,
# numba's switch for code that allocates nothing): with it, each call that passes arrays
# (``B`` holds fourteen) pays an atomic increment and decrement per array, which took more
# time than the work of putting a stone.  So these kernels allocate nothing: their scratch
# rows come in ``B[12]`` (a VCF's stack, its five points, a VCT node's).
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def kernel(func: _Fn) -> _Fn:
    """``func`` compiled as described above (cached)."""
    # ``_nrt`` is numba's own option, absent from its type stubs
    options: dict[str, Any] = {"cache": True, "_nrt": False}
    return njit_plain(**options)(func)


def board_tuple(pos: object) -> tuple[object, ...]:
    """The tuple every kernel takes for a :class:`~tabletop.ai.gomoku.position.Position`."""
    return (pos.cells, pos.pat, pos.codes, pos.pscore, pos.total, pos.near, pos.tables,  # type: ignore[attr-defined]
            pos.kinds,  # type: ignore[attr-defined]
            pos.dirs, pos.double_fours, pos.stride, pos.renju, pos.stack, pos.weights)  # type: ignore[attr-defined]


@njit(cache=True)  # allocates: called from Python only
def initial_box(near: np.ndarray, stride: int) -> np.ndarray:
    """Rows and columns (first, last) of the points within two of a stone; an empty box
    (first > last) when there is no stone."""
    box = np.array([1 << 30, -1, 1 << 30, -1], dtype=np.int64)
    for q in range(near.shape[0]):
        if near[q] > 0:
            r = q // stride
            c = q - r * stride
            box[0] = min(box[0], r)
            box[1] = max(box[1], r)
            box[2] = min(box[2], c)
            box[3] = max(box[3], c)
    return box


@kernel
def put(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, p: int, color: int, saved: np.ndarray) -> int:  # type: ignore[type-arg]
    """Put a ``color`` stone on ``p`` (as :func:`tabletop.ai.gomoku.patterns.make_move` does),
    saving in ``saved`` what :func:`take` restores; returns the new hash.

    The engine's hottest code: one flat loop over the empty points of the stone's lines, with no
    call (a call passing the arrays costs as much as the loop's work on a point): a changed
    pattern's point score is read from :data:`~tabletop.ai.gomoku.patterns.POINT_SCORES` by the
    point's new evaluation code.  ``saved`` holds four entries a point (the patterns and scores of
    both colours), then the totals, the box and the hash.

    Only empty points are updated.  The kernels read the codes, patterns and scores of empty
    points only, and take back stones in the reverse order: a stone's point keeps what it had when
    the stone was put (stale while it stands) until the stone is taken back, and then the points
    around it are what they were.  :meth:`Position.play` keeps every point (its boards are
    compared with a fresh one's); a kernel's line of play leaves the arrays exactly as it found
    them."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    for j in range(4):
        saved[128 + j] = total[j]
        saved[132 + j] = box[j]
    saved[136] = h
    r = p // stride
    c = p - r * stride
    # the box may reach into the wall (at most two cells of the four): scans skip non-empty cells
    box[0] = min(box[0], r - 2)
    box[1] = max(box[1], r + 2)
    box[2] = min(box[2], c - 2)
    box[3] = max(box[3], c + 2)
    cells[p] = color
    P.add_point_value(total, weights, 0, P.eval_code(pat, 0, p), -1)
    P.add_point_value(total, weights, 1, P.eval_code(pat, 1, p), -1)
    own = 1 if color == P.BLACK else 2
    other = 3 - own
    for d in range(4):
        step = dirs[d]
        for i in range(8):
            q = p + P.LINE_OFFSETS[i] * step
            if cells[q] != P.EMPTY:
                continue  # a wall, or a stone: see below
            at = 4 * (8 * d + i)
            w = P.LINE_WEIGHTS[i]
            for c in range(2):
                code = codes[c, q, d] + w * (own if c == 0 else other)
                codes[c, q, d] = code
                t = tables[kinds[c], code]
                was = pat[c, q, d]
                saved[at + c] = was
                saved[at + 2 + c] = pscore[c, q]
                if was != t:
                    e = P.eval_code(pat, c, q)
                    e2 = e + (t - was) * P.EVAL_DIGIT[d]
                    total[2 * c] += weights[c, 0, e2] - weights[c, 0, e]
                    total[2 * c + 1] += weights[c, 1, e2] - weights[c, 1, e]
                    pat[c, q, d] = t
                    pscore[c, q] = P.POINT_SCORES[e2]
    for dr in range(-2, 3):
        base = p + dr * stride
        for dc in range(-2, 3):
            near[base + dc] += 1
    return int(h ^ zkeys[color - 1, p])


@kernel
def take(B: tuple, box: np.ndarray, p: int, saved: np.ndarray) -> int:  # type: ignore[type-arg]
    """Take back the stone :func:`put` put on ``p``; returns the hash before it."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    own = 1 if cells[p] == P.BLACK else 2
    other = 3 - own
    cells[p] = P.EMPTY
    for d in range(4):
        step = dirs[d]
        for i in range(8):
            q = p + P.LINE_OFFSETS[i] * step
            if cells[q] != P.EMPTY:
                continue  # the points put skipped: the same stones stand as when it ran
            at = 4 * (8 * d + i)
            w = P.LINE_WEIGHTS[i]
            codes[0, q, d] -= w * own
            codes[1, q, d] -= w * other
            pat[0, q, d] = saved[at]
            pat[1, q, d] = saved[at + 1]
            pscore[0, q] = saved[at + 2]
            pscore[1, q] = saved[at + 3]
    for j in range(4):
        total[j] = saved[128 + j]
        box[j] = saved[132 + j]
    for dr in range(-2, 3):
        base = p + dr * stride
        for dc in range(-2, 3):
            near[base + dc] -= 1
    return int(saved[136])


# -- Renju's forbidden points, as tabletop.games.renju judges them ---------------------------


@kernel
def _run(cells: np.ndarray, q: int, d: int) -> int:
    """Length of Black's run through empty ``q`` along ``d`` if Black played there."""
    n = 1
    i = q + d
    while cells[i] == P.BLACK:
        n += 1
        i += d
    i = q - d
    while cells[i] == P.BLACK:
        n += 1
        i -= d
    return n


@kernel
def _makes_five(cells: np.ndarray, q: int, dirs: np.ndarray) -> bool:
    for k in range(4):  # noqa: SIM110 - numba compiles the plain loop
        if _run(cells, q, dirs[k]) == 5:
            return True
    return False


@kernel
def _is_overline(cells: np.ndarray, q: int, dirs: np.ndarray) -> bool:
    over = False
    for k in range(4):
        n = _run(cells, q, dirs[k])
        if n == 5:
            return False
        if n >= 6:
            over = True
    return over


@kernel
def _fours_on_line(cells: np.ndarray, p: int, d: int) -> int:
    run = 1
    left = p - d
    while cells[left] == P.BLACK:
        run += 1
        left -= d
    right = p + d
    while cells[right] == P.BLACK:
        run += 1
        right += d
    five_left = cells[left] == P.EMPTY and _run(cells, left, d) == 5
    five_right = cells[right] == P.EMPTY and _run(cells, right, d) == 5
    if five_left and five_right:
        return 1 if run == 4 else 2
    return int(five_left) + int(five_right)


@kernel
def _is_double_four(cells: np.ndarray, p: int, dirs: np.ndarray) -> bool:
    cells[p] = P.BLACK
    fours = 0
    for k in range(4):
        fours += _fours_on_line(cells, p, dirs[k])
        if fours >= 2:
            break
    cells[p] = P.EMPTY
    return fours >= 2


@kernel
def _is_straight_four_point(cells: np.ndarray, q: int, d: int, dirs: np.ndarray) -> bool:
    if _makes_five(cells, q, dirs):
        return False
    left = q - d
    run = 1
    while cells[left] == P.BLACK:
        run += 1
        left -= d
    right = q + d
    while cells[right] == P.BLACK:
        run += 1
        right += d
    if run != 4 or cells[left] != P.EMPTY or cells[right] != P.EMPTY:
        return False
    cells[q] = P.BLACK
    ok = _run(cells, left, d) == 5 and _run(cells, right, d) == 5
    cells[q] = P.EMPTY
    return ok


@kernel
def _could_be_three(cells: np.ndarray, p: int, d: int) -> bool:
    count = 0
    for s in range(2):
        step = d if s == 0 else -d
        i = p + step
        for _ in range(4):
            v = cells[i]
            if v == P.BLACK:
                count += 1
            elif v != P.EMPTY:
                break
            i += step
    return count >= 2


@kernel
def _simple_foul(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    """-1 when Black on empty ``p`` makes five (never a foul), 1 overline, 2 double-four,
    else 0 (a double-three is left to the caller)."""
    if cells[p] != P.EMPTY or _makes_five(cells, p, dirs):
        return -1
    if _is_overline(cells, p, dirs):
        return _OVERLINE
    if _is_double_four(cells, p, dirs):
        return _DOUBLE_FOUR
    return _NONE


@kernel
def _three_lines(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    """How many lines through empty ``p`` may be threes once Black is there."""
    n = 0
    for k in range(4):
        n += _could_be_three(cells, p, dirs[k])
    return n


@kernel
def _four_point(cells: np.ndarray, p: int, d: int, s: int, dirs: np.ndarray) -> int:
    """With Black on ``p``: the point past Black's run through ``p`` along ``-d`` (``s`` 0) or
    ``d`` (``s`` 1) when it is empty and makes a straight four there, else -1."""
    step = -d if s == 0 else d
    q = p + step
    while cells[q] == P.BLACK:
        q += step
    return q if cells[q] == P.EMPTY and _is_straight_four_point(cells, q, d, dirs) else -1


# The recursion of Renju's three rule, one level a function (numba's cache cannot hold a
# recursive kernel that other kernels call): a line through ``p`` that may be a three is a
# real three when one of its straight-four points is not itself forbidden, as the next level
# judges it; two real threes make a double-three.  Each level restores ``cells``.


@kernel
def _forbidden_last(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    """The deepest level: a three's straight-four point counts as allowed unless it is an
    overline or a double-four (no position met in play needs more)."""
    k = _simple_foul(cells, p, dirs)
    if k != _NONE:
        return max(k, 0)
    if _three_lines(cells, p, dirs) < 2:
        return _NONE
    cells[p] = P.BLACK
    threes = 0
    for i in range(4):
        d = dirs[i]
        cells[p] = P.EMPTY
        could = _could_be_three(cells, p, d)
        cells[p] = P.BLACK
        if could:
            for s in range(2):
                q = _four_point(cells, p, d, s, dirs)
                if q >= 0 and max(_simple_foul(cells, q, dirs), 0) == _NONE:
                    threes += 1
                    break
    cells[p] = P.EMPTY
    return _DOUBLE_THREE if threes >= 2 else _NONE


@kernel
def _forbidden3(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    k = _simple_foul(cells, p, dirs)
    if k != _NONE:
        return max(k, 0)
    if _three_lines(cells, p, dirs) < 2:
        return _NONE
    cells[p] = P.BLACK
    threes = 0
    for i in range(4):
        d = dirs[i]
        cells[p] = P.EMPTY
        could = _could_be_three(cells, p, d)
        cells[p] = P.BLACK
        if could:
            for s in range(2):
                q = _four_point(cells, p, d, s, dirs)
                if q >= 0 and _forbidden_last(cells, q, dirs) == _NONE:
                    threes += 1
                    break
    cells[p] = P.EMPTY
    return _DOUBLE_THREE if threes >= 2 else _NONE


@kernel
def _forbidden2(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    k = _simple_foul(cells, p, dirs)
    if k != _NONE:
        return max(k, 0)
    if _three_lines(cells, p, dirs) < 2:
        return _NONE
    cells[p] = P.BLACK
    threes = 0
    for i in range(4):
        d = dirs[i]
        cells[p] = P.EMPTY
        could = _could_be_three(cells, p, d)
        cells[p] = P.BLACK
        if could:
            for s in range(2):
                q = _four_point(cells, p, d, s, dirs)
                if q >= 0 and _forbidden3(cells, q, dirs) == _NONE:
                    threes += 1
                    break
    cells[p] = P.EMPTY
    return _DOUBLE_THREE if threes >= 2 else _NONE


@kernel
def forbidden(cells: np.ndarray, p: int, dirs: np.ndarray) -> int:
    """0, or the kind of foul a Black stone on empty ``p`` would be (1 overline,
    2 double-four, 3 double-three).  ``cells`` is scratch space, restored on return.

    A three is real when one of its straight-four points is itself not forbidden: that
    judgement recurses through :func:`_forbidden2`, :func:`_forbidden3` and
    :func:`_forbidden_last` (four levels)."""
    k = _simple_foul(cells, p, dirs)
    if k != _NONE:
        return max(k, 0)
    if _three_lines(cells, p, dirs) < 2:
        return _NONE
    cells[p] = P.BLACK
    threes = 0
    for i in range(4):
        d = dirs[i]
        cells[p] = P.EMPTY
        could = _could_be_three(cells, p, d)
        cells[p] = P.BLACK
        if could:
            for s in range(2):
                q = _four_point(cells, p, d, s, dirs)
                if q >= 0 and _forbidden2(cells, q, dirs) == _NONE:
                    threes += 1
                    break
    cells[p] = P.EMPTY
    return _DOUBLE_THREE if threes >= 2 else _NONE


@kernel
def is_foul(B: tuple, color: int, p: int) -> bool:  # type: ignore[type-arg]
    """Is ``p`` forbidden to ``color`` (only Black, only under Renju)?"""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    if not renju or color != 1:
        return False
    # the patterns rule a foul out cheaply: without a four, a five-looking run or an
    # overline on some line, a foul needs open threes on two lines
    strong = 0
    maybe = False
    for d in range(4):
        t = pat[0, p, d]
        if t >= P.BLOCK4:
            maybe = True  # a four may be two on one line, a five-looking run an overline
        elif t == P.FLEX3:
            strong += 1
    if strong < 2 and not maybe:
        return False
    return forbidden(cells, p, dirs) != _NONE


# -- threat-space search (VCF, VCT) ---------------------------------------------------------


@kernel
def _insert(out: np.ndarray, keys: np.ndarray, n: int, limit: int, q: int, k: int) -> int:
    """Put point ``q`` with sort key ``k`` into ``out[:n]`` (kept in key order, a new point after
    its equals), dropping the last when ``limit`` are there (-1: no limit); returns the new count."""
    if n == limit:
        if k >= keys[n - 1]:
            return n
        n -= 1
    i = n
    while i > 0 and keys[i - 1] > k:
        keys[i] = keys[i - 1]
        out[i] = out[i - 1]
        i -= 1
    keys[i] = k
    out[i] = q
    return n + 1


@kernel
def _tick(ctl: np.ndarray, deadline: float) -> bool:
    """Count a threat node; False (and the abort flag set) when the budget is spent."""
    ctl[TNODES] += 1
    if ctl[TNODES] > ctl[MAX_NODES]:
        ctl[ABORTED] = 1
        return False
    if (ctl[TNODES] & 255) == 0:
        with objmode(now="float64"):
            now = time.perf_counter()
        if now > deadline:
            ctl[ABORTED] = 1
            return False
    return True


@kernel
def _fives_after(B: tuple, c: int, m: int, out: np.ndarray) -> int:  # type: ignore[type-arg]
    """Colour index ``c``'s five points on the four lines through ``m`` (its stone just put,
    where it had none before), in board order, at most eight; returns how many."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    n = 0
    for d in range(4):
        step = dirs[d]
        for k in range(-4, 5):
            q = m + k * step
            if k != 0 and cells[q] == P.EMPTY and pscore[c, q] >= P.FIVE_SCORE and n < 8:
                i = n
                while i > 0 and out[i - 1] > q:
                    out[i] = out[i - 1]
                    i -= 1
                out[i] = q
                n += 1
    return n


@kernel
def _open_four_end(B: tuple, defender: int, fives: np.ndarray, nf: int, line: np.ndarray, at: int) -> None:  # type: ignore[type-arg]
    """Write the defender's block and the attacker's five against ``nf`` >= 2 five points:
    the block is one the defender may play, else 'any move' (-1)."""
    for i in range(nf):
        if not is_foul(B, defender, fives[i]):
            line[at] = fives[i]
            line[at + 1] = fives[1 - i] if i < 2 else fives[0]
            return
    line[at] = -1
    line[at + 1] = fives[0]


@kernel
def _vcf_node(B: tuple, box: np.ndarray, me: int, depth: int, h: int, fail: np.ndarray,  # type: ignore[type-arg]
              row: np.ndarray, keys: np.ndarray) -> tuple[int, int, int, bool]:
    """One VCF node, ``me`` to move: (a five point of ours or -1, how many four points of ours
    went to ``row`` best first, the opponent's lone five point or -1, whether the node fails
    at once: no depth left, failed before at this depth, or two opponent five points)."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    c = me - 1
    oc = 2 - me
    opp_fives = 0
    opp_five = -1
    n = 0
    for r in range(box[0], box[1] + 1):
        base = r * stride
        for q in range(base + box[2], base + box[3] + 1):
            if cells[q] != P.EMPTY:
                continue
            mine = pscore[c, q]
            if mine < P.FOUR_SCORE and pscore[oc, q] < P.FIVE_SCORE:
                continue  # most points: no four of ours, no five of theirs
            if mine >= P.FIVE_SCORE:
                return q, 0, -1, False
            if pscore[oc, q] >= P.FIVE_SCORE:
                opp_fives += 1
                if opp_five < 0:
                    opp_five = q
            if mine >= P.FOUR_SCORE and P.best_pattern(pat, c, q) >= P.BLOCK4:
                n = _insert(row, keys, n, -1, q, -mine)
    if depth <= 0:
        return -1, 0, -1, True
    key = h ^ me
    slot = key & (fail.shape[1] - 1)
    if fail[0, slot] == key and fail[1, slot] >= depth:
        return -1, 0, -1, True
    return -1, n, opp_five, opp_fives >= 2


@kernel
def vcf_room(lines: np.ndarray, saved: np.ndarray, mv: np.ndarray, ky: np.ndarray, ply: int, levels: int) -> int:
    """The deepest VCF (in fours) whose scratch rows from ``ply`` on fit the arrays (see
    :func:`vcf_kernel`); -1 when not even row ``ply`` is there."""
    rows: int = min(lines.shape[0], saved.shape[0] + 1, mv.shape[0], ky.shape[0])
    if ply < 0 or ply >= rows or ply >= saved.shape[0]:
        return -1
    room: int = min((rows - 1 - ply) // 2, (lines.shape[1] - 1) // 2, levels - 1)
    return room


@kernel
def vcf_kernel(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, me: int, depth: int,  # type: ignore[type-arg]
               ctl: np.ndarray, deadline: float, lines: np.ndarray, ply: int, fail: np.ndarray,
               saved: np.ndarray, mv: np.ndarray, ky: np.ndarray) -> int:
    """``me``'s VCF (``me`` to move) of at most ``depth`` fours: its length, written to
    ``lines[ply]``, or 0.  Rows ``ply`` and deeper of ``saved``, ``mv``, ``ky`` are scratch.

    A depth-first search over an explicit stack (level ``L``: our four and the forced block
    after ``L`` pairs), not a recursion, so that the search's kernels can call it.

    The depth is cut to what the arrays hold: level ``L`` scans into row ``ply + 2L`` of ``mv``
    and ``ky`` (``L`` up to ``depth``), saves into rows up to ``ply + 2 * depth - 1`` of ``saved``
    and writes ``lines[ply, :2 * depth + 1]``; the stack keeps ``depth + 1`` levels."""
    stack = B[12]
    room = vcf_room(lines, saved, mv, ky, ply, stack.shape[1])
    if room < 0:
        return 0
    depth = min(depth, room)
    c = me - 1
    opp = 3 - me
    out = lines[ply]
    count = stack[0]
    index = stack[1]
    hashes = stack[2]
    lone = stack[3]
    fours = stack[4]
    blocks = stack[5]
    fives = stack[6]
    level = 0
    entering = True
    found = 0
    while True:
        if entering:
            entering = False
            row = 2 * level + ply
            five, n, opp_five, stop = _vcf_node(B, box, me, depth - level, h, fail, mv[row], ky[row])
            if five >= 0:
                out[2 * level] = five
                found = 2 * level + 1
                break
            count[level] = 0 if stop else n
            index[level] = 0
            hashes[level] = h
            lone[level] = opp_five
            if stop:
                index[level] = -1  # no failure to remember: the node failed without a search
        # the next four of this level, or back up when none is left
        if index[level] < 0 or index[level] >= count[level]:
            if index[level] >= 0:
                key = hashes[level] ^ me
                slot = key & (fail.shape[1] - 1)
                fail[0, slot] = key
                fail[1, slot] = depth - level
            if level == 0:
                return 0
            level -= 1
            row = 2 * level + ply
            take(B, box, blocks[level], saved[row + 1])
            take(B, box, fours[level], saved[row])
            continue
        row = 2 * level + ply
        m = mv[row, index[level]]
        index[level] += 1
        if lone[level] >= 0 and m != lone[level]:
            continue
        if is_foul(B, me, m):
            continue
        if not _tick(ctl, deadline):
            break
        h2 = put(B, box, zkeys, hashes[level], m, me, saved[row])
        nf = _fives_after(B, c, m, fives)
        if nf >= 2:
            out[2 * level] = m
            _open_four_end(B, opp, fives, nf, out, 2 * level + 1)
            take(B, box, m, saved[row])
            found = 2 * level + 3
            break
        if nf == 1:
            block = fives[0]
            if is_foul(B, opp, block):
                # Black cannot block on a foul under Renju: any reply, then the five
                out[2 * level] = m
                out[2 * level + 1] = -1
                out[2 * level + 2] = block
                take(B, box, m, saved[row])
                found = 2 * level + 3
                break
            h = put(B, box, zkeys, h2, block, opp, saved[row + 1])
            fours[level] = m
            blocks[level] = block
            level += 1
            entering = True
            continue
        take(B, box, m, saved[row])
    # a five or a win found at ``level`` (or the budget ran out): write the pairs above it
    # and take back every stone still on the board
    while level > 0:
        level -= 1
        row = 2 * level + ply
        out[2 * level] = fours[level]
        out[2 * level + 1] = blocks[level]
        take(B, box, blocks[level], saved[row + 1])
        take(B, box, fours[level], saved[row])
    return found if ctl[ABORTED] == 0 else 0


@kernel
def _prepend(out: np.ndarray, m: int, child: np.ndarray, rest: int) -> int:
    """Write ``m`` then the ``rest`` points of ``child`` to ``out``: the new length, or 0 when
    ``out`` cannot hold it."""
    if rest + 1 > out.shape[0] or rest > child.shape[0]:
        return 0
    out[0] = m
    for j in range(rest):
        out[1 + j] = child[j]
    return rest + 1


@kernel
def vct_kernel(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, att: int, defending: bool,  # type: ignore[type-arg]
               depth: int, vcf_depth: int, ctl: np.ndarray, deadline: float, lines: np.ndarray, ply: int,
               vcf_fail: np.ndarray, vct_fail: np.ndarray, saved: np.ndarray, mv: np.ndarray, ky: np.ndarray) -> int:
    """``att``'s VCT of at most ``depth`` threats (fours or open threes), with a VCF of up to
    ``vcf_depth`` fours at every attacker node.  ``defending``: the defender is to move
    against the attacker's threats.  Returns the line's length (in ``lines[ply]``) or 0."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    # the recursive calls pass these run-time booleans, not the constants: a constant would be
    # typed as a literal, giving the kernel two signatures that numba's cache cannot reload
    yes = ply >= 0
    no = ply < 0
    # a node uses row ``ply`` of each scratch array and its children the rows below: a line of
    # threats longer than the arrays hold (a defender's fours each add two plies without using
    # up depth) is not followed, and counts as not found
    if ply < 0 or ply >= min(lines.shape[0], saved.shape[0], mv.shape[0], ky.shape[0]):
        return 0
    row = mv[ply]
    keys = ky[ply]
    out = lines[ply]
    ac = att - 1
    dfd = 3 - att
    dc = dfd - 1
    if not defending:
        opp_fives = 0
        opp_five = -1
        for r in range(box[0], box[1] + 1):
            base = r * stride
            for q in range(base + box[2], base + box[3] + 1):
                if cells[q] != P.EMPTY:
                    continue
                if pscore[ac, q] >= P.FIVE_SCORE:
                    out[0] = q
                    return 1
                if pscore[dc, q] >= P.FIVE_SCORE:
                    opp_fives += 1
                    if opp_five < 0:
                        opp_five = q
        if opp_fives >= 2:
            return 0
        if opp_fives == 1:
            # a forced block; the defender then moves again against our standing threats
            if is_foul(B, att, opp_five):
                return 0
            if not _tick(ctl, deadline):
                return 0
            h2 = put(B, box, zkeys, h, opp_five, att, saved[ply])
            rest = vct_kernel(B, box, zkeys, h2, att, yes, depth, vcf_depth, ctl, deadline, lines, ply + 1,
                              vcf_fail, vct_fail, saved, mv, ky)
            take(B, box, opp_five, saved[ply])
            if rest == 0 or ctl[ABORTED] != 0:
                return 0
            return _prepend(out, opp_five, lines[ply + 1], rest)
        k = vcf_kernel(B, box, zkeys, h, att, vcf_depth, ctl, deadline, lines, ply, vcf_fail, saved, mv, ky)
        if k > 0 or ctl[ABORTED] != 0:
            return k if ctl[ABORTED] == 0 else 0
        if depth <= 0:
            return 0
        key = h ^ att
        slot = key & (vct_fail.shape[1] - 1)
        if vct_fail[0, slot] == key and vct_fail[1, slot] >= depth:
            return 0
        # threes only make sense when the defender has no open three of its own:
        # otherwise it answers a three with an open four
        defender_threat = False
        n = 0
        for r in range(box[0], box[1] + 1):
            base = r * stride
            for q in range(base + box[2], base + box[3] + 1):
                if cells[q] == P.EMPTY and P.best_pattern(pat, dc, q) >= P.FLEX4 and not is_foul(B, dfd, q):
                    defender_threat = True
        # fours first, then threes, each in board order; then by attack value (stable)
        for r in range(box[0], box[1] + 1):
            base = r * stride
            for q in range(base + box[2], base + box[3] + 1):
                if cells[q] == P.EMPTY and P.best_pattern(pat, ac, q) >= P.BLOCK4 and not is_foul(B, att, q):
                    n = _insert(row, keys, n, -1, q, 0)
        if not defender_threat:
            for r in range(box[0], box[1] + 1):
                base = r * stride
                for q in range(base + box[2], base + box[3] + 1):
                    if (cells[q] == P.EMPTY and near[q] > 0 and P.best_pattern(pat, ac, q) == P.FLEX3
                            and not is_foul(B, att, q)):
                        row[n] = q
                        n += 1
        for i in range(n):
            keys[i] = -pscore[ac, row[i]]
        # a stable insertion sort of the n moves by key
        for i in range(1, n):
            q = row[i]
            k0 = keys[i]
            j = i
            while j > 0 and keys[j - 1] > k0:
                keys[j] = keys[j - 1]
                row[j] = row[j - 1]
                j -= 1
            keys[j] = k0
            row[j] = q
        # then quieter moves that may threaten a VCF (a closed three or an open two made), the
        # best few by attack value: the defender must stop that VCF (see the defender's node)
        quiet = 0
        for r in range(box[0], box[1] + 1):
            base = r * stride
            for q in range(base + box[2], base + box[3] + 1):
                if cells[q] != P.EMPTY or near[q] == 0:
                    continue
                bq = P.best_pattern(pat, ac, q)
                if (bq == P.BLOCK3 or bq == P.FLEX2) and not is_foul(B, att, q):
                    quiet = _insert(row[n:], keys[n:], quiet, VCF_THREATS, q, -pscore[ac, q])
        n += quiet
        for i in range(n):
            m = row[i]
            if not _tick(ctl, deadline):
                return 0
            h2 = put(B, box, zkeys, h, m, att, saved[ply])
            rest = vct_kernel(B, box, zkeys, h2, att, yes, depth - 1, vcf_depth, ctl, deadline, lines, ply + 1,
                              vcf_fail, vct_fail, saved, mv, ky)
            take(B, box, m, saved[ply])
            if ctl[ABORTED] != 0:
                return 0
            if rest > 0:
                k = _prepend(out, m, lines[ply + 1], rest)
                if k > 0:
                    return k
        vct_fail[0, slot] = key
        vct_fail[1, slot] = depth
        return 0
    # the defender to move against the attacker's threats
    att_fives = stack[7]  # read only before this node recurses
    na = 0
    my_five = False
    att_threat = -1
    my_threat = False
    n = 0
    for r in range(box[0], box[1] + 1):
        base = r * stride
        for q in range(base + box[2], base + box[3] + 1):
            if cells[q] != P.EMPTY or (pscore[ac, q] < P.FOUR_SCORE and pscore[dc, q] < P.FOUR_SCORE):
                continue  # neither side has a four or better here
            ba = P.best_pattern(pat, ac, q)
            bd = P.best_pattern(pat, dc, q)
            if ba == P.FIVE and na < 8:
                att_fives[na] = q
                na += 1
            if bd == P.FIVE:
                my_five = True
            if ba >= P.FLEX4 and att_threat < 0 and not is_foul(B, att, q):
                att_threat = q
            if bd >= P.FLEX4 and not my_threat and not is_foul(B, dfd, q):
                my_threat = True
            if (ba >= P.BLOCK4 or bd >= P.BLOCK4) and not is_foul(B, dfd, q):
                n = _insert(row, keys, n, -1, q, -(pscore[dc, q] + pscore[ac, q]))
    if na >= 2:
        if my_five:
            return 0
        _open_four_end(B, dfd, att_fives, na, out, 0)
        return 2
    if my_five:
        return 0  # the defender completes a five first
    if na == 1:
        row[0] = att_fives[0]
        n = 1
        if is_foul(B, dfd, att_fives[0]):
            out[0] = -1
            out[1] = att_fives[0]
            return 2
    else:
        if att_threat >= 0 and my_threat:
            return 0  # the defender's own open four comes before the attacker's three
        if att_threat < 0:
            # no four and no open three: the attacker threatens a VCF or nothing; against a VCF
            # the defences are the points of its line and the fours already listed
            k = vcf_kernel(B, box, zkeys, h, att, vcf_depth, ctl, deadline, lines, ply + 1, vcf_fail, saved, mv, ky)
            if k == 0 or ctl[ABORTED] != 0:
                return 0
            line = lines[ply + 1]
            for j in range(k):
                q = line[j]
                if q < 0 or cells[q] != P.EMPTY or is_foul(B, dfd, q):
                    continue
                listed = False
                for i in range(n):
                    if row[i] == q:
                        listed = True
                        break
                if not listed:
                    n = _insert(row, keys, n, -1, q, -(pscore[dc, q] + pscore[ac, q]))
            att_threat = line[0]
        if n == 0:
            out[0] = -1
            out[1] = att_threat
            return 2
    principal = 0
    for i in range(n):
        d = row[i]
        if not _tick(ctl, deadline):
            return 0
        h2 = put(B, box, zkeys, h, d, dfd, saved[ply])
        rest = vct_kernel(B, box, zkeys, h2, att, no, depth, vcf_depth, ctl, deadline, lines, ply + 1,
                          vcf_fail, vct_fail, saved, mv, ky)
        take(B, box, d, saved[ply])
        if rest == 0 or ctl[ABORTED] != 0:
            return 0
        if principal == 0:
            principal = _prepend(out, d, lines[ply + 1], rest)
            if principal == 0:
                return 0
    return principal



# -- alpha-beta ---------------------------------------------------------------------------


@kernel
def _candidates(B: tuple, box: np.ndarray, me: int, limit: int, out: np.ndarray, keys: np.ndarray) -> int:  # type: ignore[type-arg]
    """The ``limit`` best empty points near stones (attack x5 + defence x4 + neighbours),
    ties in board order, as :meth:`Position.candidates` ranks them; Black's fouls
    dropped under renju after the cut.  Returns how many were written to ``out``."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    opp = 2 - me
    c = me - 1
    n = 0
    for r in range(box[0], box[1] + 1):
        base = r * stride
        for q in range(base + box[2], base + box[3] + 1):
            if cells[q] != P.EMPTY or near[q] == 0:
                continue
            n = _insert(out, keys, n, limit, q, -(pscore[c, q] * 5 + pscore[opp, q] * 4 + near[q]))
    if renju and me == 1:
        m = 0
        for i in range(n):
            if not is_foul(B, 1, out[i]):
                out[m] = out[i]
                m += 1
        n = m
    return n


@kernel
def _scan(B: tuple, box: np.ndarray, me: int, row: np.ndarray) -> tuple[bool, int, int, bool, bool, bool, int, int, int]:  # type: ignore[type-arg]
    """One pass over the box for the side ``me``: whether it has a five point, the opponent's
    five points (how many, the first), whether either side has an open four that is not a
    foul, whether any point is empty; the points where either side makes a four go to
    ``row`` (their count), and how many four points each side has."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    opp = 3 - me
    c = me - 1
    oc = opp - 1
    my_five = False
    opp_fives = 0
    opp_five_point = -1
    my_open_four = False
    opp_open_four = False
    any_empty = False
    nblock = 0
    my_fours = 0
    opp_fours = 0
    for r in range(box[0], box[1] + 1):
        base = r * stride
        for q in range(base + box[2], base + box[3] + 1):
            if cells[q] != P.EMPTY:
                continue
            any_empty = True
            if near[q] == 0 or (pscore[c, q] < P.FOUR_SCORE and pscore[oc, q] < P.FOUR_SCORE):
                continue  # neither side has a four or better here
            bm = P.best_pattern(pat, c, q)
            bo = P.best_pattern(pat, oc, q)
            if bm == P.FIVE:
                my_five = True
            if bo == P.FIVE:
                opp_fives += 1
                if opp_five_point < 0:
                    opp_five_point = q
            if bm >= P.FLEX4 and not my_open_four and not is_foul(B, me, q):
                my_open_four = True
            if bo >= P.FLEX4 and not opp_open_four and not is_foul(B, opp, q):
                opp_open_four = True
            if bo >= P.BLOCK4 or bm >= P.BLOCK4:
                row[nblock] = q
                nblock += 1
                if bm >= P.BLOCK4:
                    my_fours += 1
                if bo >= P.BLOCK4:
                    opp_fours += 1
    if not any_empty:
        # the box is full: a draw only if the whole board is
        for q in range(cells.shape[0]):
            if cells[q] == P.EMPTY:
                any_empty = True
                break
    return my_five, opp_fives, opp_five_point, my_open_four, opp_open_four, any_empty, nblock, my_fours, opp_fours


@kernel
def _vcf_check(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, color: int, ctl: np.ndarray,  # type: ignore[type-arg]
               vctl: np.ndarray, deadline: float, lines: np.ndarray, ply: int, fail: np.ndarray, saved: np.ndarray,
               mv: np.ndarray, ky: np.ndarray, budget: int) -> int:
    """``color``'s VCF here (``color`` moving next), within ``budget`` threat nodes: the
    line's length in ``lines[ply]``, or 0 (none found, or the budget ran out).

    A check that found nothing is remembered in row 2 of ``fail`` (the search's table has three
    rows; the VCF kernel uses the first two), keyed by the position, the colour and the
    budget, so that the check of a position met again (a transposition) costs one look-up: on
    the 20 + 20 middle games 17 % of the checks were repeats, and 81 % of all found nothing.
    A found line is not kept (the caller reads its points) and is searched again."""
    key = h ^ (color | (budget << 2))
    slot = key & (fail.shape[1] - 1)
    if fail[2, slot] == key:
        return 0
    vctl[TNODES] = 0
    vctl[ABORTED] = 0
    vctl[MAX_NODES] = budget
    k = vcf_kernel(B, box, zkeys, h, color, VCF_DEPTH, vctl, deadline, lines, ply, fail, saved, mv, ky)
    ctl[TNODES] += vctl[TNODES]
    if vctl[ABORTED] != 0:
        if vctl[TNODES] <= budget:
            return 0  # stopped by the deadline, not the budget: nothing to remember
        k = 0
    if k == 0:
        fail[2, slot] = key
    return k


@kernel
def _gen(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, me: int, width: int, prune: bool, depth: int,  # type: ignore[type-arg]
         opp_five_point: int, opp_open_four: bool, nblock: int, opp_fours: int, ctl: np.ndarray, vctl: np.ndarray,
         deadline: float, moves: np.ndarray, sortkeys: np.ndarray, saved: np.ndarray, lines: np.ndarray,
         vcf_fail: np.ndarray, opts: np.ndarray, ply: int) -> tuple[int, bool]:
    """The moves worth trying at ``ply`` after :func:`_scan` (which left ``nblock`` four points
    in ``moves[ply]``): the block of the opponent's first five point; against an open four the
    four points, best first; when searching with pruning, ``depth`` plies or more from the horizon,
    and the opponent has a VCF, the points of its line and our own fours; else the ``width`` best candidates.  Never a foul of ours.
    Returns the count and whether the opponent's VCF restricted them."""
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    row = moves[ply]
    keys = sortkeys[ply]
    c = me - 1
    oc = 2 - me
    opp = 3 - me
    if opp_five_point >= 0:
        if is_foul(B, me, opp_five_point):
            return 0, False
        row[0] = opp_five_point
        return 1, False
    if opp_open_four:
        n = 0
        for j in range(nblock):
            q = row[j]
            if not is_foul(B, me, q):
                n = _insert(row, keys, n, -1, q, -(pscore[c, q] * 5 + pscore[oc, q] * 4))
        return n, False
    if prune and opp_fours > 0 and depth >= 2 and ply < MAXPLY - 2:
        k = _vcf_check(B, box, zkeys, h, opp, ctl, vctl, deadline, lines, ply + 1, vcf_fail, saved, moves, sortkeys,
                       opts[_OPT_VCF])
        if k > 0:
            # the defences: the points of the opponent's line and our own fours
            line = lines[ply + 1]
            n = 0
            for j in range(nblock):
                q = row[j]
                if P.best_pattern(pat, c, q) >= P.BLOCK4 and not is_foul(B, me, q):
                    n = _insert(row, keys, n, -1, q, -(pscore[c, q] * 5 + pscore[oc, q] * 4))
            for j in range(k):
                q = line[j]
                if q < 0 or cells[q] != P.EMPTY or is_foul(B, me, q):
                    continue
                dup = False
                for i in range(n):
                    if row[i] == q:
                        dup = True
                        break
                if not dup:
                    n = _insert(row, keys, n, -1, q, -(pscore[c, q] * 5 + pscore[oc, q] * 4))
            return n, True
    return _candidates(B, box, me, width, row, keys), False


@kernel
def _to_tt(score: int, ply: int) -> int:
    if score >= WIN - 1000:
        return score + ply
    if score <= -(WIN - 1000):
        return score - ply
    return score


@kernel
def _from_tt(score: int, ply: int) -> int:
    if score >= WIN - 1000:
        return score - ply
    if score <= -(WIN - 1000):
        return score + ply
    return score


@kernel
def negamax(B: tuple, box: np.ndarray, zkeys: np.ndarray, tt: tuple, ctl: np.ndarray, vctl: np.ndarray,  # type: ignore[type-arg]
             deadline: float, moves: np.ndarray, sortkeys: np.ndarray, saved: np.ndarray, pv: np.ndarray,
             pvlen: np.ndarray, lines: np.ndarray, vcf_fail: np.ndarray, opts: np.ndarray, killers: np.ndarray,
             turn: int, h: int, depth: int, alpha: int, beta: int, ply: int) -> int:
    cells, pat, codes, pscore, total, near, tables, kinds, dirs, dfours, stride, renju, stack, weights = B
    tt_key, tt_score, tt_depth, tt_flag, tt_move, tt_age = tt
    ctl[NODES] += 1
    if ctl[NODES] > ctl[MAX_NODES]:
        ctl[ABORTED] = 1
        return 0
    if (ctl[NODES] & 1023) == 0:
        with objmode(now="float64"):
            now = time.perf_counter()
        if now > deadline:
            ctl[ABORTED] = 1
            return 0
    pvlen[ply] = 0
    prune = opts[_OPT_PRUNE] != 0
    extend = opts[_OPT_EXTEND] != 0
    me = turn
    opp = 3 - me
    c = me - 1
    oc = opp - 1
    row = moves[ply]
    my_five, opp_fives, opp_five_point, my_open_four, opp_open_four, any_empty, nblock, my_fours, opp_fours = _scan(
        B, box, me, row)
    if my_five:
        return WIN - ply - 1
    if opp_fives >= 2:
        return -(WIN - ply - 2)
    static = P.static_value(total, weights, c)
    if ply >= min(MAXPLY, pv.shape[0], pv.shape[1], pvlen.shape[0], moves.shape[0], saved.shape[0],
                  killers.shape[0]) - 1:
        # the deepest ply the arrays hold, also in a chain of fours and forced blocks (which use
        # up no depth): scored statically, no move tried
        return static
    if opp_fives == 0:
        if my_open_four:
            return WIN - ply - 3
        if depth <= 0 or ply >= MAXPLY - 2:
            if prune and my_fours > 0 and ply < MAXPLY - 2:
                # at the horizon, our own VCF where we have a four to start one (inside the
                # tree the search plays the fours itself)
                k = _vcf_check(B, box, zkeys, h, me, ctl, vctl, deadline, lines, ply + 1, vcf_fail, saved, moves,
                               sortkeys, opts[_OPT_VCF])
                if k > 0:
                    return WIN - ply - k
            return static
    key = h ^ me
    slot = key & (tt_key.shape[0] - 1)
    hint = -1
    if tt_key[slot] == key:
        hint = tt_move[slot]
        e_score = int(tt_score[slot])
        if prune:
            e_score = _from_tt(e_score, ply)
        e_flag = tt_flag[slot]
        usable = e_flag == _EXACT or (e_flag == _LOWER and e_score >= beta) or (e_flag == _UPPER and e_score <= alpha)
        if tt_depth[slot] >= depth and usable:  # ply >= 1: the root loop is in Searcher
            return e_score
    # the moves worth trying (no depth used for the block of a lone five point)
    forced = opp_fives == 1
    width = opts[_OPT_WIDTH]
    if ply >= TAPER_PLY:
        width = max(1, width - opts[_OPT_TAPER])
    if ply >= TAPER2_PLY:
        width = max(1, width - opts[_OPT_TAPER2])
    n, opp_vcf = _gen(B, box, zkeys, h, me, width, prune, depth, opp_five_point, opp_open_four, nblock,
                      opp_fours, ctl, vctl, deadline, moves, sortkeys, saved, lines, vcf_fail, opts, ply)
    if n == 0:
        if not any_empty:
            return 0
        if opp_fives > 0:
            return -(WIN - ply - 2)
        if prune and (opp_open_four or opp_vcf):
            # every answer is a foul of ours (renju): the opponent's threat wins
            return -(WIN - ply - 4)
        return static
    if hint >= 0:
        for j in range(n):
            if row[j] == hint:
                while j > 0:
                    row[j] = row[j - 1]
                    j -= 1
                row[0] = hint
                break
    use_killers = opts[_OPT_KILLERS] != 0
    if use_killers and n > 2:
        # the moves that last cut off a sibling at this ply come next (after the table's move): a
        # refutation of one line often refutes its neighbours, and so they are not the reduced ones
        front = 1 if hint >= 0 and row[0] == hint else 0
        for k in range(KILLERS):
            km = killers[ply, k]
            if km < 0:
                continue
            for j in range(front, n):
                if row[j] == km:
                    while j > front:
                        row[j] = row[j - 1]
                        j -= 1
                    row[front] = km
                    front += 1
                    break
    threatened = forced or opp_open_four or opp_vcf
    futile = (prune and depth == 1 and not threatened and -(WIN - 1000) < alpha < WIN - 1000
              and static + FUTILITY_MARGIN <= alpha)
    best = -INF
    best_move = row[0]
    alpha0 = alpha
    searched = 0
    for i in range(n):
        m = row[i]
        mine = P.best_pattern(pat, c, m)
        theirs = P.best_pattern(pat, oc, m)
        quiet = mine < P.FLEX3 and theirs < P.FLEX3
        # reducible: makes no open three or four and takes no four point of the opponent's
        calm = mine < P.FLEX3 and theirs < P.BLOCK4
        if futile and searched > 0 and quiet:
            continue  # a quiet move at the frontier cannot lift a hopeless static value to alpha
        next_depth = depth if forced else depth - 1
        if extend and ply < EXTEND_PLIES and mine >= P.BLOCK4:
            next_depth = max(next_depth, depth)  # threat extension: a four does not use up depth
        reduce = 0
        if prune and depth >= 3 and searched >= LMR_AFTER and calm and not threatened:
            reduce = 1 if searched < LMR_MORE_AFTER else 2
        h2 = put(B, box, zkeys, h, m, me, saved[ply])
        if searched == 0:
            score = -negamax(B, box, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines,
                              vcf_fail, opts, killers, opp, h2, next_depth, -beta, -alpha, ply + 1)
        else:
            score = -negamax(B, box, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines,
                              vcf_fail, opts, killers, opp, h2, next_depth - reduce, -alpha - 1, -alpha, ply + 1)
            if reduce > 0 and ctl[ABORTED] == 0 and score > alpha:
                # a reduced move that looks better is searched again to its full depth
                score = -negamax(B, box, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines,
                                  vcf_fail, opts, killers, opp, h2, next_depth, -alpha - 1, -alpha, ply + 1)
            if ctl[ABORTED] == 0 and alpha < score < beta:
                score = -negamax(B, box, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines,
                                  vcf_fail, opts, killers, opp, h2, next_depth, -beta, -alpha, ply + 1)
        take(B, box, m, saved[ply])
        searched += 1
        if ctl[ABORTED] != 0:
            return 0
        if score > best:
            best = score
            best_move = m
            pv[ply, ply] = m
            k = pvlen[ply + 1]
            for j in range(k):
                pv[ply, ply + 1 + j] = pv[ply + 1, ply + 1 + j]
            pvlen[ply] = k + 1
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    if use_killers and n > 1 and killers[ply, 0] != m:
                        for k in range(KILLERS - 1, 0, -1):
                            killers[ply, k] = killers[ply, k - 1]
                        killers[ply, 0] = m
                    break
    flag = _EXACT if alpha0 < best < beta else (_LOWER if best >= beta else _UPPER)
    age = opts[_OPT_AGE]
    if not prune or tt_key[slot] == key or tt_age[slot] != age or depth >= tt_depth[slot]:
        tt_key[slot] = key
        tt_score[slot] = _to_tt(best, ply) if prune else best
        tt_depth[slot] = depth
        tt_flag[slot] = flag
        tt_move[slot] = best_move
        tt_age[slot] = age
    return best


@kernel
def root_moves(B: tuple, box: np.ndarray, zkeys: np.ndarray, h: int, me: int, width: int, ctl: np.ndarray,  # type: ignore[type-arg]
                vctl: np.ndarray, moves: np.ndarray, sortkeys: np.ndarray, saved: np.ndarray, lines: np.ndarray,
                vcf_fail: np.ndarray, opts: np.ndarray) -> int:
    """The moves the root tries (in ``moves[0]``), by the same rules as every node (at least
    24 candidates)."""
    _, _, opp_five_point, _, opp_open_four, _, nblock, _, opp_fours = _scan(B, box, me, moves[0])
    n, _ = _gen(B, box, zkeys, h, me, max(width, ROOT_WIDTH), opts[_OPT_PRUNE] != 0, MAXPLY, opp_five_point,
                opp_open_four, nblock, opp_fours, ctl, vctl, math.inf, moves, sortkeys, saved, lines, vcf_fail, opts,
                0)
    return n


