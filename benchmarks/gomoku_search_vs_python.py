"""The compiled Gomoku search against the plain-Python search it replaced, in one process.

Run: ``.venv/bin/python benchmarks/gomoku_search_vs_python.py [DEPTH]`` (default 6).
The positions are middle games of level-5 self-play from two-stone starts (12, 22 and 32
stones); both searches run each to the same depth at width 8, one after the other, and
the script prints their nodes a second, the ratio, and whether the scores agree.  The
Python search is the tests' oracle, ``tests/gomoku_reference_search.py``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gomoku_reference_search import Searcher as PythonSearcher  # noqa: E402
from tabletop.ai.gomoku.engine import level_player, warm_up  # noqa: E402
from tabletop.ai.gomoku.position import Position  # noqa: E402
from tabletop.ai.gomoku.search import Searcher  # noqa: E402
from tabletop.games.mnk import GomokuBoard, gomoku  # noqa: E402


def middle_games() -> list[GomokuBoard]:
    boards: dict[tuple[tuple[int, int], ...], GomokuBoard] = {}
    for seed in range(6):
        rng = random.Random(seed)
        board = gomoku(15, "freestyle")
        board.push(board.move_at(7, 7))
        board.push(board.move_at(7 + rng.choice([-1, 1]), 7 + rng.choice([-1, 0, 1])))
        player = level_player(5)
        while not board.is_game_over() and len(board.move_stack) < 32:
            board.push(player.choose(board))
            if len(board.move_stack) in (12, 22, 32):
                boards[tuple((m.col, m.row) for m in board.move_stack)] = board.copy()
    return list(boards.values())


def main() -> int:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    warm_up()
    python_nodes = kernel_nodes = 0
    python_time = kernel_time = 0.0
    agree = 0
    boards = middle_games()
    for board in boards:
        pos = Position.from_board(board)
        started = time.perf_counter()
        ref = PythonSearcher(pos, width=8, tt_entries=1 << 21).search(depth)
        middle = time.perf_counter()
        got = Searcher(pos, width=8, tt_entries=1 << 21).search(depth)
        ended = time.perf_counter()
        python_nodes += ref.nodes
        kernel_nodes += got.nodes
        python_time += middle - started
        kernel_time += ended - middle
        agree += ref.score == got.score
        print(f"{len(board.move_stack):3d} stones  python {ref.nodes:8d} nodes {middle - started:6.2f} s"
              f"   numba {got.nodes:8d} nodes {ended - middle:6.2f} s   score {ref.score} / {got.score}")
    python_rate = python_nodes / python_time
    kernel_rate = kernel_nodes / kernel_time
    print(f"depth {depth}, width 8, {len(boards)} positions: numba {kernel_rate:,.0f} nodes/s, "
          f"reference (Python) {python_rate:,.0f} nodes/s (x{kernel_rate / python_rate:.1f}); "
          f"scores agree on {agree} of {len(boards)}")
    return 0 if agree == len(boards) else 1


if __name__ == "__main__":
    sys.exit(main())
