"""Opening decisions for the ``swap`` and ``swap2`` rules, from the engine's own evaluation.

- :func:`choose_swap_opening`: the opener's three stones (Black, White, Black),
  picked among a few classic shapes near the centre as the one the engine
  finds closest to even, so the chooser gains little by either colour.
- :func:`choose_swap_action`: after three stones, take ``"black"`` or
  ``"white"``, whichever a short search prefers.
- :func:`choose_swap2_action`: after three stones, ``"black"``, ``"white"`` or
  ``"place"`` with two more stones (White's, then Black's) when the position is
  close to even; after five stones, ``"black"`` or ``"white"``.

- :func:`balanced_openings`: short starting positions for engine matches
  (``tabletop match gomoku``), drawn at random near the centre for a seed and
  kept when a fixed-depth search, with no clock, scores them about even
  (:func:`opening_balance`), so the same seed always gives the same set.

This module decides; it does not apply anything: :mod:`tabletop.games.openings`
and :class:`tabletop.match.Match` own the opening's state.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from tabletop.ai.gomoku.position import Position, rule_of
from tabletop.ai.gomoku.search import Searcher
from tabletop.games.core import BLACK, BaseBoard, IllegalMoveError, Move

__all__ = [
    "BALANCE_DEPTH", "BALANCE_MARGIN", "BALANCE_NODES", "BALANCE_TARGET", "BLACK_RING", "WHITE_RADIUS", "SwapDecision",
    "balanced_openings", "black_ring", "choose_swap2_action", "choose_swap_action", "choose_swap_opening", "opening_balance",
    "opening_candidates", "side_to_move_value",
]

# offsets (dc, dr) from the centre of Black 1, White 2, Black 3: direct and indirect openings
_SHAPES: tuple[tuple[tuple[int, int], tuple[int, int], tuple[int, int]], ...] = (
    ((0, 0), (1, 0), (2, 1)),
    ((0, 0), (1, 1), (3, 0)),
    ((0, 0), (1, 0), (3, -1)),
    ((0, 0), (1, 1), (-2, 2)),
    ((0, 0), (1, 0), (-1, 3)),
    ((0, 0), (1, 1), (0, 3)),
    ((0, 0), (2, 0), (1, 2)),
    ((0, 0), (1, 2), (3, 1)),
)
EVEN_MARGIN = 150  # pattern units within which a position counts as balanced


@dataclass(frozen=True)
class SwapDecision:
    """``choice`` is ``"black"``, ``"white"`` or ``"place"``; ``stones`` the stones to place."""

    choice: str
    stones: list[Move] = field(default_factory=list)


def side_to_move_value(board: BaseBoard, seconds: float = 0.25) -> int:
    """A short search's score of ``board`` for the side to move."""
    pos = Position.from_board(board)
    result = Searcher(pos, deadline=time.perf_counter() + seconds, width=10).search(max_depth=4)
    return result.score


def choose_swap_opening(board: BaseBoard, seconds: float = 0.6) -> list[Move]:
    """Three opening stones for an empty ``board``: the most even of the shapes tried."""
    cx, cy = board.width // 2, board.height // 2
    best: tuple[int, list[Move]] | None = None
    per_shape = seconds / len(_SHAPES)
    for shape in _SHAPES:
        moves = [board.move_at(cx + dc, cy + dr) for dc, dr in shape]
        if not all(board.on_board(m.col, m.row) for m in moves):
            continue
        b = board.copy()
        for m in moves:
            b.push(m)
        value = abs(side_to_move_value(b, per_shape))
        if best is None or value < best[0]:
            best = (value, moves)
    assert best is not None, "the board is too small for an opening"
    return best[1]


def choose_swap_action(board: BaseBoard, seconds: float = 0.5) -> str:
    """After the opener's stones: the colour the engine would rather play."""
    value = side_to_move_value(board, seconds)
    mover = "black" if board.turn is BLACK else "white"
    other = "white" if mover == "black" else "black"
    return mover if value >= 0 else other


def choose_swap2_action(board: BaseBoard, seconds: float = 0.8) -> SwapDecision:
    """The swap2 choice at three stones (``black``/``white``/``place`` two stones) or at five (a colour)."""
    stones = sum(1 for c, r in board.squares() if board.piece_at(c, r) is not None)
    value = side_to_move_value(board, seconds / 2)
    mover = "black" if board.turn is BLACK else "white"
    other = "white" if mover == "black" else "black"
    if stones <= 3 and abs(value) <= EVEN_MARGIN:
        # an even position: add White's and Black's best stones and leave the choice to the opener
        b = board.copy()
        placed: list[Move] = []
        for _ in range(2):
            pos = Position.from_board(b)
            res = Searcher(pos, deadline=time.perf_counter() + seconds / 4, width=10).search(max_depth=3)
            m = pos.to_move(b, res.best)
            if not b.is_legal(m):
                m = b.legal_moves[0]
            b.push(m)
            placed.append(m)
        return SwapDecision("place", placed)
    return SwapDecision(mover if value >= 0 else other)


# -- balanced openings for engine matches ----------------------------------------------------------
# Three stones, White to move: Black on the centre, White within WHITE_RADIUS of it, and Black's
# second stone on the ring at BLACK_RING[rule] from the centre (Chebyshev distance).  From two-stone
# openings, or three stones close together, the first player wins most freestyle games between the
# engine's levels 6 and 7 (Black won 38 of 40 in a 7 vs 6 match); a second black stone three points
# away helps Black less, and equal levels then win about as often with either colour.  Renju's
# fouls already hold Black back: with the ring at 3 White won 26 and Black 10 of 40 games between
# two level 5 players, with the ring at 2 Black 18 and White 14 (figures in benchmarks/RESULTS.md,
# level table).  Each candidate is then scored by a fixed-depth search with a
# node cap and no deadline (:func:`opening_balance`, for White, the side to move); its leaves all
# have White to move a stone down, so a typical opening of this family scores about -960 rather
# than 0, and the ones kept lie within BALANCE_MARGIN of BALANCE_TARGET: outliers that the search
# thinks clearly better for one side are dropped.
WHITE_RADIUS = 2
BLACK_RING: dict[str, int] = {"freestyle": 3, "standard": 3, "renju": 2}
BALANCE_DEPTH = 4
BALANCE_NODES = 20_000
BALANCE_TARGET = -960
BALANCE_MARGIN = 150


def opening_balance(board: BaseBoard) -> int:
    """The side to move's score of ``board`` by a fixed-depth, node-capped search (deterministic)."""
    pos = Position.from_board(board)
    return Searcher(pos, width=10, max_nodes=BALANCE_NODES).search(max_depth=BALANCE_DEPTH).score


def _symmetry_key(board: BaseBoard, stones: list[Move]) -> tuple[tuple[int, int, int], ...]:
    """The smallest image of the stones under the board's symmetries (colour by move parity)."""
    w, h = board.width - 1, board.height - 1
    images = []
    for swap in (False, True) if board.width == board.height else (False,):
        for flip_c in (False, True):
            for flip_r in (False, True):
                image = []
                for i, m in enumerate(stones):
                    c, r = (m.row, m.col) if swap else (m.col, m.row)
                    image.append((i % 2, w - c if flip_c else c, h - r if flip_r else r))
                images.append(tuple(sorted(image)))
    return min(images)


def black_ring(board: BaseBoard) -> int:
    """How far from the centre Black's second opening stone goes under ``board``'s rule."""
    return BLACK_RING.get(rule_of(board), 3)


def opening_candidates(board: BaseBoard) -> list[list[Move]]:
    """Every opening of the family on ``board`` that the rules allow, one per symmetry class, in a fixed order."""
    cx, cy = board.width // 2, board.height // 2
    centre = board.move_at(cx, cy)
    out: list[list[Move]] = []
    seen: set[tuple[tuple[int, int, int], ...]] = set()
    ring = black_ring(board)
    span = range(-ring, ring + 1)
    for dc, dr in ((c, r) for r in range(-WHITE_RADIUS, WHITE_RADIUS + 1) for c in range(-WHITE_RADIUS, WHITE_RADIUS + 1)):
        if (dc, dr) == (0, 0) or not board.on_board(cx + dc, cy + dr):
            continue
        white = board.move_at(cx + dc, cy + dr)
        for ec, er in ((c, r) for r in span for c in span):
            if max(abs(ec), abs(er)) != ring or not board.on_board(cx + ec, cy + er):
                continue
            line = [centre, white, board.move_at(cx + ec, cy + er)]
            key = _symmetry_key(board, line)
            if key in seen:
                continue
            b = board.copy()
            try:
                for m in line:
                    b.push(m)
            except IllegalMoveError:
                continue
            seen.add(key)
            out.append(line)
    return out


def balanced_openings(board: BaseBoard, count: int, seed: int, target: int = BALANCE_TARGET,
                      margin: int = BALANCE_MARGIN) -> list[list[Move]]:
    """Up to ``count`` distinct openings for an empty ``board``, the same for the same ``seed``:
    the family's candidates in a seeded random order, kept when :func:`opening_balance` lies
    within ``margin`` of ``target``."""
    candidates = opening_candidates(board)
    random.Random(seed).shuffle(candidates)
    out: list[list[Move]] = []
    for line in candidates:
        if len(out) >= count:
            break
        b = board.copy()
        for m in line:
            b.push(m)
        if abs(opening_balance(b) - target) <= margin:
            out.append(line)
    return out
