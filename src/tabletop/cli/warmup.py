"""``python -m tabletop.cli.warmup``: compile every engine's numba kernels into numba's cache.

``make setup`` runs it, so that engines, the server and the tests load compiled kernels instead of
compiling them: the Reversi and Gomoku engines (:mod:`tabletop.ai.warmup`) and the batched
environments of :mod:`tabletop.envs` (reset and random steps of every game and size they offer).
The three parts run in parallel processes, one a core.  It must not change anything but numba's
cache.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

__all__ = ["warm_up_all", "warm_up_envs"]


def warm_up_envs() -> None:
    """Reset and step each batched environment (every game and Reversi size it offers), also with its
    own random legal actions."""
    from tabletop.envs.vector import VectorEnv

    configs: list[tuple[str, dict[str, object]]] = [
        ("reversi", {"size": 8}), ("reversi", {"size": 6}), ("reversi", {"size": 4}), ("tictactoe", {}),
        ("gomoku", {"size": 15, "rule": "freestyle"}), ("gomoku", {"size": 15, "rule": "standard"}),
        ("gomoku", {"size": 15, "rule": "caro"}),
    ]
    rng = np.random.default_rng(2)
    for game, options in configs:
        env = VectorEnv(game, num_envs=4, seed=0, **options)
        obs, info = env.reset(seed=0)
        for _ in range(3):
            mask = info["action_mask"]
            actions = np.array([int(rng.choice(np.flatnonzero(row))) for row in mask], dtype=np.int64)
            obs, _, _, _, info = env.step(actions)
        env.step(env.random_actions())


def _part(name: str) -> tuple[str, float]:
    started = time.perf_counter()
    if name == "gomoku":
        from tabletop.ai.gomoku.engine import warm_up

        warm_up()
    elif name == "reversi":
        from tabletop.ai.warmup import warm_up_reversi

        warm_up_reversi()
    else:
        warm_up_envs()
    return name, time.perf_counter() - started


def warm_up_all(jobs: int = 2) -> dict[str, float]:
    """Warm every engine, ``jobs`` parts at a time; returns the seconds each part took."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(_part, ["gomoku", "reversi", "envs"]))


if __name__ == "__main__":
    for part, seconds in warm_up_all().items():
        print(f"warmed {part} kernels in {seconds:.1f} s")
