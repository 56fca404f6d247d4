"""The compiled search and VCF solver against 618f311's (the last commit before them), in one run.

Run: ``.venv/bin/python benchmarks/gomoku_search_vs_618f311.py [DEPTH]`` (default 6).
618f311's ``src/`` must be unpacked in ``.bench-envs/gomoku-618f311/src``::

    mkdir -p .bench-envs/gomoku-618f311 && git archive 618f311 src | tar -x -C .bench-envs/gomoku-618f311

Its search runs in a child process (``benchmarks/gomoku_618f311_worker.py`` with that source
first on ``PYTHONPATH``); the two are asked about the same positions one after the other,
position by position, so both see the same machine load.  The positions are middle games of
seeded level-5 self-play (freestyle and renju, 12, 22 and 32 stones); the VCF solves are those
positions for both sides, the VCF positions of ``tabletop bench gomoku`` and the renju VCT
puzzles of ``tests/data`` for both sides (where the whole tree of fours is searched).  Printed: main-search nodes a second at DEPTH, width 8 (618f311's,
ours without pruning, which walks the same tree, and ours with the pruning the engine plays
with), and the VCF solver's time on the same solves (the fastest of REPEATS runs of each, on
both sides; its node counts must agree, the same search) with the ratio.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tabletop.ai.gomoku.engine import LEVELS, GomokuEngine, warm_up
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.search import Searcher
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.bench.gomoku_engine import VCF_POSITIONS
from tabletop.games.mnk import GomokuBoard, gomoku

ROOT = Path(__file__).resolve().parent.parent
OLD_SRC = ROOT / ".bench-envs" / "gomoku-618f311" / "src"
VCF_NODES = 200_000
# each VCF solve is timed REPEATS times on both sides and the fastest kept: most take well under
# a millisecond, so one time slice lost to the machine's other jobs would otherwise outweigh them
REPEATS = 3


def middle_games() -> list[GomokuBoard]:
    boards: list[GomokuBoard] = []
    for rule, seeds in (("freestyle", range(6)), ("renju", range(4))):
        for seed in seeds:
            board = gomoku(15, rule)
            board.push(board.move_at(7, 7))
            board.push(board.move_at(6 + 2 * (seed % 2), 6 + seed % 3))
            player = GomokuEngine(LEVELS[5], seed=seed)
            while not board.is_game_over() and len(board.move_stack) < 32:
                board.push(player.choose(board))
                if len(board.move_stack) in (12, 22, 32) and not board.is_game_over():
                    boards.append(board.copy())
    return boards


class Old:
    """618f311's engine in a child process."""

    def __init__(self) -> None:
        if not (OLD_SRC / "tabletop").is_dir():
            raise SystemExit(f"no 618f311 source in {OLD_SRC}: see this script's docstring")
        env = dict(os.environ, PYTHONPATH=str(OLD_SRC))
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "gomoku_618f311_worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("618f311's worker stopped")
        out: dict[str, Any] = json.loads(line)
        return out

    def ask(self, request: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def main() -> int:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    warm_up()
    old = Old()
    boards = middle_games()
    totals = {"old": [0, 0.0], "plain": [0, 0.0], "pruned": [0, 0.0]}
    same_tree = 0
    for board in boards:
        rule = str(getattr(board, "rule", "freestyle"))
        text = board.to_text()
        o = old.ask(f"search {depth} 8 {rule} {board.width} {text}")
        pos = Position.from_board(gomoku(board.width, rule, position=text))
        started = time.perf_counter()
        plain = Searcher(pos, width=8, tt_entries=1 << 21).search(depth)
        middle = time.perf_counter()
        pruned = Searcher(pos, width=8, tt_entries=1 << 21, pruning=True).search(depth)
        ended = time.perf_counter()
        totals["old"][0] += o["nodes"]
        totals["old"][1] += o["seconds"]
        totals["plain"][0] += plain.nodes
        totals["plain"][1] += middle - started
        totals["pruned"][0] += pruned.nodes
        totals["pruned"][1] += ended - middle
        same_tree += o["nodes"] == plain.nodes and o["score"] == plain.score
        print(f"{rule:9s} {len(board.move_stack):2d} stones  618f311 {o['nodes']:8d} nodes {o['seconds']:6.3f} s"
              f"  plain {plain.nodes:8d} {middle - started:6.3f} s  pruned {pruned.nodes:7d} {ended - middle:6.3f} s"
              f"  scores {o['score']} / {plain.score} / {pruned.score}")
    rate = {k: n / s for k, (n, s) in totals.items()}
    print(f"main search, depth {depth}, width 8, {len(boards)} positions: 618f311 {rate['old']:,.0f} nodes/s; "
          f"ours (same tree, {same_tree} of {len(boards)} equal in nodes and score) {rate['plain']:,.0f} nodes/s "
          f"(x{rate['plain'] / rate['old']:.2f}); with pruning {rate['pruned']:,.0f} nodes/s "
          f"(x{rate['pruned'] / rate['old']:.2f}), time to depth {totals['old'][1]:.2f} s -> "
          f"{totals['pruned'][1]:.2f} s")
    # the VCF solver: the same solves, from each middle game (the side to move) and the bench's positions
    solves: list[tuple[str, int, str]] = []
    for b in boards:
        # each middle game for both sides (the text's last field names the side to move)
        text = b.to_text()
        other = text[:-1] + ("O" if text.endswith("X") else "X")
        solves += [(str(getattr(b, "rule", "freestyle")), b.width, t) for t in (text, other)]
    solves += [(rule, size, text) for size, rule, text in VCF_POSITIONS.values()]
    # the renju VCT puzzles: no VCF there, so the solver searches the whole four tree
    puzzles = json.loads((ROOT / "tests" / "data" / "renju" / "vct-puzzles.json").read_text())["cases"]
    for case in puzzles:
        board = gomoku(15, "renju")
        for name in case["moves"]:
            board.push(board.parse_move(name.lower()))
        text = board.to_text()
        solves += [("renju", 15, text), ("renju", 15, text[:-1] + ("O" if text.endswith("X") else "X"))]
    old_time = new_time = 0.0
    old_nodes = new_nodes = 0
    agree = 0
    for rule, size, text in solves:
        o = old.ask(f"vcf {VCF_NODES} {rule} {size} {text}")
        pos = Position.from_board(gomoku(size, rule, position=text))
        took = float("inf")
        for _ in range(REPEATS):
            solver = ThreatSolver(pos, max_nodes=VCF_NODES)
            started = time.perf_counter()
            line = solver.vcf()
            took = min(took, time.perf_counter() - started)
        old_time += o["seconds"]
        new_time += took
        old_nodes += o["nodes"]
        new_nodes += solver.nodes
        agree += (o["line"] is None) == (line is None) and o["nodes"] == solver.nodes
    old.close()
    print(f"VCF solver, {len(solves)} solves (up to {VCF_NODES:,} nodes each): 618f311 {old_nodes:,} nodes in "
          f"{old_time:.3f} s ({old_nodes / old_time:,.0f} nodes/s), ours {new_nodes:,} nodes in {new_time:.3f} s "
          f"({new_nodes / new_time:,.0f} nodes/s): x{old_time / new_time:.1f} faster; "
          f"{agree} of {len(solves)} solves agree in result and nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
