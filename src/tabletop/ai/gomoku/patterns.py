"""Numba kernels for the Gomoku engine: line patterns, incremental evaluation, candidates.

The engine keeps its own padded board (a flat ``int8`` array with a wall four
cells thick, so a window of +-4 along any line never needs a bounds check).
For every point, colour and direction it keeps the *pattern* that colour would
make on that line by playing there (five, open four, four, open three, ...),
read from a table indexed by the eight neighbours of the point on that line
(the *window code*, one base-3 digit a neighbour, kept per point, colour and line).
A move changes one digit of the codes of the 32 points on its four lines, so
:func:`make_move` / :func:`unmake_move` update those codes, the patterns, the
per-point scores (only where a pattern changed) and the position's running totals in place.

Two scores come from the patterns.  A point's *score* (:func:`point_score`, hand-set
``PATTERN_VALUE``) orders candidates and tells the threat scans where a four or a five can
be.  The position's *value* comes from a learned table (:func:`eval_code`, the ``weights``
array of :mod:`tabletop.ai.gomoku.evaluation`): every empty point adds a weight for the
combination of its four line patterns, per colour and per role (that colour to move, or
not), and ``total[2 * c + role]`` keeps those sums for colour index ``c``.

This module must not know about moves' names, turns, rules boards or time: it
is arithmetic on arrays.  The rules board stays the judge of legality; the
patterns here are the engine's fast, cross-checked view (tests compare them).
"""

from __future__ import annotations

import numpy as np

from tabletop.ai.jit import njit_plain

# cell values on the padded board
EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3
PAD = 4  # wall thickness: a +-4 window around any board point stays inside the array

# line patterns, weakest first
NONE = 0
BLOCK2 = 1
FLEX2 = 2
BLOCK3 = 3
FLEX3 = 4
BLOCK4 = 5
FLEX4 = 6
FIVE = 7
OVERLINE = 8  # six or more where exactly five is needed: no win (and a foul for Renju's Black)

PATTERN_NAMES = ("none", "block2", "flex2", "block3", "flex3", "block4", "flex4", "five", "overline")

# what a pattern is worth to the side that can play it, in a point's score (move order, threat scans)
PATTERN_VALUE = np.array([0, 4, 24, 20, 160, 180, 3000, 20000, 0], dtype=np.int32)
# A point's score (:func:`point_score`) tells the kernels' scans at a glance where a four or a
# five cannot be: a four or better on some line is worth FOUR_SCORE or more, and only a five
# reaches FIVE_SCORE (four open fours and the bonus make 14,500).
FOUR_SCORE = int(PATTERN_VALUE[BLOCK4])
FIVE_SCORE = int(PATTERN_VALUE[FIVE])
WINDOW_CODES = 3**8  # each of the 8 neighbours: 0 empty, 1 own, 2 blocked (opponent or wall)
EVAL_CODES = 9**4  # a point's four line patterns as one base-9 number (:func:`eval_code`)
BIAS = EVAL_CODES  # the last entry of a colour's to-move row in ``weights``: the mover's constant
EVAL_DIGIT = np.array([729, 81, 9, 1], dtype=np.int64)  # the weight of line d's pattern in eval_code


@njit_plain(cache=True)
def _five_kind(w: np.ndarray, exact: bool) -> int:
    """FIVE, OVERLINE or NONE for the unbroken own run through the centre of ``w``."""
    n = 1
    i = 3
    while i >= 0 and w[i] == 1:
        n += 1
        i -= 1
    i = 5
    while i <= 8 and w[i] == 1:
        n += 1
        i += 1
    if n == 5 or (n > 5 and not exact):
        return FIVE
    if n > 5:
        return OVERLINE
    return NONE


@njit_plain(cache=True)
def _five_points(w: np.ndarray, exact: bool) -> int:
    """How many empty cells of ``w`` would complete a five through the centre."""
    count = 0
    for e in range(9):
        if w[e] == 0:
            w[e] = 1
            if _five_kind(w, exact) == FIVE:
                count += 1
            w[e] = 0
    return count


@njit_plain(cache=True)
def _four_level(w: np.ndarray, exact: bool) -> int:
    k = _five_kind(w, exact)
    if k != NONE:
        return k
    c = _five_points(w, exact)
    if c >= 2:
        return FLEX4
    if c == 1:
        return BLOCK4
    return NONE


# _three_level and _classify are one step (a stone more makes an open or a closed pattern of
# the level above) taken at two levels: written twice, as numba's cache crashes on a
# self-recursive kernel.
@njit_plain(cache=True)
def _three_level(w: np.ndarray, exact: bool) -> int:
    k = _four_level(w, exact)
    if k != NONE:
        return k
    best = NONE
    for e in range(9):
        if w[e] == 0:
            w[e] = 1
            f = _four_level(w, exact)
            w[e] = 0
            if f == FLEX4:
                return FLEX3
            if f == BLOCK4:
                best = BLOCK3
    return best


@njit_plain(cache=True)
def _classify(w: np.ndarray, exact: bool) -> int:
    k = _three_level(w, exact)
    if k != NONE:
        return k
    best = NONE
    for e in range(9):
        if w[e] == 0:
            w[e] = 1
            t = _three_level(w, exact)
            w[e] = 0
            if t == FLEX3:
                return FLEX2
            if t == BLOCK3:
                best = BLOCK2
    return best


@njit_plain(cache=True)
def build_tables() -> np.ndarray:
    """``table[kind, code]``: the pattern of a stone placed in the centre of the
    window ``code``; kind 0 = five or more wins, kind 1 = exactly five wins."""
    table = np.zeros((2, WINDOW_CODES), dtype=np.int8)
    w = np.zeros(9, dtype=np.int8)
    for kind in range(2):
        exact = kind == 1
        for code in range(WINDOW_CODES):
            x = code
            for i in range(8):
                w[i if i < 4 else i + 1] = x % 3
                x //= 3
            w[4] = 1
            table[kind, code] = _classify(w, exact)
    return table


@njit_plain(cache=True)
def build_line_double_fours() -> np.ndarray:
    """``table[code]``: True when a stone in the centre makes two fours on this one
    line (``X.XXX.X``, ``XX.XX.XX``) under the exactly-five rule: Renju's
    double-four on one line, which the pattern table counts as a single FLEX4."""
    table = np.zeros(WINDOW_CODES, dtype=np.bool_)
    w = np.zeros(9, dtype=np.int8)
    for code in range(WINDOW_CODES):
        x = code
        for i in range(8):
            w[i if i < 4 else i + 1] = x % 3
            x //= 3
        w[4] = 1
        if _five_kind(w, True) != NONE or _five_points(w, True) < 2:
            continue
        lo = 4
        while lo > 0 and w[lo - 1] == 1:
            lo -= 1
        hi = 4
        while hi < 8 and w[hi + 1] == 1:
            hi += 1
        straight = hi - lo == 3 and lo > 0 and hi < 8 and w[lo - 1] == 0 and w[hi + 1] == 0
        table[code] = not straight
    return table


@njit_plain(cache=True)
def _window_codes(cells: np.ndarray, p: int, d: int) -> tuple[int, int]:
    """The window codes of point ``p`` along step ``d`` for Black and for White: each of the
    eight neighbours a base-3 digit, 0 empty, 1 the colour's own stone, 2 blocked (the other
    colour or the wall)."""
    black = 0
    white = 0
    mul = 1
    for k in (-4, -3, -2, -1, 1, 2, 3, 4):
        v = cells[p + k * d]
        if v == BLACK:
            black += mul
            white += 2 * mul
        elif v == WHITE:
            black += 2 * mul
            white += mul
        elif v == WALL:
            black += 2 * mul
            white += 2 * mul
        mul *= 3
    return black, white


def _point_scores() -> np.ndarray:
    """:func:`point_score` of every :func:`eval_code`: the sum of a point's four line patterns' values
    plus a bonus for two threats at once (two fours, a four and an open three: 2,500; two open
    threes: 1,200)."""
    digits = (np.arange(EVAL_CODES)[:, None] // EVAL_DIGIT) % 9
    fours = ((digits >= BLOCK4) & (digits <= FLEX4)).sum(axis=1)
    threes = (digits == FLEX3).sum(axis=1)
    bonus = np.where((fours >= 2) | ((fours == 1) & (threes >= 1)), 2500, np.where(threes >= 2, 1200, 0))
    scores: np.ndarray = (PATTERN_VALUE[digits].sum(axis=1) + bonus).astype(np.int32)
    return scores


# a point's score by its eval_code: the kernels that change one of a point's patterns hold its new
# code already, and one look-up replaces a call and its loop over the four lines
POINT_SCORES = _point_scores()


@njit_plain(cache=True)
def point_score(pat: np.ndarray, c: int, p: int) -> int:
    """What playing ``p`` is worth to colour index ``c`` (0 Black, 1 White), from its four line
    patterns (:data:`POINT_SCORES`)."""
    return int(POINT_SCORES[eval_code(pat, c, p)])


@njit_plain(cache=True)
def eval_code(pat: np.ndarray, c: int, p: int) -> int:
    """The index of ``p``'s four line patterns for colour index ``c`` in a ``weights`` row."""
    return int(pat[c, p, 0]) * 729 + int(pat[c, p, 1]) * 81 + int(pat[c, p, 2]) * 9 + int(pat[c, p, 3])


@njit_plain(cache=True)
def static_value(total: np.ndarray, weights: np.ndarray, c: int) -> int:
    """The learned value of the position for colour index ``c`` to move (a win's log-odds,
    scaled): its own points as mover, the other colour's as the side not to move."""
    return int(total[2 * c] + total[2 * (1 - c) + 1] + weights[c, 0, BIAS])


@njit_plain(cache=True)
def add_point_value(total: np.ndarray, weights: np.ndarray, c: int, code: int, sign: int) -> None:
    """Count (``sign`` 1) or uncount (-1) an empty point with ``eval_code`` ``code`` for colour
    index ``c`` in both of its role sums."""
    total[2 * c] += sign * weights[c, 0, code]
    total[2 * c + 1] += sign * weights[c, 1, code]


@njit_plain(cache=True)
def _digit(k: int) -> int:
    """The weight of the neighbour at offset ``k`` (+-1..4) in a window code."""
    i = k + 4 if k < 0 else k + 3
    return int(3**i)


# the neighbours of a point along a line, in the order :func:`tabletop.ai.gomoku.kernels.put`
# visits them, and the weight a stone there has in that point's window code (:func:`_digit` of
# the point seen from it)
LINE_OFFSETS = np.array([-4, -3, -2, -1, 1, 2, 3, 4], dtype=np.int64)
LINE_WEIGHTS = np.array([3**7, 3**6, 3**5, 3**4, 3**3, 3**2, 3, 1], dtype=np.int64)


@njit_plain(cache=True)
def _set_pattern(pat: np.ndarray, pscore: np.ndarray, total: np.ndarray, weights: np.ndarray, empty: bool, c: int,
                 q: int, d: int, t: int) -> None:
    """Colour index ``c``'s pattern of ``q`` on line ``d`` becomes ``t``; its score and, on an
    empty point, its share of the totals follow (most of a move's 32 points keep theirs)."""
    if pat[c, q, d] == t:
        return
    if empty:
        add_point_value(total, weights, c, eval_code(pat, c, q), -1)
    pat[c, q, d] = t
    pscore[c, q] = point_score(pat, c, q)
    if empty:
        add_point_value(total, weights, c, eval_code(pat, c, q), 1)


@njit_plain(cache=True)
def init_board(cells: np.ndarray, pat: np.ndarray, codes: np.ndarray, pscore: np.ndarray, total: np.ndarray,
               weights: np.ndarray, tables: np.ndarray, kinds: np.ndarray, dirs: np.ndarray) -> None:
    """Compute every window code, pattern, score and total from ``cells`` (once per position)."""
    total[:] = 0
    for q in range(cells.shape[0]):
        if cells[q] == WALL:
            continue
        for d in range(4):
            black, white = _window_codes(cells, q, dirs[d])
            codes[0, q, d] = black
            codes[1, q, d] = white
            pat[0, q, d] = tables[kinds[0], black]
            pat[1, q, d] = tables[kinds[1], white]
        for c in range(2):
            pscore[c, q] = point_score(pat, c, q)
            if cells[q] == EMPTY:
                add_point_value(total, weights, c, eval_code(pat, c, q), 1)


@njit_plain(cache=True)
def _update_lines(cells: np.ndarray, pat: np.ndarray, codes: np.ndarray, pscore: np.ndarray, total: np.ndarray,
                  weights: np.ndarray, tables: np.ndarray, kinds: np.ndarray, dirs: np.ndarray, p: int, sign: int, color: int) -> None:
    """A ``color`` stone appears (``sign`` 1) or goes (-1) on ``p``: the window codes of the 32
    points on its lines change by one digit, and their patterns and scores follow."""
    own = 1 if color == BLACK else 2
    other = 3 - own
    for d in range(4):
        step = dirs[d]
        for k in (-4, -3, -2, -1, 1, 2, 3, 4):
            q = p + k * step
            if cells[q] == WALL:
                continue
            w = _digit(-k) * sign
            codes[0, q, d] += w * own
            codes[1, q, d] += w * other
            empty = cells[q] == EMPTY
            _set_pattern(pat, pscore, total, weights, empty, 0, q, d, tables[kinds[0], codes[0, q, d]])
            _set_pattern(pat, pscore, total, weights, empty, 1, q, d, tables[kinds[1], codes[1, q, d]])


@njit_plain(cache=True)
def make_move(cells: np.ndarray, pat: np.ndarray, codes: np.ndarray, pscore: np.ndarray, total: np.ndarray,
              weights: np.ndarray, near: np.ndarray, tables: np.ndarray, kinds: np.ndarray, dirs: np.ndarray, stride: int, p: int,
              color: int) -> None:
    """Put a ``color`` stone on ``p`` and update the patterns along its four lines."""
    cells[p] = color
    add_point_value(total, weights, 0, eval_code(pat, 0, p), -1)
    add_point_value(total, weights, 1, eval_code(pat, 1, p), -1)
    _update_lines(cells, pat, codes, pscore, total, weights, tables, kinds, dirs, p, 1, color)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            near[p + dr * stride + dc] += 1


@njit_plain(cache=True)
def unmake_move(cells: np.ndarray, pat: np.ndarray, codes: np.ndarray, pscore: np.ndarray, total: np.ndarray,
                weights: np.ndarray, near: np.ndarray, tables: np.ndarray, kinds: np.ndarray, dirs: np.ndarray, stride: int,
                p: int) -> None:
    """Take the stone off ``p`` (the last one put) and restore the patterns."""
    color = cells[p]
    cells[p] = EMPTY
    add_point_value(total, weights, 0, eval_code(pat, 0, p), 1)
    add_point_value(total, weights, 1, eval_code(pat, 1, p), 1)
    _update_lines(cells, pat, codes, pscore, total, weights, tables, kinds, dirs, p, -1, color)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            near[p + dr * stride + dc] -= 1


@njit_plain(cache=True)
def best_pattern(pat: np.ndarray, c: int, p: int) -> int:
    b = 0
    for d in range(4):
        t = pat[c, p, d]
        if t == OVERLINE:
            continue
        if t > b:
            b = t
    return b


@njit_plain(cache=True)
def black_foul(cells: np.ndarray, pat: np.ndarray, line_double_fours: np.ndarray, dirs: np.ndarray, p: int) -> bool:
    """Renju's fouls for Black judged from the patterns alone (no recursion on
    fake threes): overline, two fours (on two lines or one), two open threes; a
    five is never a foul.  The engine uses it inside searches; the rules board
    checks every move it plays."""
    fours = 0
    threes = 0
    over = False
    for d in range(4):
        t = pat[0, p, d]
        if t == FIVE:
            return False
        if t == OVERLINE:
            over = True
        elif t == FLEX4 and line_double_fours[_window_codes(cells, p, dirs[d])[0]]:
            fours += 2
        elif BLOCK4 <= t <= FLEX4:
            fours += 1
        elif t == FLEX3:
            threes += 1
    return over or fours >= 2 or threes >= 2


@njit_plain(cache=True)
def points_with(pat: np.ndarray, cells: np.ndarray, near: np.ndarray, c: int, level: int, out: np.ndarray) -> int:
    """Write into ``out`` the empty points near stones where colour index ``c``
    makes a pattern of at least ``level`` on some line; return how many."""
    n = 0
    for q in range(cells.shape[0]):
        if cells[q] == EMPTY and near[q] > 0 and best_pattern(pat, c, q) >= level:
            out[n] = q
            n += 1
    return n


@njit_plain(cache=True)
def ranked_candidates(pscore: np.ndarray, cells: np.ndarray, near: np.ndarray, me: int, out: np.ndarray,
                      keys: np.ndarray) -> int:
    """Empty points within two of a stone, best first by attack plus defence value."""
    n = 0
    opp = 1 - me
    for q in range(cells.shape[0]):
        if cells[q] == EMPTY and near[q] > 0:
            out[n] = q
            keys[n] = -(pscore[me, q] * 5 + pscore[opp, q] * 4 + near[q])
            n += 1
    order = np.argsort(keys[:n], kind="mergesort")
    tmp = out[:n].copy()
    for i in range(n):
        out[i] = tmp[order[i]]
    return n
