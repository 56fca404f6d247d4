"""``level:N`` players (1..10): a beginner that makes human-like mistakes up to the strongest setting.

A game with its own engine module (``tabletop.ai.<game>``) supplies
``level_player(n)``; any other game gets the generic ladder below, built
from the generic players.  The level's player is chosen when it first sees a
board, so one SPEC serves every game.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType

from tabletop.ai.base import Analysis, Limit, Player
from tabletop.games.core import BaseBoard, Move

__all__ = ["LevelPlayer", "MistakePlayer", "analyse_position", "engine_module", "generic_level"]


def engine_module(game: str) -> ModuleType | None:
    """The per-game engine module, if the game has one."""
    try:
        return importlib.import_module(f"tabletop.ai.{game}")
    except ModuleNotFoundError as exc:
        if exc.name == f"tabletop.ai.{game}":
            return None
        raise


class MistakePlayer:
    """Plays like ``base``, except that with probability ``rate`` it takes a
    plausible-looking but unexamined move: one of the three best by a one-ply
    look, the kind of slip a hurried human makes."""

    def __init__(self, base: Player, rate: float, name: str | None = None, seed: int | None = None) -> None:
        self.base = base
        self.rate = rate
        self.rng = random.Random(seed)
        self.name = name or f"{base.name}~{rate:g}"

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        if self.rng.random() < self.rate:
            from tabletop.ai.generic import heuristic

            me = board.turn
            b = board.copy()
            ranked = []
            for m in b.legal_moves:
                b.push(m)
                ranked.append((heuristic(b, me), self.rng.random(), m))
                b.pop()
            ranked.sort(key=lambda t: (-t[0], t[1]))
            return self.rng.choice([m for _, _, m in ranked[:3]])
        return self.base.choose(board, limit)


def generic_level(n: int) -> Player:
    """The ladder for games without an engine of their own."""
    from tabletop.ai.generic import GreedyPlayer, MCTSPlayer, MinimaxPlayer, RandomPlayer

    if n <= 1:
        return RandomPlayer()
    if n == 2:
        return MistakePlayer(GreedyPlayer(), 0.5, name="level:2")
    if n == 3:
        return GreedyPlayer()
    if n <= 6:
        return MCTSPlayer(playouts={4: 100, 5: 300, 6: 800}[n])
    return MinimaxPlayer(seconds={7: 0.3, 8: 1.0, 9: 2.0, 10: 4.0}[n])


class LevelPlayer:
    """``level:N``: delegates to the game's engine levels, chosen per board."""

    def __init__(self, n: int, game: str | None = None) -> None:
        if not 1 <= n <= 10:
            raise ValueError(f"level must be 1..10, not {n}")
        self.n = n
        self.name = f"level:{n}"
        self._players: dict[str, Player] = {}
        self.clock: tuple[float, float] | None = None  # (seconds left, increment), for engines that manage time
        if game is not None:
            self._for(game)

    def _for(self, game: str) -> Player:
        p = self._players.get(game)
        if p is None:
            module = engine_module(game)
            factory = getattr(module, "level_player", None) if module is not None else None
            p = factory(self.n) if factory is not None else generic_level(self.n)
            self._players[game] = p
        return p

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        player = self._for(board.game)
        if self.clock is not None and hasattr(player, "clock"):
            player.clock = self.clock
        return player.choose(board, limit)


def analyse_position(board: BaseBoard, limit: Limit | None = None) -> Analysis:
    """Analyse with the game's engine when it has one, else a generic search."""
    module = engine_module(board.game)
    fn = getattr(module, "analyse", None) if module is not None else None
    if fn is not None:
        result = fn(board, limit)
        assert isinstance(result, Analysis)
        return result
    from tabletop.ai.generic import MinimaxPlayer

    return MinimaxPlayer(seconds=1.0).analyse(board, limit)
