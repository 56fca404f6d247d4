"""Opening decisions for the ``swap`` and ``swap2`` rules, from the engine's own evaluation.

- :func:`choose_swap_opening`: the opener's three stones (Black, White, Black),
  picked among a few classic shapes near the centre as the one the engine
  finds closest to even, so the chooser gains little by either colour.
- :func:`choose_swap_action`: after three stones, take ``"black"`` or
  ``"white"``, whichever a short search prefers.
- :func:`choose_swap2_action`: after three stones, ``"black"``, ``"white"`` or
  ``"place"`` with two more stones (White's, then Black's) when the position is
  close to even; after five stones, ``"black"`` or ``"white"``.

This module decides; it does not apply anything: :mod:`tabletop.games.openings`
and :class:`tabletop.match.Match` own the opening's state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.search import Searcher
from tabletop.games.core import BLACK, BaseBoard, Move

__all__ = ["SwapDecision", "choose_swap2_action", "choose_swap_action", "choose_swap_opening", "side_to_move_value"]

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
