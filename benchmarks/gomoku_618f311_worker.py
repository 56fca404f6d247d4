"""The other half of ``benchmarks/gomoku_search_vs_618f311.py``: run with 618f311's source first
on ``PYTHONPATH``, it answers one request a line on stdin with one JSON line on stdout.

Requests: ``search DEPTH WIDTH RULE SIZE TEXT`` (the alpha-beta search to DEPTH) and
``vcf NODES RULE SIZE TEXT`` (the VCF solver within NODES), TEXT a position text of
:func:`tabletop.games.mnk.gomoku`.  Only names that exist at 618f311 are used.
"""

from __future__ import annotations

import json
import sys
import time

from tabletop.ai.gomoku.engine import warm_up
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.search import Searcher
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.mnk import gomoku

REPEATS = 3  # each VCF solve is timed this many times, the fastest kept (as the main script does)


def main() -> None:
    warm_up()
    print(json.dumps({"ready": True}), flush=True)
    for raw in sys.stdin:
        parts = raw.split(maxsplit=5 if raw.startswith("search") else 4)
        if parts[0] == "search":
            depth, width, rule, size, text = int(parts[1]), int(parts[2]), parts[3], int(parts[4]), parts[5].strip()
            pos = Position.from_board(gomoku(size, rule, position=text))
            started = time.perf_counter()
            result = Searcher(pos, width=width, tt_entries=1 << 21).search(depth)
            took = time.perf_counter() - started
            print(json.dumps({"nodes": result.nodes, "seconds": took, "score": result.score}), flush=True)
        else:
            nodes, rule, size, text = int(parts[1]), parts[2], int(parts[3]), parts[4].strip()
            pos = Position.from_board(gomoku(size, rule, position=text))
            took = float("inf")
            for _ in range(REPEATS):  # the fastest of a few: one solve takes well under a time slice
                solver = ThreatSolver(pos, max_nodes=nodes)
                started = time.perf_counter()
                line = solver.vcf()
                took = min(took, time.perf_counter() - started)
            print(json.dumps({"nodes": solver.nodes, "seconds": took, "line": line}), flush=True)


if __name__ == "__main__":
    main()
