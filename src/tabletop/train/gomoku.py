"""The Gomoku evaluation's self-play games through the training runner.

A shard of :class:`EvalGames` is ``games`` games of the engine against itself at ``level`` and
``seconds`` a move, from random four-stone openings near the centre drawn from the shard's own seed,
stored as JSON lines of ``{"rule", "moves", "result"}`` (``scripts/gomoku_eval_fit.py`` plays them
and fits the evaluation from them).  The openings come from (seed, index) alone; the moves come
from searches stopped by the clock, so two runs of one seed start their games alike but may play
them differently.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

__all__ = ["OPENING_STONES", "EvalGames", "play_games"]

OPENING_STONES = 4


def _opening(rng: random.Random, size: int) -> list[tuple[int, int]]:
    centre = size // 2
    points: list[tuple[int, int]] = []
    while len(points) < OPENING_STONES:
        p = (centre + rng.randint(-3, 3), centre + rng.randint(-3, 3))
        if p not in points:
            points.append(p)
    return points


def play_games(rule: str, level: int, seconds: float, seed: int, count: int) -> list[dict[str, object]]:
    """``count`` self-play games from ``seed``'s openings: their moves and Black's result (1, 0.5, 0)."""
    from tabletop.ai.base import Limit
    from tabletop.ai.gomoku import level_player
    from tabletop.games import new_board
    from tabletop.games.core import BLACK

    rng = random.Random(seed)
    player = level_player(level)
    games = []
    for _ in range(count):
        board = new_board("gomoku", {"rule": rule})
        for col, row in _opening(rng, board.width):
            board.push(next(m for m in board.legal_moves if (m.col, m.row) == (col, row)))
        while board.outcome() is None:
            board.push(player.choose(board, Limit(seconds=seconds)))
        outcome = board.outcome()
        assert outcome is not None
        result = 0.5 if outcome.winner is None else (1.0 if outcome.winner is BLACK else 0.0)
        games.append({"rule": rule, "moves": [str(m) for m in board.move_stack], "result": result})
    return games


@dataclass(frozen=True)
class EvalGames:
    """Shard ``index``: ``games`` games from the seed ``seed * 100_003 + index``."""

    rule: str
    level: int
    seconds: float
    seed: int
    games: int = 20

    def shard_name(self, index: int) -> str:
        return f"{self.rule}-{index:05d}.shard"

    def make(self, index: int) -> bytes:
        games = play_games(self.rule, self.level, self.seconds, self.seed * 100_003 + index, self.games)
        return "".join(json.dumps(g) + "\n" for g in games).encode()
