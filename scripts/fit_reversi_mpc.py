"""Fit the Multi-ProbCut table of the Reversi search from positions the engine plays itself.

    python scripts/fit_reversi_mpc.py [--games 120] [--depth 10] [--jobs 2] [--seed 1] [--out PATH]

1. Self-play games (seeded): a few random opening moves, then a shallow search with
   occasional random moves, so the positions are varied but plausible.
2. For sampled midgame positions: the position's value at every depth 1..``--depth``
   (plain alpha-beta, no cuts), with today's weights (``eval.default_weights()``).
3. For sampled endgame positions (up to ``--end-max`` empties): the exact final score and
   the value of a shallow search.
4. Per phase (a band of empty squares) and depth pair, a least-squares line
   ``deep = a + b * shallow`` and the deviation of its residuals; depths beyond the
   measured ones continue the deviation's linear trend.  The table goes to
   ``src/tabletop/ai/reversi/mpc.npz`` (``--out``) with a summary of how it was made.

Rerun it after the evaluation changes: the fits belong to the weights.  A few minutes on
two cores with the defaults.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import default_weights
from tabletop.ai.reversi.mpc import MPC_FILE, save_mpc, shallow_depth, table_from_fits
from tabletop.ai.reversi.search import Searcher

START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))  # black e4 d5, white d4 e5
PHASES = [(14, 20), (21, 28), (29, 36), (37, 44), (45, 52), (53, 60)]  # bands of empty squares
MAX_TABLE_DEPTH = 30  # midgame depths filled in (by extrapolation past --depth)
END_MIN = 10  # empties of the smallest endgame position fitted
END_TABLE_MAX = 34  # empties up to which the end column is filled in (extrapolated past --end-max)


def end_shallow_depth(empties: int) -> int:
    """The shallow depth that predicts the exact score from ``empties`` empty squares."""
    return max(1, min(8, shallow_depth(empties) - 2))


def _play_game(rng: random.Random, searcher: Searcher) -> list[tuple[int, int]]:
    # Positions (side to move, opponent) of one varied self-play game.
    p, o = START
    out: list[tuple[int, int]] = []
    ply = 0
    while True:
        moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
        if not moves:
            if not int(kernel.get_moves(np.uint64(o), np.uint64(p))):
                return out
            p, o = o, p
            continue
        out.append((p, o))
        squares = [s for s in range(64) if moves >> s & 1]
        if ply < 6 or rng.random() < 0.08:
            sq = rng.choice(squares)
        else:
            sq = searcher.search(p, o, depth=rng.choice((2, 3, 4))).best
        f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
        p, o = o ^ f, p ^ f ^ (1 << sq)
        ply += 1


def _measure(job: tuple[int, int, int, int, int]) -> list[tuple[str, int, int, list[int], float]]:
    """Values of the sampled positions of game ``seed``: ('mid', empties, 0, [v1..vD], 0) and
    ('end', empties, exact, [shallow], solve seconds)."""
    seed, depth, end_max, mid_per_game, end_per_game = job
    rng = random.Random(seed)
    searcher = Searcher(16.0)
    positions = _play_game(rng, searcher)
    rows: list[tuple[str, int, int, list[int], float]] = []
    mids = [q for q in positions if 64 - (q[0] | q[1]).bit_count() >= PHASES[0][0]]
    ends = [q for q in positions if END_MIN <= 64 - (q[0] | q[1]).bit_count() <= end_max]
    for p, o in rng.sample(mids, min(mid_per_game, len(mids))):
        searcher.clear()
        empties = 64 - (p | o).bit_count()
        values = [searcher.value(p, o, d) for d in range(1, min(depth, empties - 1) + 1)]
        rows.append(("mid", empties, 0, values, 0.0))
    for p, o in rng.sample(ends, min(end_per_game, len(ends))):
        searcher.clear()
        empties = 64 - (p | o).bit_count()
        shallow = searcher.value(p, o, end_shallow_depth(empties))
        started = time.perf_counter()
        exact = int(searcher.solve(p, o).score)
        rows.append(("end", empties, exact, [shallow], time.perf_counter() - started))
    return rows


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    b, a = np.polyfit(x, y, 1)
    sigma = float(np.std(y - (a + b * x), ddof=2))
    return float(a), float(b), max(sigma, 1.0)


def fit(
    rows: list[tuple[str, int, int, list[int], float]], depth: int, end_max: int
) -> tuple[
    dict[tuple[int, int], tuple[float, float, float]], dict[int, tuple[int, float, float, float]], list[str]
]:
    """The fits and a printable summary."""
    report: list[str] = []
    mid: dict[tuple[int, int], tuple[float, float, float]] = {}
    for lo, hi in PHASES:
        in_phase = [r for r in rows if r[0] == "mid" and lo <= r[1] <= hi]
        fitted: dict[int, tuple[float, float, float]] = {}
        for d in range(kernel.MPC_MIN_DEPTH, depth + 1):
            s = shallow_depth(d)
            pairs = [(r[3][s - 1], r[3][d - 1]) for r in in_phase if len(r[3]) >= d]
            if len(pairs) < 20:
                continue
            x, y = np.array(pairs, dtype=np.float64).T
            fitted[d] = _line(x, y)
            a, b, sigma = fitted[d]
            report.append(
                f"empties {lo:2d}-{hi:2d} depth {d:2d} from {s}: a {a:6.2f} b {b:5.3f} "
                f"sigma {sigma / kernel.SCALE:5.2f} discs ({len(pairs)} positions)"
            )
        if not fitted:
            continue
        known = sorted(fitted)
        trend = (
            np.polyfit(known, [fitted[d][2] for d in known], 1)
            if len(known) > 1
            else (0.0, fitted[known[0]][2])
        )
        deepest = fitted[known[-1]]
        for d in range(kernel.MPC_MIN_DEPTH, MAX_TABLE_DEPTH + 1):
            if d in fitted:
                a, b, sigma = fitted[d]
            else:
                a, b = deepest[0], deepest[1]
                sigma = max(deepest[2], float(np.polyval(trend, d)))
            for e in range(lo, hi + 1):
                mid[(e, d)] = (a, b, sigma)
    end: dict[int, tuple[int, float, float, float]] = {}
    end_rows = [r for r in rows if r[0] == "end"]
    end_fits: dict[int, tuple[float, float, float]] = {}
    for e in range(END_MIN, end_max + 1):
        near = [r for r in end_rows if abs(r[1] - e) <= 1 and end_shallow_depth(r[1]) == end_shallow_depth(e)]
        if len(near) < 20:
            continue
        x = np.array([r[3][0] for r in near], dtype=np.float64)
        y = np.array([r[2] * kernel.SCALE for r in near], dtype=np.float64)
        end_fits[e] = _line(x, y)
        a, b, sigma = end_fits[e]
        report.append(
            f"end empties {e:2d} from depth {end_shallow_depth(e)}: a {a:6.2f} b {b:5.3f} "
            f"sigma {sigma / kernel.SCALE:5.2f} discs ({len(near)} positions)"
        )
    if end_fits:
        known = sorted(end_fits)
        trend = (
            np.polyfit(known, [end_fits[e][2] for e in known], 1)
            if len(known) > 1
            else (0.0, end_fits[known[0]][2])
        )
        last = end_fits[known[-1]]
        for e in range(END_MIN, END_TABLE_MAX + 1):
            if e in end_fits:
                a, b, sigma = end_fits[e]
            elif e < known[0]:
                a, b, sigma = end_fits[known[0]]
            else:
                a, b = last[0], last[1]
                sigma = max(last[2], float(np.polyval(trend, e)))
            end[e] = (end_shallow_depth(e), a, b, sigma)
    times = [(r[1], r[4]) for r in end_rows if r[4] > 0.002]
    if len(times) >= 10:
        e, t = np.array(times).T
        slope, icpt = np.polyfit(e, np.log(t), 1)
        report.append(
            f"exact solves: about {np.exp(icpt + slope * 20):.3f} s at 20 empties, x{np.exp(slope):.2f} per empty "
            f"({len(times)} solves, {int(e.min())}-{int(e.max())} empties)"
        )
    return mid, end, report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=120, help="self-play games to sample (default 120)")
    ap.add_argument("--depth", type=int, default=10, help="deepest midgame search measured (default 10)")
    ap.add_argument(
        "--end-max", type=int, default=20, help="most empties of an endgame position solved (default 20)"
    )
    ap.add_argument(
        "--mid-per-game", type=int, default=4, help="midgame positions sampled per game (default 4)"
    )
    ap.add_argument(
        "--end-per-game", type=int, default=3, help="endgame positions sampled per game (default 3)"
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=MPC_FILE, help=f"where the table goes (default {MPC_FILE})")
    args = ap.parse_args(argv)
    for name in ("games", "depth", "jobs", "mid_per_game", "end_per_game"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 4 <= args.depth <= 16:
        ap.error("--depth must be 4..16")
    if not END_MIN + 2 <= args.end_max <= 26:
        ap.error(f"--end-max must be {END_MIN + 2}..26")
    if not args.out.parent.is_dir():
        ap.error(f"--out: no folder {args.out.parent}")
    default_weights()  # fail early on a broken weights file
    started = time.perf_counter()
    jobs = [
        (args.seed * 100_003 + g, args.depth, args.end_max, args.mid_per_game, args.end_per_game)
        for g in range(args.games)
    ]
    rows: list[tuple[str, int, int, list[int], float]] = []
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for i, part in enumerate(pool.imap_unordered(_measure, jobs), 1):
            rows.extend(part)
            print(
                f"\r{i}/{args.games} games, {len(rows)} positions, {time.perf_counter() - started:.0f} s",
                end="",
                file=sys.stderr,
            )
    print(file=sys.stderr)
    mid, end, report = fit(rows, args.depth, args.end_max)
    if not mid:
        print("fit_reversi_mpc: too few positions for any fit; raise --games", file=sys.stderr)
        return 1
    for line in report:
        print(line)
    table = table_from_fits(mid, end)
    save_mpc(
        table,
        args.out,
        made_by=f"scripts/fit_reversi_mpc.py --games {args.games} --depth {args.depth} --end-max {args.end_max} "
        f"--mid-per-game {args.mid_per_game} --end-per-game {args.end_per_game} --seed {args.seed}",
        positions=len(rows),
    )
    print(f"{len(rows)} positions, {time.perf_counter() - started:.0f} s; table written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
