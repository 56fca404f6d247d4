"""Gomoku engine figures for ``tabletop bench gomoku``: search speed, VCF solve times, peak memory.

- search nodes per second: the alpha-beta search (incremental numba
  patterns, Python tree) on seeded middle-game positions, ``--seconds`` each;
- VCF solve time on the positions of ``tests/test_vcf.py`` (a chain of seven
  fours on 20x20, a double four, an open four), with the length of the line;
- threat-solver nodes per second over those solves;
- peak memory of the process (resident set, from the OS) after a full-strength
  search with the default transposition-table bound; the engine's target is
  under 300 MB by default (Gomocup allows 350 MB).

:func:`run_engine_bench` is called by :mod:`tabletop.bench.gomoku` after the
rules figures; :func:`add_arguments` / :func:`run` let it run alone.  This
module only measures and prints.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from typing import Any

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import Position, analyse
from tabletop.ai.gomoku.search import Searcher
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.mnk import GomokuBoard, gomoku

__all__ = ["VCF_POSITIONS", "add_arguments", "run", "run_engine_bench"]

_EMPTY20 = "/".join(["-" * 20] * 9)
VCF_POSITIONS: dict[str, tuple[int, str, str]] = {
    # name: (size, rule, position text); the first is the seven-four chain of tests/test_vcf.py
    "seven-four chain 20x20": (
        20,
        "freestyle",
        "---------O----------/------------------XX/---------X----------/-------X-------X----/"
        "O-----X--X----X-----/--------O-XX--------/-XX-OX------O-------/-----X--------------/"
        "-X--X---------------/-X------------------/-O---O--------------/" + _EMPTY20 + " X",
    ),
    "double four 15x15": (
        15,
        "freestyle",
        "---------------/-O-------------/---------------/--------O------/--------X------/--------X------/"
        "--------X------/----OXXX-------/---------------/---------------/---------------/---------------/"
        "---------------/-O-----------O-/--------------- X",
    ),
    "open four 15x15": (
        15,
        "freestyle",
        "---------------/---------------/--O------------/---------O-----/---------------/-----O---------/"
        "---------------/-----XXX-------/---------------/---------------/---------------/---------------/"
        "---------------/---------------/--------------- X",
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def _middle_games(count: int, seed: int) -> list[GomokuBoard]:
    rng = random.Random(seed)
    boards: list[GomokuBoard] = []
    while len(boards) < count:
        b = gomoku(15)
        for _ in range(rng.randrange(8, 20)):
            near = [m for m in b.legal_moves if abs(m.col - 7) <= 3 and abs(m.row - 7) <= 3]
            b.push(rng.choice(near))
            if b.is_game_over():
                break
        if not b.is_game_over():
            boards.append(b)
    return boards


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # kilobytes on Linux, bytes on macOS
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def run_engine_bench(args: argparse.Namespace) -> int:
    seconds = max(0.05, float(getattr(args, "seconds", 2.0)))
    seed = int(getattr(args, "seed", 1))
    Position(15, 15)  # pays numba's start-up before anything is timed
    results: dict[str, Any] = {}
    nodes = 0
    spent = 0.0
    for board in _middle_games(3, seed):
        pos = Position.from_board(board)
        started = time.perf_counter()
        searcher = Searcher(pos, deadline=started + seconds)
        searcher.search()
        spent += time.perf_counter() - started
        nodes += searcher.nodes
    results["search_nodes_per_s"] = nodes / spent
    solves: dict[str, dict[str, float]] = {}
    threat_nodes = 0
    threat_time = 0.0
    for name, (size, rule, text) in VCF_POSITIONS.items():
        pos = Position.from_board(gomoku(size, rule, position=text))
        started = time.perf_counter()
        solver = ThreatSolver(pos, max_nodes=1_000_000)
        line = solver.vcf(depth=12)
        took = time.perf_counter() - started
        threat_nodes += solver.nodes
        threat_time += took
        solves[name] = {"ms": took * 1000, "fours": (len(line) - 1) // 2 if line else 0, "nodes": solver.nodes}
    results["vcf"] = solves
    results["threat_nodes_per_s"] = threat_nodes / threat_time if threat_time else 0.0
    deep = _middle_games(1, seed + 1)[0]
    analyse(deep, Limit(seconds=seconds))
    results["peak_rss_mb"] = _peak_rss_mb()
    results["memory_target_mb"] = 300
    if getattr(args, "json", False):
        print(json.dumps({"engine": results}))
    else:
        print("tabletop bench gomoku: engine")
        print(f"  alpha-beta search                 {results['search_nodes_per_s']:10.0f} nodes/s")
        print(f"  threat solver (VCF)               {results['threat_nodes_per_s']:10.0f} nodes/s")
        for name, s in solves.items():
            print(f"  VCF {name:30s} {s['ms']:8.1f} ms  ({int(s['fours'])} fours, {int(s['nodes'])} nodes)")
        print(f"  peak memory (resident)            {results['peak_rss_mb']:10.1f} MB   (target < 300 MB)")
    return 0


def run(args: argparse.Namespace) -> int:
    return run_engine_bench(args)
