"""Tic-tac-toe's engine: perfect play from a full solve, and the levels.

The game tree is small (5,478 reachable positions), so values are computed once
by negamax over position texts and memoised.  Values are from the side to
move: +1 a win, 0 a draw, -1 a loss.
"""

from __future__ import annotations

import random
from functools import cache

from tabletop.ai.base import Analysis, Limit, MoveScore, Player
from tabletop.games.core import BaseBoard, Move
from tabletop.games.mnk import TicTacToe, tictactoe

__all__ = ["PerfectPlayer", "analyse", "level_player", "solve", "value"]


@cache
def _solve_text(text: str) -> tuple[int, int]:
    """(value for the side to move, plies to the end under best play) of a position text."""
    board = tictactoe(text)
    outcome = board.outcome()
    if outcome is not None:
        # the side to move did not make the last move, so a winner is the opponent
        return (0 if outcome.winner is None else -1), 0
    best: tuple[int, int] | None = None
    for m in board.legal_moves:
        board.push(m)
        v, d = _solve_text(board.to_text())
        board.pop()
        cand = (-v, d + 1)
        if best is None or _better(cand, best):
            best = cand
    assert best is not None
    return best


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Prefer higher value; then the quicker win, or the slower loss or draw."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] > 0 else a[1] > b[1]


def value(board: BaseBoard) -> int:
    """The game-theoretic value of ``board`` for the side to move."""
    return _solve_text(board.to_text())[0]


def solve(board: BaseBoard) -> list[MoveScore]:
    """Every legal move with its exact value for the mover (+1/0/-1), best first."""
    out: list[tuple[tuple[int, int], Move]] = []
    b = board.copy()
    for m in b.legal_moves:
        b.push(m)
        v, d = _solve_text(b.to_text())
        b.pop()
        out.append(((-v, d + 1), m))
    ordered: list[MoveScore] = []
    while out:
        i = 0
        for j in range(1, len(out)):
            if _better(out[j][0], out[i][0]):
                i = j
        (v, _), m = out.pop(i)
        ordered.append(MoveScore(m, float(v), exact=True))
    return ordered


class PerfectPlayer:
    """Never loses: plays a move of the best value, winning fastest (random among equals)."""

    name = "perfect"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        _require_tictactoe(board)
        scores = solve(board)
        if not scores:
            raise ValueError("no legal move: the game is over")
        b = board.copy()
        keyed = []
        for s in scores:
            b.push(s.move)
            keyed.append(((int(s.score), _solve_text(b.to_text())[1] + 1), s.move))
            b.pop()
        best_key = keyed[0][0]
        return self.rng.choice([m for k, m in keyed if k == best_key])

    def analyse(self, board: BaseBoard, limit: Limit | None = None) -> Analysis:
        _require_tictactoe(board)
        scores = solve(board)
        pv: list[Move] = []
        b = board.copy()
        while not b.is_game_over():
            m = self.choose(b)
            pv.append(m)
            b.push(m)
        return Analysis(scores=scores, pv=pv, depth=len(pv), nodes=_solve_text.cache_info().currsize)


def _require_tictactoe(board: BaseBoard) -> None:
    if not isinstance(board, TicTacToe):
        raise ValueError(f"the perfect player plays tic-tac-toe, not {board.game}")


def analyse(board: BaseBoard, limit: Limit | None = None) -> Analysis:
    return PerfectPlayer().analyse(board, limit)


def level_player(n: int) -> Player:
    """Levels 1..10: 1 plays at random; mistakes become rarer; 8..10 are perfect."""
    from tabletop.ai.generic import GreedyPlayer, RandomPlayer
    from tabletop.ai.levels import MistakePlayer

    if n <= 1:
        return RandomPlayer()
    mistakes = {2: 0.6, 3: 0.4, 4: 0.25, 5: 0.15, 6: 0.08, 7: 0.03}
    if n >= 8:
        return PerfectPlayer()
    base: Player = GreedyPlayer() if n <= 3 else PerfectPlayer()
    return MistakePlayer(base, mistakes[n], name=f"level:{n}")
