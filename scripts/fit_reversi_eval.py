"""Fit the Reversi pattern evaluation from self-play games labelled by exact endgame results.

    .venv/bin/python scripts/fit_reversi_eval.py --games 3000 --ridge 100 --seed 1

1. Self-play: each game starts with a random 4-ply opening and is played by a
   depth-2 search with noise (so the positions vary), recording every position.
2. Labels: every position with at most ``--exact`` empty squares (default 14) is
   solved exactly; earlier positions take the exact result of the game's first
   solved position, from their mover's side (the engine's own endgame verdict on
   how the game went).
3. Fit, per game phase, the correction to the hand-made table that best
   predicts the labels: ridge-regularised least squares solved by conjugate
   gradients on the normal equations (numpy only), so phases and patterns with
   little data stay near the hand-made values.  The last tenth of the games is
   held out; a phase keeps its fit only if the held-out error drops by at least
   ``--min-gain`` (early phases, whose labels are the noisiest, usually keep the
   hand-made table).

Runs on one CPU core in minutes; deterministic for a given ``--seed`` and
machine.  Prints the fit error per phase before and after.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import WEIGHTS_FILE, handmade_weights, load_weights, save_weights
from tabletop.ai.reversi.search import Searcher


def _phase(empties: int) -> int:
    return min(kernel.N_PHASES - 1, max(0, (60 - empties) // 10))


def play_games(games: int, exact: int, seed: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Positions (mover, opponent) and their labels (exact disc difference from the mover's side)."""
    rng = random.Random(seed)
    searcher = Searcher(16, weights=handmade_weights())
    positions: list[tuple[int, int]] = []
    labels: list[int] = []
    for g in range(games):
        p, o = (1 << 28) | (1 << 35), (1 << 27) | (1 << 36)
        game: list[tuple[int, int]] = []
        plies = 0
        label_at: list[int | None] = []
        while not Searcher.is_over(p, o):
            moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
            game.append((p, o))
            empties = 64 - (p | o).bit_count()
            label_at.append(int(searcher.solve(p, o).score) if empties <= exact else None)
            if moves == 0:
                p, o = o, p
                plies += 1
                continue
            squares = [s for s in range(64) if moves >> s & 1]
            if plies < 4:
                sq = rng.choice(squares)
            elif empties <= exact:
                sq = searcher.solve(p, o).best  # play the endgame perfectly
            else:
                result = searcher.search(p, o, depth=2, all_moves=True)
                sq = max(result.scores, key=lambda s: s.score + rng.gauss(0.0, 2.0)).square
            f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
            p, o = o ^ f, p ^ f ^ (1 << sq)
            plies += 1
        # The first exactly solved position labels every earlier one, by whose move it is.
        first = (
            next(i for i, v in enumerate(label_at) if v is not None)
            if any(v is not None for v in label_at)
            else None
        )
        if first is None:
            continue
        anchor = label_at[first]
        assert anchor is not None
        for i, (pp, oo) in enumerate(game):
            value = label_at[i]
            if value is None:
                # Every entry of the game list (passes included) changes the mover.
                same_side = (first - i) % 2 == 0
                value = anchor if same_side else -anchor
            positions.append((pp, oo))
            labels.append(value)
        if (g + 1) % 100 == 0:
            print(f"  {g + 1} games, {len(positions)} positions", file=sys.stderr, flush=True)
    return positions, labels


def features(positions: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pattern indices (n, instances), scalar features (n, 4) and phases (n,)."""
    n_inst = kernel.PATTERN_SQUARES.shape[0]
    idx = np.zeros((len(positions), n_inst), dtype=np.int64)
    scal = np.zeros((len(positions), 4), dtype=np.float64)
    phase = np.zeros(len(positions), dtype=np.int64)
    for i, (p, o) in enumerate(positions):
        up, uo = np.uint64(p), np.uint64(o)
        kernel.feature_indices(up, uo, idx[i])
        empties = 64 - (p | o).bit_count()
        scal[i, 0] = int(kernel.get_moves(up, uo)).bit_count() - int(kernel.get_moves(uo, up)).bit_count()
        scal[i, 1] = kernel._potential(up, uo) - kernel._potential(uo, up)
        scal[i, 2] = 1.0 if empties & 1 else -1.0
        scal[i, 3] = 1.0
        phase[i] = _phase(empties)
    return idx, scal, phase


def fit_phase(
    idx: np.ndarray, scal: np.ndarray, target: np.ndarray, ridge: float, iterations: int
) -> np.ndarray:
    """Least-squares correction (pattern weights then the 4 scalars) by conjugate gradients."""
    n_pat = kernel.N_PATTERN_WEIGHTS
    n_inst = idx.shape[1]
    flat = idx.ravel()

    def forward(x: np.ndarray) -> np.ndarray:
        return np.asarray(x[:n_pat][idx].sum(axis=1) + scal @ x[n_pat:])

    def backward(r: np.ndarray) -> np.ndarray:
        g = np.bincount(flat, weights=np.repeat(r, n_inst), minlength=n_pat)
        return np.concatenate([g, scal.T @ r])

    def normal(x: np.ndarray) -> np.ndarray:
        return backward(forward(x)) + ridge * x

    x = np.zeros(n_pat + 4)
    r = backward(target) - normal(x)
    d = r.copy()
    rr = float(r @ r)
    for _ in range(iterations):
        q = normal(d)
        step = rr / float(d @ q)
        x += step * d
        r -= step * q
        rr_new = float(r @ r)
        if rr_new < 1e-12:
            break
        d = r + (rr_new / rr) * d
        rr = rr_new
    return x


def search_labels(
    positions: list[tuple[int, int]], rows: np.ndarray, weights: np.ndarray, depth: int, exact: int
) -> np.ndarray:
    """Scores (discs, mover's side) of a ``depth``-ply search with ``weights`` (exact from
    ``exact`` empties) for the positions selected by ``rows``: the deeper-search labels."""
    searcher = Searcher(16, weights=weights.astype(np.float32))
    out = np.zeros(int(rows.sum()), dtype=np.float64)
    for k, i in enumerate(np.flatnonzero(rows)):
        p, o = positions[int(i)]
        out[k] = searcher.search(p, o, depth=depth, exact_empties=exact).score
    return out


def _parse_phases(text: str) -> list[int]:
    if text == "all":
        return list(range(kernel.N_PHASES))
    try:
        phases = [int(t) for t in text.split(",")]
    except ValueError:
        raise SystemExit(f"--phases: expected 'all' or a comma list of phases, not {text!r}") from None
    if not phases or any(not 0 <= p < kernel.N_PHASES for p in phases):
        raise SystemExit(f"--phases: phases run from 0 to {kernel.N_PHASES - 1}, not {text!r}")
    return phases


def _rms(residual: np.ndarray) -> float:
    return float(np.sqrt(np.mean(residual**2)) / kernel.SCALE) if residual.size else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument(
        "--exact", type=int, default=14, help="solve positions with at most this many empties"
    )
    parser.add_argument("--ridge", type=float, default=20.0)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--min-gain",
        type=float,
        default=0.08,
        help="keep a phase's fit when held-out error drops by this fraction",
    )
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    parser.add_argument(
        "--phases",
        default="all",
        help="comma list of phases to refit (others stay byte-identical to the start table)",
    )
    parser.add_argument(
        "--label-depth",
        type=int,
        default=0,
        help="label the refitted phases by a search this deep with the table fitted so far, "
        "latest phase first (bootstrapping backwards); 0 = the game's exact result (old behaviour)",
    )
    parser.add_argument(
        "--start",
        choices=["handmade", "shipped"],
        default="handmade",
        help="table the fit starts from (shipped = the current weights.npz)",
    )
    args = parser.parse_args(argv)
    phases = _parse_phases(args.phases)
    if args.label_depth < 0:
        raise SystemExit("--label-depth must be 0 or more")
    started = time.perf_counter()
    positions, labels = play_games(args.games, args.exact, args.seed)
    print(
        f"{len(positions)} positions from {args.games} games in {time.perf_counter() - started:.0f}s",
        file=sys.stderr,
    )
    idx, scal, phase = features(positions)
    start_table = load_weights() if args.start == "shipped" else None
    if args.start == "shipped" and start_table is None:
        raise SystemExit("--start shipped: no usable weights.npz")
    start = start_table if start_table is not None else handmade_weights()
    weights = start.astype(np.float64)
    y = np.asarray(labels, dtype=np.float64) * kernel.SCALE
    n_pat = kernel.N_PATTERN_WEIGHTS
    # The last tenth of the positions (the last games) is held out to check the fit generalises.
    held = np.arange(len(positions)) >= int(0.9 * len(positions))
    order = sorted(phases, reverse=True) if args.label_depth else phases
    for ph in order:
        rows = (phase == ph) & ~held
        test = (phase == ph) & held
        if rows.sum() < 100:
            continue
        if args.label_depth:
            # Relabel this phase by a deeper search that uses the later phases as fitted so far.
            t0 = time.perf_counter()
            y = y.copy()
            y[phase == ph] = kernel.SCALE * search_labels(
                positions, phase == ph, weights, args.label_depth, args.exact
            )
            print(
                f"  phase {ph} labelled at depth {args.label_depth} in {time.perf_counter() - t0:.0f}s",
                file=sys.stderr,
            )
        w = weights[ph].copy()
        current = w[:n_pat][idx[rows]].sum(axis=1) + scal[rows] @ w[n_pat:]
        residual = y[rows] - current
        delta = fit_phase(idx[rows], scal[rows], residual, args.ridge, args.iterations)
        weights[ph] = w + delta
        after = y[rows] - (weights[ph][:n_pat][idx[rows]].sum(axis=1) + scal[rows] @ weights[ph][n_pat:])
        before_rms = np.sqrt(np.mean(residual**2)) / kernel.SCALE
        after_rms = np.sqrt(np.mean(after**2)) / kernel.SCALE
        test_before = y[test] - (w[:n_pat][idx[test]].sum(axis=1) + scal[test] @ w[n_pat:])
        test_after = y[test] - (weights[ph][:n_pat][idx[test]].sum(axis=1) + scal[test] @ weights[ph][n_pat:])
        # Keep a phase's fit only when it clearly predicts the held-out games better.
        kept = _rms(test_after) <= (1.0 - args.min_gain) * _rms(test_before)
        if not kept:
            weights[ph] = w
        print(
            f"phase {ph}: {rows.sum()} positions, error {before_rms:.2f} -> {after_rms:.2f} discs; "
            f"held out {test.sum()}: {_rms(test_before):.2f} -> {_rms(test_after):.2f} "
            f"({'fitted' if kept else 'start table kept'})",
            file=sys.stderr,
        )
    out = np.asarray(start, dtype=np.float64).copy()
    for ph in phases:
        out[ph] = weights[ph]
    save_weights(out.astype(np.float32), args.out)
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
