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

With ``--judge-check N`` it also compares the forbidden sets (points and
kinds) of N positions with the Python port of Piskvork's Renju judge (PyPI
``renju==0.1.0``), installed on first use into its own virtual environment
under ``.bench-envs/renju`` (git-ignored); the port runs in a subprocess and
never becomes a dependency of tabletop.

Then, when ``tabletop.bench.gomoku_engine`` exists, its
``run_engine_bench(args)`` adds the engine figures.

With ``--vs COMMAND`` it measures strength instead: our level 10 against an
outside Gomocup (pbrain) engine, ``--games`` games of ``--rule`` at ``--think``
seconds a move for both, played by :mod:`tabletop.tournament` exactly as
``tabletop match gomoku --a level:10 --b gomocup:COMMAND`` plays them (balanced
three-stone openings, colours swapped in pairs, a failing engine loses its
game).  It prints the score beside both sides' seconds a move.  The README's
"Sparring against Rapfi" says how to build the usual yardstick.

With ``--speed`` it times level 10's search on the stored middle-game positions
instead, beside the ``--vs`` engine's own report of its search of them
(:mod:`tabletop.bench.gomoku_speed`).

This module only measures and prints; it must not change any rule.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletop.bench import add_gomoku_match_arguments, reference_python
from tabletop.errors import UsageError
from tabletop.games import renju
from tabletop.games.mnk import Board, RenjuBoard, gomoku

if TYPE_CHECKING:
    from tabletop.tournament import GameSpec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=2.0, help="time for each playout figure (default 2)")
    parser.add_argument("--positions", type=int, default=300, help="positions for the forbidden scan (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--no-engine", action="store_true", help="skip the engine figures")
    add_gomoku_match_arguments(parser)
    parser.add_argument("--vs", default=None, metavar="COMMAND",
                        help="instead of the speed figures, play level 10 against this Gomocup engine command "
                             "(as tabletop match --b gomocup:COMMAND) and print the score and the seconds a move")
    parser.add_argument("--games", type=int, default=10, help="games of the --vs match (default 10)")
    parser.add_argument("--rule", default=None, help="rule of the --vs match: freestyle (default), standard, renju "
                                                      "or caro; of --speed: freestyle or renju (default both)")
    parser.add_argument("--speed", action="store_true",
                        help="instead, time level 10's search on 20 stored middle-game positions a rule, --think "
                             "seconds each, beside the --vs engine's own report of its search of them (nodes a "
                             "second, time to each depth); without --vs, ours alone")
    parser.add_argument("--jobs", type=int, default=1, help="games of the --vs match played at once (default 1)")
    parser.add_argument("--openings", default="balanced", choices=("balanced", "renju26", "random3"),
                        help="where the --vs games start, as tabletop match --openings (default balanced)")
    parser.add_argument("--log", default=None, metavar="FILE",
                        help="write each --vs game to FILE (JSON lines) as it ends, as tabletop match --log")
    parser.add_argument(
        "--judge-check",
        type=int,
        default=0,
        metavar="N",
        help="compare the forbidden sets of N positions with the Piskvork judge port (pip renju==0.1.0, "
        "installed into .bench-envs/renju on first use)",
    )


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


# Runs inside the reference venv: reads positions as JSON on stdin, prints the
# ids of those whose forbidden set differs from ours.
_JUDGE_SCRIPT = """
import json, sys
from renju.check_forbid import get_foul_type
KINDS = {1: "double-three", 2: "double-four", 3: "overline"}
data = json.load(sys.stdin)
differ = []
for index, item in enumerate(data):
    rows = item["text"].split()[0].split("/")
    n = len(rows)
    grid = [[{"X": 1, "O": 2, "-": 0}[ch] for ch in row] for row in rows]
    theirs = {}
    for r in range(n):
        for c in range(n):
            if grid[r][c] == 0:
                kind = get_foul_type(grid, r, c)
                if kind:
                    theirs[chr(97 + c) + str(n - r)] = KINDS[kind]
    if theirs != item["forbidden"]:
        differ.append({"index": index, "ours": item["forbidden"], "theirs": theirs})
print(json.dumps({"positions": len(data), "differ": differ}))
"""


def judge_python(root: Path) -> Path:
    """The reference venv's python, created with ``renju==0.1.0`` on first use."""
    return reference_python(root, "renju", "renju==0.1.0")


def judge_check(count: int, seed: int) -> dict[str, Any]:
    """Compare our forbidden sets with the Piskvork judge port on ``count`` positions."""
    positions = renju_positions(count, seed + 1)
    payload = [
        {"text": b.to_text(), "forbidden": {str(m): b.forbidden(m) for m in b.forbidden_points()}} for b in positions
    ]
    python = judge_python(Path.cwd())
    with tempfile.TemporaryFile("w+") as stdin:
        json.dump(payload, stdin)
        stdin.seek(0)
        done = subprocess.run([str(python), "-c", _JUDGE_SCRIPT], stdin=stdin, capture_output=True, text=True, check=True)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def versus_specs(command: str, games: int, rule: str, think: float, seed: int,
                 kind: str = "balanced") -> list[GameSpec]:
    """The games of level 10 against ``gomocup:COMMAND``, as ``tabletop match`` schedules them."""
    from tabletop.games import new_board
    from tabletop.games.mnk import RULES
    from tabletop.tournament import openings, schedule

    if not command.strip():
        raise UsageError("--vs needs an engine command")
    if rule not in RULES:
        raise UsageError(f"--rule {rule!r} is not a Gomoku rule (known: {', '.join(RULES)})")
    if games < 1:
        raise UsageError("--games must be at least 1")
    if not think > 0:
        raise UsageError(f"--think must be positive, not {think}")
    options = {"rule": rule}
    try:
        book = openings("gomoku", new_board("gomoku", options), (games + 1) // 2, seed, kind)
    except ValueError as exc:
        raise UsageError(f"--openings: {exc}") from None
    return schedule("gomoku", options, "level:10", f"gomocup:{command}", games, book, think)


def play_versus(args: argparse.Namespace) -> dict[str, Any]:
    """Play the ``--vs`` match; its summary (``tabletop match --json``'s object) with the settings."""
    from tabletop.protocols.gomocup import GomocupError, GomocupPlayer
    from tabletop.tournament import GameLog, GameLogError, play_match

    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    args.rule = args.rule or "freestyle"
    specs = versus_specs(args.vs, int(args.games), args.rule, float(args.think), int(args.seed), args.openings)
    try:  # an engine that cannot start would lose every game: say so instead of scoring it
        with GomocupPlayer(args.vs) as probe:
            about = probe.identify(seconds=30)
    except GomocupError as exc:
        raise UsageError(f"--vs: {exc}") from None
    try:
        log = GameLog(args.log) if args.log else None
        report = play_match(specs, int(args.jobs), log=log)
    except (GameLogError, OSError) as exc:
        raise UsageError(f"--log: {exc}") from None
    summary = report.summary()
    summary.update({"engine": args.vs, "about": about, "rule": args.rule, "think": float(args.think),
                    "jobs": int(args.jobs), "openings": args.openings})
    return summary


def print_versus(summary: dict[str, Any]) -> None:
    print(f"tabletop bench gomoku: level 10 against {summary['engine']}")
    print(f"  the engine says: {summary['about']}")
    print(f"  {summary['rule']}, {summary['think']:g} s a move each, {summary['jobs']} game(s) at a time, "
          f"{summary['openings']} openings")
    print(f"  level 10 score {100 * summary['score']:5.1f} %   {summary['wins']} wins, {summary['draws']} draws, "
          f"{summary['losses']} losses of {summary['games']}   Elo {summary['elo']:+.0f} "
          f"[{summary['elo_low']:+.0f}, {summary['elo_high']:+.0f}]")
    print(f"  seconds a move   level 10 {summary['a_seconds_per_move']:.3f}   engine "
          f"{summary['b_seconds_per_move']:.3f}")
    print(f"  Black won {summary['black_wins']}, White won {summary['white_wins']}")
    for failure in summary["failures"]:
        side = "level 10" if failure["player"] == "A" else "the engine"
        print(f"  game {failure['game']} lost by {side} ({failure['color']}): {failure['kind']}: {failure['reason']}")


def run(args: argparse.Namespace) -> int:
    if args.speed:
        from tabletop.bench.gomoku_speed import side_by_side

        if args.vs is not None and not args.vs.strip():
            raise UsageError("--vs needs an engine command")
        rules = [args.rule] if args.rule else ["freestyle", "renju"]
        report = side_by_side(args.vs, float(args.think), rules, as_json=args.json)
        if args.json:
            print(json.dumps(report))
        return 0
    if args.vs is not None:
        summary = play_versus(args)
        if args.json:
            print(json.dumps(summary))
        else:
            print_versus(summary)
        return 0
    results: dict[str, Any] = {}
    seconds = max(0.05, float(args.seconds))
    results["freestyle_playouts_per_s"] = playouts_per_second(lambda: gomoku(), seconds, args.seed)
    results["mnk_reference_playouts_per_s"] = playouts_per_second(lambda: Board(15, 15, 5), seconds, args.seed)
    results["renju_playouts_per_s"] = playouts_per_second(lambda: gomoku(rule="renju"), seconds, args.seed)

    positions = renju_positions(max(1, int(args.positions)), args.seed)
    fast = scan_microseconds(positions, naive=False, repeats=3)
    slow = scan_microseconds(positions, naive=True, repeats=1)
    results.update(
        {
            "scan_positions": len(positions),
            "scan_forbidden_points": sum(len(b.forbidden_points()) for b in positions),
            "scan_mean_us": statistics.fmean(fast),
            "scan_p99_us": sorted(fast)[min(len(fast) - 1, int(len(fast) * 0.99))],
            "scan_max_us": max(fast),
            "naive_scan_mean_us": statistics.fmean(slow),
        }
    )
    differ: list[dict[str, Any]] = []
    if args.judge_check > 0:
        report = judge_check(int(args.judge_check), args.seed)
        differ = report["differ"]
        results["judge_check_positions"] = report["positions"]
        results["judge_check_differ"] = len(differ)
    if args.json:
        print(json.dumps(results))
    else:
        print_table(results, differ)
    if differ:
        return 1
    if not args.no_engine:
        try:
            engine = importlib.import_module("tabletop.bench.gomoku_engine")
        except ModuleNotFoundError as exc:
            if exc.name != "tabletop.bench.gomoku_engine":
                raise
        else:
            return int(engine.run_engine_bench(args) or 0)
    return 0


def print_table(results: dict[str, Any], differ: list[dict[str, Any]]) -> None:
    ratio = results["freestyle_playouts_per_s"] / results["mnk_reference_playouts_per_s"]
    print("tabletop bench gomoku")
    print(f"  random playouts 15x15 freestyle   {results['freestyle_playouts_per_s']:10.1f} /s")
    print(f"    reference: generic m,n,k board  {results['mnk_reference_playouts_per_s']:10.1f} /s   (x{ratio:.1f})")
    print(f"  random playouts 15x15 renju       {results['renju_playouts_per_s']:10.1f} /s")
    print(
        f"  renju forbidden scan, full board  {results['scan_mean_us']:10.1f} us mean, "
        f"{results['scan_p99_us']:.1f} p99, {results['scan_max_us']:.1f} max over {results['scan_positions']} "
        f"positions ({results['scan_forbidden_points']} forbidden points); target < 1000 us"
    )
    print(
        f"    reference: naive scan           {results['naive_scan_mean_us']:10.1f} us mean   "
        f"(x{results['naive_scan_mean_us'] / results['scan_mean_us']:.1f})"
    )
    if "judge_check_positions" in results:
        print(
            "  forbidden sets against the Piskvork judge port (renju 0.1.0): "
            f"{results['judge_check_positions']} positions, {results['judge_check_differ']} differ"
        )
        for item in differ[:5]:
            print(f"    position {item['index']}: ours {item['ours']} theirs {item['theirs']}")
