"""Run every engine kernel once, outside any timed move: compiled into numba's cache the first
time (``make setup``: :mod:`tabletop.cli.warmup`), loaded from it after.

An engine process, a server's worker or a test then pays only for loading the cached machine code,
not for compiling it (compiling the Reversi and Gomoku kernels takes minutes on two cores).  Each
part runs every kernel its engine calls, with the argument types a real call passes (numba
compiles one version per type signature):

- Reversi: move generation, flips, perft, the pattern evaluation, the midgame search with and
  without Multi-ProbCut, the exact solver (and its last-empties solvers), the book's lookups;
- Gomoku: the position's updates, the VCF and VCT solvers, both searches and Renju's
  forbidden-point judgement, under a renju and a freestyle position
  (:func:`tabletop.ai.gomoku.engine.warm_up`).

This module must not change any engine setting or write anything but numba's cache.
"""

from __future__ import annotations

import numpy as np

__all__ = ["load_engines", "warm_up_reversi"]


def warm_up_reversi() -> None:
    """Run the Reversi engine's kernels once: a short search, a selective one and a solve."""
    from tabletop.ai.reversi import kernel
    from tabletop.ai.reversi.levels import level_player, sides
    from tabletop.ai.reversi.search import Searcher
    from tabletop.games import new_board

    board = new_board("reversi")
    p, o = sides(board)
    kernel.perft(p, o, 3)
    searcher = Searcher(tt_megabytes=1)
    searcher.search(p, o, depth=4)
    searcher.search(p, o, depth=6, selectivity=1.5)
    # a position near the end, for the exact solver and its small-empties solvers
    rng = np.random.default_rng(1)
    while not board.is_game_over() and 64 - len(board.move_stack) > 14:
        moves = board.legal_moves
        board.push(moves[int(rng.integers(len(moves)))])
    if not board.is_game_over():
        p, o = sides(board)
        searcher.solve(p, o)
        searcher.search(p, o, depth=4, exact_empties=64, all_moves=True)
    # the level players' own path (book look-up, the search they set up)
    level_player(1).choose(new_board("reversi"))


def load_engines() -> None:
    """Load the Reversi and Gomoku engines' kernels into this process (from numba's cache when
    ``make setup`` filled it): what a server's worker does before its first computer move."""
    from tabletop.ai.gomoku.engine import warm_up as warm_up_gomoku

    warm_up_gomoku()
    warm_up_reversi()
