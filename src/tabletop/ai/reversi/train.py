"""Training data for the Reversi evaluation: the self-play games of a shard, and their labelled positions.

A shard is ``games`` self-play games played from its own seed (:func:`shard_seed`: the run's seed
and the shard's index), so that shards can be made in any order, by any process on any machine, and
always come out the same.  :mod:`tabletop.train.reversi` makes them through the training runner and
stores them; this module only plays.

A game: ``random_min``..``random_max`` random plies (drawn per game) so that games differ, then the
engine's own ``depth``-ply search plays every move, and from ``exact`` empty squares on the exact
solver plays perfectly.  Every position where the mover has a move is recorded with:

- ``outcome``: the game's final disc difference from the mover's side (empties to the winner).  From
  ``exact`` empties on it is the position's exact minimax value; before that it is what the engine's
  own play made of the position;
- ``score``: the ``depth``-ply search score (discs, mover's side) or the exact value where solved;
- ``exact``: whether the position was solved.

See ``WEIGHTS.md`` for how the fit uses them.  This module searches and never touches a file; the fit
is in :mod:`tabletop.ai.reversi.fit`.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.search import Searcher

__all__ = ["SHARD_FIELDS", "GenConfig", "play_game", "play_shard", "shard_seed"]

START_BLACK = (1 << 28) | (1 << 35)  # d5, e4 (a1 top-left, squares row * 8 + col)
START_WHITE = (1 << 27) | (1 << 36)  # d4, e5
SHARD_FIELDS = ("player", "opponent", "outcome", "score", "exact", "game")


@dataclass(frozen=True)
class GenConfig:
    """How self-play games are made (the same for every shard of one data set)."""

    seed: int = 1
    games: int = 64  # games per shard
    depth: int = 6
    exact: int = 16
    random_min: int = 2
    random_max: int = 24
    tt_mb: float = 16.0

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"games per shard must be at least 1, not {self.games}")
        if not 1 <= self.depth <= 20:
            raise ValueError(f"search depth must be 1..20, not {self.depth}")
        if not 0 <= self.exact <= 24:
            raise ValueError(f"exact empties must be 0..24, not {self.exact}")
        if not 0 <= self.random_min <= self.random_max <= 60:
            raise ValueError(f"random plies must satisfy 0 <= min <= max <= 60, not {self.random_min}..{self.random_max}")
        if not self.tt_mb > 0:
            raise ValueError(f"the table size must be positive, not {self.tt_mb} MB")

    def tag(self) -> str:
        """A short name of the settings, part of every shard's file name: shards of other settings are
        never mistaken for these."""
        text = repr(sorted(asdict(self).items()))
        return hashlib.sha1(text.encode()).hexdigest()[:8]


def shard_seed(config: GenConfig, index: int) -> int:
    """The seed of shard ``index``: independent streams for every (run seed, shard)."""
    digest = hashlib.sha256(f"{config.seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _squares(mask: int) -> list[int]:
    return [sq for sq in range(64) if mask >> sq & 1]


def play_game(searcher: Searcher, rng: random.Random, config: GenConfig) -> dict[str, np.ndarray]:
    """One self-play game's recorded positions (see the module text)."""
    p, o = START_BLACK, START_WHITE
    black_to_move = True
    random_plies = rng.randint(config.random_min, config.random_max)
    ply = 0
    players: list[int] = []
    opponents: list[int] = []
    movers_black: list[bool] = []
    scores: list[float] = []
    exact: list[bool] = []
    searcher.clear()
    while not Searcher.is_over(p, o):
        moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
        if moves == 0:
            p, o = o, p
            black_to_move = not black_to_move
            continue
        empties = 64 - (p | o).bit_count()
        solved = empties <= config.exact
        if solved:
            result = searcher.solve(p, o)
        else:
            result = searcher.search(p, o, depth=config.depth)
        players.append(p)
        opponents.append(o)
        movers_black.append(black_to_move)
        scores.append(float(result.score))
        exact.append(solved)
        sq = rng.choice(_squares(moves)) if ply < random_plies and not solved else result.best
        f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
        p, o = o ^ f, p ^ f ^ (1 << sq)
        black_to_move = not black_to_move
        ply += 1
    final = Searcher.final_score(p, o)  # from the side that would move next
    black_final = final if black_to_move else -final
    outcome = [black_final if b else -black_final for b in movers_black]
    return {
        "player": np.array(players, dtype=np.uint64),
        "opponent": np.array(opponents, dtype=np.uint64),
        "outcome": np.array(outcome, dtype=np.int8),
        "score": np.array(scores, dtype=np.float32),
        "exact": np.array(exact, dtype=bool),
    }


def play_shard(config: GenConfig, index: int, searcher: Searcher | None = None) -> dict[str, np.ndarray]:
    """The positions of shard ``index``: ``config.games`` games from the shard's own seed, so the
    same (settings, index) always gives the same arrays, whichever process plays them."""
    searcher = searcher or Searcher(config.tt_mb)
    rng = random.Random(shard_seed(config, index))
    parts = []
    for g in range(config.games):
        game = play_game(searcher, rng, config)
        game["game"] = np.full(len(game["outcome"]), index * config.games + g, dtype=np.int64)
        parts.append(game)
    return {name: np.concatenate([part[name] for part in parts]) for name in SHARD_FIELDS}
