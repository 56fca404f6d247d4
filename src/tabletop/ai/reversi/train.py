"""Training data for the Reversi evaluation: self-play games in shards, and the labelled positions.

A shard is one compressed ``.npz`` file of ``games`` self-play games, made by one worker process from
its own seed, so that shards can be made in any order, on any number of cores, and a run that was
stopped goes on where it left off: a finished shard is written to a temporary name and renamed, so it
is either whole or absent.

A game: ``random_min``..``random_max`` random plies (drawn per game) so that games differ, then the
engine's own ``depth``-ply search plays every move, and from ``exact`` empty squares on the exact
solver plays perfectly.  Every position where the mover has a move is recorded with:

- ``outcome``: the game's final disc difference from the mover's side (empties to the winner).  From
  ``exact`` empties on it is the position's exact minimax value; before that it is what the engine's
  own play made of the position;
- ``score``: the ``depth``-ply search score (discs, mover's side) or the exact value where solved;
- ``exact``: whether the position was solved.

See ``WEIGHTS.md`` for how the fit uses them.  This module searches and writes files; the fit is in
:mod:`tabletop.ai.reversi.fit`.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.search import Searcher

__all__ = [
    "GenConfig",
    "ShardError",
    "generate",
    "load_shard",
    "make_shard",
    "play_game",
    "shard_files",
    "shard_path",
    "shard_seed",
]

START_BLACK = (1 << 28) | (1 << 35)  # d5, e4 (a1 top-left, squares row * 8 + col)
START_WHITE = (1 << 27) | (1 << 36)  # d4, e5
SHARD_FIELDS = ("player", "opponent", "outcome", "score", "exact", "game")


class ShardError(ValueError):
    """A shard file that cannot be read or does not hold what a shard holds; the message names it."""


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


def shard_path(directory: Path, config: GenConfig, index: int) -> Path:
    return directory / f"reversi-{config.tag()}-{index:06d}.npz"


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


def make_shard(directory: Path, config: GenConfig, index: int, searcher: Searcher | None = None) -> int:
    """Play shard ``index`` and write it (whole, or not at all); the number of positions written.
    A shard that is already there is kept as it is."""
    path = shard_path(directory, config, index)
    if path.exists():
        return len(load_shard(path)["outcome"])
    searcher = searcher or Searcher(config.tt_mb)
    rng = random.Random(shard_seed(config, index))
    parts = []
    for g in range(config.games):
        game = play_game(searcher, rng, config)
        game["game"] = np.full(len(game["outcome"]), index * config.games + g, dtype=np.int64)
        parts.append(game)
    data = {name: np.concatenate([part[name] for part in parts]) for name in SHARD_FIELDS}
    directory.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as out:
        np.savez_compressed(out, **data)  # type: ignore[arg-type]  # numpy's stub types the first keyword
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    return len(data["outcome"])


def load_shard(path: Path) -> dict[str, np.ndarray]:
    """A shard's arrays; :class:`ShardError` naming the file when it is not a whole shard."""
    try:
        with np.load(path) as data:
            arrays = {name: data[name] for name in SHARD_FIELDS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ShardError(f"{path}: not a readable training shard ({exc.__class__.__name__}: {exc})") from None
    n = len(arrays["outcome"])
    if any(len(a) != n for a in arrays.values()):
        raise ShardError(f"{path}: its arrays have different lengths")
    return arrays


_WORKER: dict[str, Searcher] = {}


def _worker_shard(directory: str, config: GenConfig, index: int) -> tuple[int, int]:
    searcher = _WORKER.get("searcher")
    if searcher is None:
        searcher = _WORKER["searcher"] = Searcher(config.tt_mb)
    return index, make_shard(Path(directory), config, index, searcher)


def generate(
    directory: Path, config: GenConfig, shards: int, jobs: int, on_shard: Callable[[int, int, bool], None]
) -> None:
    """Make shards ``0..shards-1`` in ``jobs`` worker processes; ``on_shard(index, positions, new)`` is
    called in this process as each one is there (``new``: made now, not found from an earlier run)."""
    if shards < 1:
        raise ValueError(f"the number of shards must be at least 1, not {shards}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    directory.mkdir(parents=True, exist_ok=True)
    todo = []
    for index in range(shards):
        path = shard_path(directory, config, index)
        if path.exists():
            on_shard(index, len(load_shard(path)["outcome"]), False)
        else:
            todo.append(index)
    if not todo:
        return
    context = multiprocessing.get_context("spawn")  # no inherited numba or thread state
    pool = context.Pool(jobs)
    try:
        for index, positions in pool.imap_unordered(_worker_shard_args, [(str(directory), config, i) for i in todo]):
            on_shard(index, positions, True)
        pool.close()
    except BaseException:
        pool.terminate()  # the workers' unfinished shards are lost, the finished ones are on disk whole
        raise
    finally:
        pool.join()


def _worker_shard_args(args: tuple[str, GenConfig, int]) -> tuple[int, int]:
    return _worker_shard(*args)


def shard_files(directory: Path) -> list[Path]:
    """Every finished shard in ``directory`` (any settings), in name order."""
    if not directory.is_dir():
        raise ShardError(f"{directory}: no such directory of training shards")
    return sorted(directory.glob("reversi-*.npz"))
