"""Head-to-head match between two Reversi evaluation tables at a fixed search depth.

    nice -n 10 .venv/bin/python scripts/compare_reversi_weights.py /tmp/w.npz \
        --against src/tabletop/ai/reversi/weights.npz --openings 100 --depth 4 --exact 10 --jobs 2

Each of ``--openings`` distinct random openings (``--plies`` random legal moves from
the start position) is played twice, the candidate table taking each colour once;
both engines are ``Searcher.search(depth=--depth, exact_empties=--exact)`` with
fresh tables per game, so a run is deterministic for a ``--seed``.  Prints the
candidate's score (win 1, draw 1/2) with its standard error, computed over the
opening pairs (the two games of a pair are not independent), and the mean disc
difference.  ``--against handmade`` compares with the hand-made table.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import handmade_weights, read_weights
from tabletop.ai.reversi.search import Searcher

START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))  # (black = mover, white)


def _play(p: int, o: int, sq: int) -> tuple[int, int]:
    """Play ``sq`` for the mover ``p``; returns the next (mover, opponent)."""
    f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
    return o ^ f, p ^ f ^ (1 << sq)


def random_openings(count: int, plies: int, seed: int) -> list[tuple[int, int, int]]:
    """``count`` distinct positions (mover, opponent, plies played) after ``plies`` random moves."""
    rng = random.Random(seed)
    seen: set[tuple[int, int, int]] = set()
    out: list[tuple[int, int, int]] = []
    tries = 0
    while len(out) < count:
        tries += 1
        if tries > 100 * count + 1000:
            raise SystemExit(f"--openings: only {len(out)} distinct {plies}-ply openings found")
        p, o = START
        n = 0
        while n < plies and not Searcher.is_over(p, o):
            moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
            if moves:
                p, o = _play(p, o, rng.choice([s for s in range(64) if moves >> s & 1]))
            else:
                p, o = o, p
            n += 1
        key = (p, o, n % 2)
        if Searcher.is_over(p, o) or key in seen:
            continue
        seen.add(key)
        out.append(key)
    return out


def play_game(
    opening: tuple[int, int, int],
    black: np.ndarray,
    white: np.ndarray,
    depth: int,
    exact: int,
) -> int:
    """Final disc difference from Black's side, from ``opening``, each side searching with its table."""
    p, o, parity = opening
    engines = (Searcher(16, weights=black), Searcher(16, weights=white))
    side = parity  # 0: Black to move
    while not Searcher.is_over(p, o):
        if int(kernel.get_moves(np.uint64(p), np.uint64(o))) == 0:
            p, o = o, p
            side ^= 1
            continue
        sq = engines[side].search(p, o, depth=depth, exact_empties=exact).best
        p, o = _play(p, o, sq)
        side ^= 1
    mover_diff = Searcher.final_score(p, o)
    return mover_diff if side == 0 else -mover_diff


_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def _init(candidate: np.ndarray, reference: np.ndarray) -> None:
    global _TABLES
    _TABLES = (candidate, reference)


def _pair(job: tuple[tuple[int, int, int], int, int]) -> tuple[int, int]:
    """Candidate's disc difference as Black, then as White, from one opening."""
    opening, depth, exact = job
    assert _TABLES is not None
    cand, ref = _TABLES
    return play_game(opening, cand, ref, depth, exact), -play_game(opening, ref, cand, depth, exact)


def _points(diff: int) -> float:
    return 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0


def summarise(pairs: list[tuple[int, int]]) -> dict[str, float]:
    """Score (fraction of points) with its standard error over the pairs, and the mean disc difference."""
    pair_scores = np.array([(_points(a) + _points(b)) / 2 for a, b in pairs])
    diffs = np.array([d for pair in pairs for d in pair], dtype=np.float64)
    n = len(pair_scores)
    se = float(pair_scores.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return {
        "games": 2.0 * n,
        "score": float(pair_scores.mean()),
        "se": se,
        "wins": float(sum(d > 0 for d in diffs)),
        "draws": float(sum(d == 0 for d in diffs)),
        "losses": float(sum(d < 0 for d in diffs)),
        "discs": float(diffs.mean()),
    }


def _table(text: str) -> np.ndarray:
    if text == "handmade":
        return handmade_weights()
    try:
        return read_weights(Path(text))
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("candidate", help="weights .npz file (or 'handmade')")
    parser.add_argument(
        "--against", default=str(Path("src/tabletop/ai/reversi/weights.npz")), help="reference table"
    )
    parser.add_argument("--openings", type=int, default=100, help="openings, each played with both colours")
    parser.add_argument("--plies", type=int, default=6)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--exact", type=int, default=10, help="solve exactly from this many empties")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    if args.openings < 1 or args.depth < 1 or args.jobs < 1 or not 0 <= args.plies <= 20:
        raise SystemExit("--openings, --depth and --jobs must be at least 1, --plies 0 to 20")
    cand, ref = _table(args.candidate), _table(args.against)
    openings = random_openings(args.openings, args.plies, args.seed)
    jobs = [(op, args.depth, args.exact) for op in openings]
    started = time.perf_counter()
    if args.jobs == 1:
        _init(cand, ref)
        pairs = [_pair(job) for job in jobs]
    else:
        with Pool(args.jobs, initializer=_init, initargs=(cand, ref)) as pool:
            pairs = pool.map(_pair, jobs, chunksize=1)
    s = summarise(pairs)
    print(
        f"{args.candidate} vs {args.against}: {int(s['games'])} games "
        f"(+{int(s['wins'])} ={int(s['draws'])} -{int(s['losses'])}), "
        f"score {100 * s['score']:.1f}% +- {100 * s['se']:.1f}% (1 s.e. over pairs), "
        f"mean disc difference {s['discs']:+.2f}; depth {args.depth}, exact from {args.exact} empties, "
        f"{time.perf_counter() - started:.0f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
