"""The rules library's hot calls in this tree beside the same calls of an earlier revision, in one process.

    .venv/bin/python benchmarks/rules_against_revision.py REV [--rounds N]

Loads ``src/tabletop/games/renju.py`` and ``src/tabletop/games/reversi.py`` as they are at
git revision REV into modules of their own, checks that both versions give the same answers on
the same positions, and times them in alternating rounds:

- ``renju.forbidden_points`` on 300 positions of seeded random Renju games (ply 10-60);
- ``reversi.Board.legal_moves`` and ``flips`` on 2,000 positions of seeded random 8x8 games.

Run it with nothing else busy if you can: the paired ratio is the figure to read under load.

It prints each side's best time and the median of the paired ratios (this tree / REV), so a
refactor that is meant to change no speed can show it.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from tabletop.games import renju, reversi
from tabletop.games.mnk import RenjuBoard, gomoku

ROOT = Path(__file__).resolve().parents[1]


def module_at(rev: str, path: str, name: str, folder: Path) -> ModuleType:
    try:
        text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    except subprocess.CalledProcessError as exc:
        sys.exit(f"rules_against_revision: cannot read {path} at {rev!r}: {exc.stderr.strip()}")
    file = folder / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def renju_positions(count: int) -> list[tuple[list[int], list[int], tuple[int, ...]]]:
    rng = random.Random(1)
    out: list[tuple[list[int], list[int], tuple[int, ...]]] = []
    while len(out) < count:
        board = gomoku(15, "renju")
        assert isinstance(board, RenjuBoard)
        plies = rng.randrange(10, 60)
        while len(board.move_stack) < plies and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            # the padded grid and Black's stones that the board hands the scan
            out.append((list(board._grid), list(board._blacks), board._dirs))
    return out


def reversi_texts(count: int) -> list[str]:
    rng = random.Random(2)
    out: list[str] = []
    while len(out) < count:
        board = reversi.Board()
        for _ in range(rng.randrange(0, 56)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            out.append(board.to_text())
    return out


def paired(new: Callable[[], Any], old: Callable[[], Any], rounds: int) -> tuple[float, float, float]:
    if new() != old():
        sys.exit("rules_against_revision: the two versions disagree")
    news: list[float] = []
    olds: list[float] = []
    for k in range(rounds):
        for fn, times in ((new, news), (old, olds)) if k % 2 else ((old, olds), (new, news)):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
    ratios = [n / o for n, o in zip(news, olds, strict=True)]
    return min(news), min(olds), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare with, like HEAD~3 or 618f311")
    parser.add_argument("--rounds", type=int, default=21, help="alternating rounds (default 21)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old_renju = module_at(args.rev, "src/tabletop/games/renju.py", "renju_at_rev", Path(folder))
        old_reversi = module_at(args.rev, "src/tabletop/games/reversi.py", "reversi_at_rev", Path(folder))

    positions = renju_positions(300)
    new_t, old_t, ratio = paired(
        lambda: [renju.forbidden_points(g, b, d) for g, b, d in positions],
        lambda: [old_renju.forbidden_points(g, b, d) for g, b, d in positions],
        args.rounds,
    )
    print(f"renju.forbidden_points, 300 positions: this tree {new_t * 1e6 / 300:.1f} us a position, "
          f"{args.rev} {old_t * 1e6 / 300:.1f} us; median ratio {ratio:.3f}")

    texts = reversi_texts(2000)
    new_boards = [reversi.Board(t) for t in texts]
    old_boards = [old_reversi.Board(t) for t in texts]

    def legal(boards: list[Any]) -> list[Any]:
        return [board.legal_moves for board in boards for _ in range(5)]

    def flips(boards: list[Any]) -> list[Any]:
        return [board.flips(m) for board in boards for m in board.legal_moves]

    for what, fn in (("legal_moves, 5 calls a position", legal), ("flips of every legal move", flips)):
        new_t, old_t, ratio = paired(partial(fn, new_boards), partial(fn, old_boards), args.rounds)
        print(f"reversi {what}, 2,000 positions: this tree {new_t * 1e3:.2f} ms, "
              f"{args.rev} {old_t * 1e3:.2f} ms; median ratio {ratio:.3f}")

if __name__ == "__main__":
    main()
