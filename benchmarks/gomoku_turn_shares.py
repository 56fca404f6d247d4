"""Level 10's whole turn on the stored middle games under two settings of the search's share of a turn.

Run: ``nice .venv/bin/python benchmarks/gomoku_turn_shares.py [--seconds 1] [OLD NEW]`` where each of
OLD and NEW is ``SEARCH_SHARE,SEARCH_SHARE_VCT,TURN_OVERHEAD`` (:mod:`tabletop.ai.gomoku.engine`;
default ``0.9,0.8,0`` against the engine's own).  Each position of ``tabletop bench gomoku --speed``
(20 freestyle, 20 renju from our own games) is given to a fresh level 10 with each setting in turn, so
both see the same load (each on a fresh transposition table); the summary is over the undecided positions (no forced win found, the first
setting's turn past 60 % of its time): the turn's median and longest milliseconds, the share of the
processor it got, and the depth its search completed.  It only measures.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import LEVELS
from tabletop.ai.gomoku import engine as E
from tabletop.ai.gomoku import search as search_module
from tabletop.bench.gomoku_speed import load_positions, replay


def shares(text: str) -> tuple[float, float, float]:
    try:
        search, search_vct, overrun = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not SEARCH_SHARE,SEARCH_SHARE_VCT,TURN_OVERHEAD") from None
    return search, search_vct, overrun


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=1.0, help="the turn (default 1)")
    parser.add_argument("settings", nargs="*", type=shares, help="OLD NEW (default: 0.9,0.8,0 and the engine's)")
    args = parser.parse_args()
    settings = args.settings or [(0.9, 0.8, 0.0), (E.SEARCH_SHARE, E.SEARCH_SHARE_VCT, E.TURN_OVERHEAD)]
    if len(settings) != 2:
        parser.error("give two settings, OLD and NEW")
    E.warm_up()
    for rule, lines in load_positions().items():
        turns: list[list[tuple[float, float, int, bool]]] = [[], []]
        for moves in lines:
            board = replay(rule, moves)
            for i, (E.SEARCH_SHARE, E.SEARCH_SHARE_VCT, E.TURN_OVERHEAD) in enumerate(settings):
                search_module._table.cache_clear()  # a fresh table: the first setting's entries would help the second
                started, cpu = time.perf_counter(), time.process_time()
                analysis = E.GomokuEngine(LEVELS[10]).analyse(board, Limit(seconds=args.seconds))
                turns[i].append((time.perf_counter() - started, time.process_time() - cpu, analysis.depth,
                                 analysis.forced_win is not None))
        undecided = [k for k, first in enumerate(turns[0]) if not first[3] and first[0] > 0.6 * args.seconds]
        for setting, rows in zip(settings, turns, strict=True):
            chosen = [rows[k] for k in undecided if not rows[k][3]]
            if not chosen:
                print(f"{rule} {setting}: no undecided position")
                continue
            print(f"{rule} {','.join(f'{x:g}' for x in setting)}: {len(chosen)} undecided, turn "
                  f"{1000 * statistics.median(r[0] for r in chosen):.0f} ms median, "
                  f"{1000 * max(r[0] for r in chosen):.0f} longest, processor share "
                  f"{statistics.median(r[1] / r[0] for r in chosen):.2f}, depth "
                  f"{statistics.fmean(r[2] for r in chosen):.2f} mean {[r[2] for r in chosen]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
