"""The Reversi evaluation's cost per call: the shipped pattern set beside the earlier, smaller one.

Run: ``.venv/bin/python benchmarks/reversi_eval_cost.py [--positions 200000] [--rounds 5]``

Both sets are read by one evaluator compiled once, with each set's byte-read tables and a weight
table of its size passed in, so the figures differ only by the patterns; the kernel's own
``evaluate`` (the shipped set, tables compiled in as constants) is timed beside them.  Positions come
from random games.  Prints nanoseconds per call for each, and the ratio shipped / earlier.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from numba import njit

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import default_weights
from tabletop.ai.reversi.patterns import PATTERN_BASES, build_patterns

# the set the engine used before the 2x5 corner and the X-squares of the edge were added
EARLIER_BASES: list[tuple[str, list[tuple[int, int]]]] = [("edge", [(0, c) for c in range(8)])] + [
    base for base in PATTERN_BASES if base[0] not in ("edge2x", "corner2x5")
]


@njit(cache=True)
def _evaluate_with(p: np.uint64, o: np.uint64, weights: np.ndarray, offsets: np.ndarray, start: np.ndarray,
                   variant: np.ndarray, shift: np.ndarray, table: np.ndarray) -> int:
    empties = 64 - kernel.count(p | o)
    n_phases = weights.shape[0]
    phase = min(n_phases - 1, max(0, (60 - empties) * n_phases // 60))
    w = weights[phase]
    n = w.shape[0] - 4
    total = w[n + 3]
    views_p = kernel._views(p)
    views_o = kernel._views(o)
    for i in range(offsets.shape[0]):
        idx = 0
        for e in range(start[i], start[i + 1]):
            v = variant[e]
            bp = p if v == 0 else views_p[v - 1]
            bo = o if v == 0 else views_o[v - 1]
            sh = shift[e]
            idx += table[e, int((bp >> sh) & np.uint64(0xFF))] + 2 * table[e, int((bo >> sh) & np.uint64(0xFF))]
        total += w[offsets[i] + idx]
    total += w[n] * (kernel.count(kernel.get_moves(p, o)) - kernel.count(kernel.get_moves(o, p)))
    total += w[n + 1] * (kernel._potential(p, o) - kernel._potential(o, p))
    total += w[n + 2] * (1 if empties & 1 else -1)
    return int(total)


@njit(cache=True)
def _sum_with(ps: np.ndarray, os: np.ndarray, weights: np.ndarray, offsets: np.ndarray, start: np.ndarray,
              variant: np.ndarray, shift: np.ndarray, table: np.ndarray) -> int:
    total = 0
    for i in range(ps.shape[0]):
        total += _evaluate_with(ps[i], os[i], weights, offsets, start, variant, shift, table)
    return total


@njit(cache=True)
def _sum_kernel(ps: np.ndarray, os: np.ndarray, weights: np.ndarray) -> int:
    total = 0
    for i in range(ps.shape[0]):
        total += kernel.evaluate(ps[i], os[i], weights)
    return total


def _positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    ps, os_ = [], []
    while len(ps) < count:
        p, o = (1 << 28) | (1 << 35), (1 << 27) | (1 << 36)
        for _ in range(60):
            moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
            if not moves:
                p, o = o, p
                if not int(kernel.get_moves(np.uint64(p), np.uint64(o))):
                    break
                continue
            sq = rng.choice([s for s in range(64) if moves >> s & 1])
            f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p ^ f ^ (1 << sq)
            ps.append(p)
            os_.append(o)
    return np.array(ps[:count], dtype=np.uint64), np.array(os_[:count], dtype=np.uint64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ps, os_ = _positions(args.positions, seed=1)
    sets = {}
    for name, bases in (("earlier", EARLIER_BASES), ("shipped", PATTERN_BASES)):
        squares, offsets, names = build_patterns(bases)
        weights = np.random.default_rng(1).normal(0, 8, (12, int(names[-1][1]) + 4)).astype(np.float32)
        sets[name] = (weights, offsets, *kernel.build_pattern_reads(squares))
    shipped_weights = np.ascontiguousarray(default_weights(), dtype=np.float32)
    runs: dict[str, list[float]] = {"earlier": [], "shipped": [], "kernel.evaluate": []}
    for name in sets:
        _sum_with(ps[:10], os_[:10], *sets[name])  # compile or load before timing
    _sum_kernel(ps[:10], os_[:10], shipped_weights)
    for _ in range(args.rounds):  # alternating, so a busy minute hits every set alike
        for name in sets:
            t = time.perf_counter()
            _sum_with(ps, os_, *sets[name])
            runs[name].append(time.perf_counter() - t)
        t = time.perf_counter()
        _sum_kernel(ps, os_, shipped_weights)
        runs["kernel.evaluate"].append(time.perf_counter() - t)
    best = {name: min(times) / len(ps) * 1e9 for name, times in runs.items()}
    for name, bases in (("earlier", EARLIER_BASES), ("shipped", PATTERN_BASES)):
        print(f"{name:>16}: {best[name]:7.1f} ns per evaluation ({build_patterns(bases)[0].shape[0]} pattern instances)")
    print(f"{'kernel.evaluate':>16}: {best['kernel.evaluate']:7.1f} ns per evaluation (the shipped set, as searched)")
    print(f"ratio shipped / earlier: {best['shipped'] / best['earlier']:.2f}")


if __name__ == "__main__":
    main()
