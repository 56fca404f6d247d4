"""Gomoku rules speed: random playouts and the Renju forbidden-point scan, each beside a reference.

Figures, all measured in one process:

- random playouts per second on 15x15 freestyle, with the generic m,n,k
  board (``mnk.Board(15, 15, 5)``, the same rules without Gomoku's shortcuts)
  as the reference;
- random playouts per second on 15x15 renju (forbidden points are left out
  of Black's legal moves at every Black turn, so each ply pays a full scan);
- the full-board Renju forbidden scan in microseconds per position, on
  positions from seeded random Renju games, with the naive scan (judge every
  empty point, no filter) as the reference.  The target is under 1 ms.

Then, when ``tabletop.bench.gomoku_engine`` exists, its
``run_engine_bench(args)`` adds the engine figures.

This module only measures and prints; it must not change any rule.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from tabletop.games import renju
from tabletop.games.mnk import Board, RenjuBoard, gomoku


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=2.0, help="time for each playout figure (default 2)")
    parser.add_argument("--positions", type=int, default=300, help="positions for the forbidden scan (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--no-engine", action="store_true", help="skip the engine figures")


def playouts_per_second(make: Callable[[], Board], seconds: float, seed: int) -> float:
    """Random games played to the end from ``make()`` per second (at least one game)."""
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while True:
        board = make()
        while True:
            legal = board.legal_moves
            if not legal:
                break
            board.push(rng.choice(legal))
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def renju_positions(count: int, seed: int) -> list[RenjuBoard]:
    """``count`` positions from seeded random Renju games, Black to move, from
    the 10th ply on (earlier ones have no forbidden point worth timing)."""
    rng = random.Random(seed)
    positions: list[RenjuBoard] = []
    while len(positions) < count:
        board = gomoku(rule="renju")
        assert isinstance(board, RenjuBoard)
        while not board.is_game_over() and len(positions) < count:
            board.push(rng.choice(board.legal_moves))
            if board.turn.name == "BLACK" and len(board.move_stack) >= 10 and not board.is_game_over():
                positions.append(board.copy())
    return positions


def scan_microseconds(positions: list[RenjuBoard], naive: bool, repeats: int) -> list[float]:
    """Microseconds per full-board scan for each position (best of ``repeats``)."""
    times = []
    for board in positions:
        grid, blacks, dirs = list(board._grid), list(board._blacks), board._dirs
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            if naive:
                renju.forbidden_points_naive(grid, dirs)
            else:
                renju.forbidden_points(grid, blacks, dirs)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
    return times


def run(args: argparse.Namespace) -> int:
    results: dict[str, Any] = {}
    seconds = max(0.05, float(args.seconds))
    results["freestyle_playouts_per_s"] = playouts_per_second(lambda: gomoku(), seconds, args.seed)
    results["mnk_reference_playouts_per_s"] = playouts_per_second(lambda: Board(15, 15, 5), seconds, args.seed)
    results["renju_playouts_per_s"] = playouts_per_second(lambda: gomoku(rule="renju"), seconds, args.seed)

    positions = renju_positions(max(1, int(args.positions)), args.seed)
    fast = scan_microseconds(positions, naive=False, repeats=3)
    slow = scan_microseconds(positions[: max(1, len(positions) // 5)], naive=True, repeats=1)
    forbidden_total = sum(len(b.forbidden_points()) for b in positions)
    results.update(
        {
            "scan_positions": len(positions),
            "scan_forbidden_points": forbidden_total,
            "scan_mean_us": statistics.fmean(fast),
            "scan_p99_us": sorted(fast)[min(len(fast) - 1, int(len(fast) * 0.99))],
            "scan_max_us": max(fast),
            "naive_scan_mean_us": statistics.fmean(slow),
        }
    )
    if args.json:
        print(json.dumps(results))
    else:
        ratio = results["freestyle_playouts_per_s"] / results["mnk_reference_playouts_per_s"]
        print("tabletop bench gomoku")
        print(f"  random playouts 15x15 freestyle   {results['freestyle_playouts_per_s']:10.1f} /s")
        print(f"    reference: generic m,n,k board  {results['mnk_reference_playouts_per_s']:10.1f} /s   (x{ratio:.1f})")
        print(f"  random playouts 15x15 renju       {results['renju_playouts_per_s']:10.1f} /s")
        print(
            f"  renju forbidden scan, full board  {results['scan_mean_us']:10.1f} us mean, "
            f"{results['scan_p99_us']:.1f} p99, {results['scan_max_us']:.1f} max "
            f"over {len(positions)} positions ({forbidden_total} forbidden points); target < 1000 us"
        )
        print(
            f"    reference: naive scan           {results['naive_scan_mean_us']:10.1f} us mean   "
            f"(x{results['naive_scan_mean_us'] / results['scan_mean_us']:.1f})"
        )
    if not args.no_engine:
        try:
            engine = importlib.import_module("tabletop.bench.gomoku_engine")
        except ModuleNotFoundError as exc:
            if exc.name != "tabletop.bench.gomoku_engine":
                raise
        else:
            code = engine.run_engine_bench(args)
            return int(code or 0)
    return 0
