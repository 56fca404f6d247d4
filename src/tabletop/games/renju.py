"""Renju's forbidden points for Black: overline, double-four, double-three.

The judgement works on a *padded grid*: a flat list of cell values with a
wall around the board, so that walking along a line never needs a bounds
check (a wall stops every walk, exactly as a White stone does).  The layout
for a ``width`` x ``height`` board has a stride of ``width + 1`` (one wall
column, shared by the end of one row and the start of the next) and one wall
row above and below; the four directions are steps of ``1``, ``stride``,
``stride + 1`` and ``stride - 1``.

The rules follow the Renju International Federation and the Gomocup referee
(Piskvork's judge), in this order:

1. a move that makes exactly five in a row is never forbidden;
2. otherwise a line of six or more is an *overline*;
3. two or more fours (a straight four counts once; two fours on one line,
   like ``X.XXX.X``, count twice) make a *double-four*;
4. two or more threes make a *double-three*, where a three is a line that can
   become a straight four (``.XXXX.`` whose both ends make exactly five)
   through a point that is itself not forbidden, judged recursively with the
   stones already placed.  As in the Gomocup referee, a point that would
   make a five is not a straight-four point, so a three whose only extension
   also makes a five somewhere does not count (this is where a 2000 Renju
   World magazine ruling differs; see ``tests/test_renju.py``).

:func:`forbidden_points` scans only the empty points that have Black stones
close enough on two lines (or four on one), which keeps a full-board scan
well under a millisecond in ordinary positions.

This module knows nothing of moves, turns or notation; :mod:`tabletop.games.mnk`
builds the Renju board on it.  It must not import anything beyond the
standard library.
"""

from __future__ import annotations

__all__ = [
    "BLACK_STONE",
    "EMPTY",
    "WALL",
    "WHITE_STONE",
    "directions",
    "forbidden_kind",
    "forbidden_points",
    "padded_index",
]

EMPTY = 0
BLACK_STONE = 1
WHITE_STONE = 2
WALL = 3

OVERLINE = "overline"
DOUBLE_FOUR = "double-four"
DOUBLE_THREE = "double-three"


def padded_index(col: int, row: int, width: int) -> int:
    """The index of (col, row) in the padded grid of a board ``width`` wide."""
    return (row + 1) * (width + 1) + col


def new_grid(width: int, height: int) -> list[int]:
    """An empty padded grid: walls around, empty inside."""
    stride = width + 1
    grid = [WALL] * ((height + 2) * stride + 1)
    for row in range(height):
        base = (row + 1) * stride
        for col in range(width):
            grid[base + col] = EMPTY
    return grid


def directions(width: int) -> tuple[int, int, int, int]:
    """The four line steps (horizontal, vertical, two diagonals)."""
    stride = width + 1
    return (1, stride, stride + 1, stride - 1)


# -- lines through one point --------------------------------------------------------


def _run_through_empty(grid: list[int], q: int, d: int) -> int:
    """Length of Black's run through empty ``q`` along ``d`` if Black played there."""
    # _run_ends counts the same run; this copy returns no ends because the scan calls it most
    n = 1
    i = q + d
    while grid[i] == BLACK_STONE:
        n += 1
        i += d
    i = q - d
    while grid[i] == BLACK_STONE:
        n += 1
        i -= d
    return n


def _run_ends(grid: list[int], p: int, d: int) -> tuple[int, int, int]:
    """Black's run through ``p`` along ``d`` (``p`` counted as Black): its length and the first
    point past it on each side (a wall, a White stone or an empty point)."""
    run = 1
    left = p - d
    while grid[left] == BLACK_STONE:
        run += 1
        left -= d
    right = p + d
    while grid[right] == BLACK_STONE:
        run += 1
        right += d
    return run, left, right


def _makes_five(grid: list[int], q: int, dirs: tuple[int, ...]) -> bool:
    """Would Black on empty ``q`` make exactly five on some line?"""
    for d in dirs:  # noqa: SIM110 - a plain loop is faster than any() on this hot path
        if _run_through_empty(grid, q, d) == 5:
            return True
    return False


def _is_overline(grid: list[int], q: int, dirs: tuple[int, ...]) -> bool:
    """Would Black on empty ``q`` make six or more (and no five)?"""
    over = False
    for d in dirs:
        n = _run_through_empty(grid, q, d)
        if n == 5:
            return False
        if n >= 6:
            over = True
    return over


def _fours_on_line(grid: list[int], p: int, d: int) -> int:
    """With Black already on ``p``: how many fours on line ``d`` go through it.

    The only points that can complete a five with ``p`` are the first empty
    points on either side of its run.  Both making five means a straight four
    (counted once) when the run is four long, or two fours on one line
    (``X.XXX.X``, ``XX.XX.XX``) otherwise.
    """
    run, left, right = _run_ends(grid, p, d)
    five_left = grid[left] == EMPTY and _run_through_empty(grid, left, d) == 5
    five_right = grid[right] == EMPTY and _run_through_empty(grid, right, d) == 5
    if five_left and five_right:
        return 1 if run == 4 else 2
    return int(five_left) + int(five_right)


def _is_straight_four_point(grid: list[int], q: int, d: int, dirs: tuple[int, ...]) -> bool:
    """Would Black on empty ``q`` make a straight four (``.XXXX.``) on line ``d``?

    A point that makes a five is not counted, as in the Gomocup referee.
    """
    if _makes_five(grid, q, dirs):
        return False
    run, left, right = _run_ends(grid, q, d)
    if run != 4 or grid[left] != EMPTY or grid[right] != EMPTY:
        return False
    grid[q] = BLACK_STONE
    try:
        return _run_through_empty(grid, left, d) == 5 and _run_through_empty(grid, right, d) == 5
    finally:
        grid[q] = EMPTY


def _is_double_four(grid: list[int], p: int, dirs: tuple[int, ...]) -> bool:
    """Black on empty ``p`` (which makes no five) makes two or more fours."""
    grid[p] = BLACK_STONE
    try:
        fours = 0
        for d in dirs:
            fours += _fours_on_line(grid, p, d)
            if fours >= 2:
                return True
        return False
    finally:
        grid[p] = EMPTY


def _is_three_on_line(grid: list[int], p: int, d: int, dirs: tuple[int, ...]) -> bool:
    """With Black already on ``p``: is line ``d`` a real three?

    It is when the first empty point on either side of ``p``'s run makes a
    straight four and is itself not forbidden (judged with ``p`` placed).
    """
    for step in (-d, d):
        q = p + step
        while grid[q] == BLACK_STONE:
            q += step
        if grid[q] != EMPTY or not _is_straight_four_point(grid, q, d, dirs):
            continue
        if _is_overline(grid, q, dirs) or _is_double_four(grid, q, dirs) or _is_double_three(grid, q, dirs):
            continue
        return True
    return False


def _could_be_three(grid: list[int], p: int, d: int) -> bool:
    """Cheap filter: a three through ``p`` needs two more Black stones within
    four points on the line, with no White stone or wall between."""
    count = 0
    for step in (-d, d):
        i = p + step
        for _ in range(4):
            v = grid[i]
            if v == BLACK_STONE:
                count += 1
            elif v != EMPTY:
                break
            i += step
    return count >= 2


def _is_double_three(grid: list[int], p: int, dirs: tuple[int, ...]) -> bool:
    """Black on empty ``p`` (which makes no five) makes two or more real threes."""
    candidates = [d for d in dirs if _could_be_three(grid, p, d)]
    if len(candidates) < 2:
        return False
    return _has_two_threes(grid, p, candidates, dirs)


def _has_two_threes(grid: list[int], p: int, lines: list[int], dirs: tuple[int, ...]) -> bool:
    """Are at least two of ``lines`` real threes once Black is on ``p``?"""
    grid[p] = BLACK_STONE
    try:
        threes = 0
        for index, d in enumerate(lines):
            if _is_three_on_line(grid, p, d, dirs):
                threes += 1
                if threes >= 2:
                    return True
            elif threes + len(lines) - index - 1 < 2:
                return False
        return False
    finally:
        grid[p] = EMPTY


def forbidden_kind(grid: list[int], p: int, dirs: tuple[int, ...]) -> str | None:
    """``None`` or the kind of foul a Black stone on empty ``p`` would be.

    ``grid`` is used as scratch space and is restored before returning.
    """
    if grid[p] != EMPTY or _makes_five(grid, p, dirs):
        return None
    if _is_overline(grid, p, dirs):
        return OVERLINE
    if _is_double_four(grid, p, dirs):
        return DOUBLE_FOUR
    if _is_double_three(grid, p, dirs):
        return DOUBLE_THREE
    return None


def _nearby_black_counts(grid: list[int], blacks: list[int], dirs: tuple[int, ...]) -> dict[int, list[int]]:
    """For each empty point near Black: per direction, how many Black stones lie
    within four points with no White stone or wall between (the only stones
    a three, four, five or overline through that point can use)."""
    near: dict[int, list[int]] = {}
    for s in blacks:
        for di, d in enumerate(dirs):
            for step in (d, -d):
                i = s
                for _ in range(4):
                    i += step
                    v = grid[i]
                    if v == EMPTY:
                        counts = near.get(i)
                        if counts is None:
                            counts = near[i] = [0, 0, 0, 0]
                        counts[di] += 1
                    elif v != BLACK_STONE:
                        break
    return near


def forbidden_points(grid: list[int], blacks: list[int], dirs: tuple[int, ...]) -> dict[int, str]:
    """Every forbidden point of the position, as padded index -> kind.

    ``blacks`` lists the padded indices of Black's stones.  The nearby counts
    decide which tests can succeed at all: a five or an overline needs four
    stones on one line, a four needs three, a three needs two; only the
    tests that can succeed are run, in the order of :func:`forbidden_kind`.
    """
    found: dict[int, str] = {}
    for p, counts in _nearby_black_counts(grid, blacks, dirs).items():
        most = max(counts)
        lines_of_two = [dirs[i] for i in range(4) if counts[i] >= 2]
        if most < 4 and len(lines_of_two) < 2:
            continue
        if most >= 4:
            if _makes_five(grid, p, dirs):
                continue
            if _is_overline(grid, p, dirs):
                found[p] = OVERLINE
                continue
        if (most >= 4 or sum(1 for c in counts if c >= 3) >= 2) and _is_double_four(grid, p, dirs):
            found[p] = DOUBLE_FOUR
            continue
        if len(lines_of_two) >= 2 and _has_two_threes(grid, p, lines_of_two, dirs):
            found[p] = DOUBLE_THREE
    return found


def forbidden_points_naive(grid: list[int], dirs: tuple[int, ...]) -> dict[int, str]:
    """The same set judged at every empty point, with no filter: the reference
    the benchmark and the tests compare :func:`forbidden_points` with."""
    found: dict[int, str] = {}
    for p, v in enumerate(grid):
        if v == EMPTY:
            kind = forbidden_kind(grid, p, dirs)
            if kind is not None:
                found[p] = kind
    return found
