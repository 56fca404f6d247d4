"""Level 10's search to a fixed depth on the stored middle games: nodes, threat nodes, processor seconds, moves.

Run: ``nice .venv/bin/python benchmarks/gomoku_depth_cost.py [--depth 8] [--rule freestyle,renju] [--taper N]
[--taper2 N] [--killers] [--vcf-nodes N] [--out FILE]``.  Each position of ``tabletop bench gomoku --speed`` (20 freestyle, 20 renju from our own
games) is searched with level 10's search settings (pruning, width, four rule) to ``--depth`` on a fresh
table; the totals are printed per rule, and ``--out`` writes each position's best move, score and depth
(JSON), so that two versions of the engine (``PYTHONPATH`` to another tree) can be compared move by move.
``--taper``, ``--taper2``, ``--killers`` and ``--vcf-nodes`` override level 10's (leave them out for a tree whose
Searcher has none).  It only measures.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tabletop.ai.gomoku import LEVELS, Position
from tabletop.ai.gomoku import engine as E
from tabletop.ai.gomoku import search as S
from tabletop.bench.gomoku_speed import load_positions, replay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--depth", type=int, default=8, help="the depth each search completes (default 8)")
    parser.add_argument("--rule", default="freestyle,renju", help="rules, comma-separated (default both)")
    parser.add_argument("--taper", type=int, default=None, help="candidates fewer from the fourth ply on")
    parser.add_argument("--taper2", type=int, default=None, help="candidates fewer still from the fifth ply on")
    parser.add_argument("--killers", action="store_true", help="try each ply's last cut-off moves early")
    parser.add_argument("--vcf-nodes", type=int, default=None, help="threat nodes of each VCF check in the search")
    parser.add_argument("--out", help="write each position's (move, score, depth) to this JSON file")
    args = parser.parse_args()
    E.warm_up()
    settings = LEVELS[10]
    extra: dict[str, Any] = {} if args.taper is None else {"taper": args.taper}
    if args.taper2 is not None:
        extra["taper2"] = args.taper2
    if args.killers:
        extra["killers"] = True
    if args.vcf_nodes is not None:
        extra["vcf_nodes"] = args.vcf_nodes
    rules = args.rule.split(",")
    results: dict[str, list[tuple[int, int, int]]] = {}
    for rule, lines in load_positions().items():
        if rule not in rules:
            continue
        nodes = threat_nodes = 0
        cpu = 0.0
        rows = []
        for moves in lines:
            pos = Position.from_board(replay(rule, moves))
            S._table.cache_clear()  # a fresh table: the last position's entries would help this one
            started = time.process_time()
            result = S.Searcher(pos, width=settings.width, tt_entries=E.TT_ENTRIES, pruning=True,
                                extend_fours=settings.extend_fours, **extra).search(args.depth)
            cpu += time.process_time() - started
            nodes += result.nodes
            threat_nodes += result.threat_nodes
            rows.append((result.best, result.score, result.depth))
        results[rule] = rows
        print(f"{rule} to depth {args.depth}: {nodes:,} nodes, {threat_nodes:,} threat nodes, {cpu:.2f} processor s",
              flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
