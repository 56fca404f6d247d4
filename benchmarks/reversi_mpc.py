"""Multi-ProbCut beside the plain search, in one process: nodes, time and agreement by depth and selectivity.

    nice python benchmarks/reversi_mpc.py [--positions 16] [--depths 8,10] [--selectivity 1.0,1.5,2.0] [--seed 21]

Random midgame positions (14-35 random plies from the start); each is searched with a
fresh table to each depth by the plain search (the reference) and with cuts at each
selectivity.  Prints, per depth and selectivity, the nodes and seconds as a ratio to the
plain search, the mean difference of the root score in discs and how often the best
move is the plain search's.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.search import Searcher


def positions(count: int, seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out: list[tuple[int, int]] = []
    while len(out) < count:
        p, o = (1 << 28) | (1 << 35), (1 << 27) | (1 << 36)
        for _ in range(rng.randrange(14, 36)):
            moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
            if not moves:
                p, o = o, p
                continue
            sq = rng.choice([s for s in range(64) if moves >> s & 1])
            f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p ^ f ^ (1 << sq)
        if not Searcher.is_over(p, o) and (p | o).bit_count() < 50:
            out.append((p, o))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--positions", type=int, default=16)
    ap.add_argument("--depths", default="8,10")
    ap.add_argument("--selectivity", default="1.0,1.5,2.0")
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()
    try:
        depths = [int(d) for d in args.depths.split(",")]
        cuts = [float(t) for t in args.selectivity.split(",")]
    except ValueError:
        ap.error("--depths and --selectivity are comma-separated numbers")
    if args.positions < 1 or any(not 1 <= d <= 20 for d in depths) or any(t <= 0 for t in cuts):
        ap.error("--positions must be at least 1, depths 1..20 and selectivities positive")
    pos = positions(args.positions, args.seed)
    searcher = Searcher(32)
    searcher.search(*pos[0], depth=3, selectivity=1.0)  # compiled code loaded before timing
    print(
        f"{'depth':>5} {'sigmas':>6} {'nodes':>12} {'seconds':>8} {'nodes x':>8} {'time x':>7} {'|diff|':>7} {'same best':>9}"
    )
    for depth in depths:
        ref = []
        for t in [0.0, *cuts]:
            nodes, seconds, diffs, same = 0, 0.0, [], 0
            for i, (p, o) in enumerate(pos):
                searcher.clear()
                started = time.perf_counter()
                r = searcher.search(p, o, depth=depth, selectivity=t)
                seconds += time.perf_counter() - started
                nodes += r.nodes
                if t == 0.0:
                    ref.append((r.best, r.score, r.nodes, 0.0))
                diffs.append(abs(r.score - ref[i][1]))
                same += r.best == ref[i][0]
            if t == 0.0:
                plain_nodes, plain_seconds = nodes, seconds
            print(
                f"{depth:>5} {t:>6.1f} {nodes:>12,} {seconds:>8.2f} {nodes / plain_nodes:>8.3f} "
                f"{seconds / plain_seconds:>7.3f} {np.mean(diffs):>7.2f} {same:>5}/{len(pos)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
