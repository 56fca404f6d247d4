"""The Reversi engine: level players and analysis for 8x8 boards of :mod:`tabletop.games.reversi`.

``level_player(n)`` (1..10) and ``analyse(board, limit)`` are what the rest of
tabletop uses; the search itself lives in :mod:`.search` over the compiled
:mod:`.kernel`.  Boards of other sizes fall back to the generic levels.  This
module converts between boards and bitboards; it must not change the board it
is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop.ai.base import Analysis, Limit
from tabletop.ai.reversi.levels import LEVELS, EnginePlayer, level_player

if TYPE_CHECKING:
    from tabletop.games.core import BaseBoard

__all__ = ["LEVELS", "EnginePlayer", "analyse", "level_player"]


def analyse(board: BaseBoard, limit: Limit | None = None) -> Analysis:
    """A score for every legal move (disc difference from the mover's side, exact when solved),
    the principal variation, depth and nodes.  Default limit: one second.  In the opening
    book, unless a depth or node limit asks for a search, the scores are the book's
    (``MoveScore.book``) and no search runs."""
    import random

    from tabletop.ai.reversi.levels import analysis_lock, analysis_of, book_result, shared_searcher, sides

    limit = limit or Limit(seconds=1.0)
    if board.game == "reversi" and (board.width, board.height) != (8, 8):
        # the compiled engine is 8x8 only; other sizes get the generic search, like its levels
        from tabletop.ai.generic import MinimaxPlayer

        return MinimaxPlayer(seconds=1.0).analyse(board, limit)
    player, opponent = sides(board)
    found = (
        book_result(player, opponent, random.Random(0))
        if limit.depth is None and limit.nodes is None
        else None
    )
    if found is not None:
        return analysis_of(board, found)  # every move with its book value, marked as such
    searcher = shared_searcher()
    with analysis_lock:  # one searcher, one search at a time (its tables and stop flag are shared)
        result = searcher.search(
            player,
            opponent,
            depth=limit.depth,
            seconds=limit.seconds,
            nodes=limit.nodes,
            exact_empties=20 if limit.depth is None else min(20, limit.depth),
            all_moves=True,
        )
    return analysis_of(board, result)
