"""Reversi rules speed and exactness: perft beside OpenSpiel, deeper perft, random-game cross-check.

Figures, all measured in one process:

- perft(9) from the 8x8 start (3,005,288 leaves; best of ``--repeat`` runs,
  3 by default) with the pure-Python rules
  library, beside the same count walked through OpenSpiel's ``othello``
  (``clone``/``apply_action``, the same convention: a forced pass is one ply,
  a finished game one leaf, the last ply counted in bulk by both), and the
  ratio (target: at least 2x);
- with ``--full``, perft(10) and perft(11) checked against the published
  counts (minutes in pure Python);
- a move-for-move cross-check against OpenSpiel on random games (200 by
  default, ``--crosscheck`` for 10,000): legal moves, boards after every move,
  passes and outcomes.

Then, when ``tabletop.bench.reversi_engine`` imports, its
``run_engine_bench(args)`` adds the engine figures.

This module only measures and compares; it must not change any rule.  The
OpenSpiel helpers here are shared with the test suite's cross-check.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import time
from typing import Any

from tabletop.games import reversi
from tabletop.games.core import BLACK, PASS, Color

#: Published 8x8 perft counts (Aart Bik; OEIS A124004), forced pass = one ply.
PERFT_8X8 = {
    1: 4,
    2: 12,
    3: 56,
    4: 244,
    5: 1396,
    6: 8200,
    7: 55092,
    8: 390216,
    9: 3005288,
    10: 24571284,
    11: 212258800,
}

#: OpenSpiel's othello numbers a placement ``row * 8 + col`` (row from the top,
#: as tabletop's bits) and the pass as 64.
OPENSPIEL_PASS = 64


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=9, help="perft depth for the speed figure (default 9)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="time each perft this many times, alternating, and keep the best (default 3)"
    )
    parser.add_argument("--full", action="store_true", help="also check perft 10 and 11 (minutes)")
    parser.add_argument(
        "--crosscheck", action="store_true", help="cross-check 10,000 random games against OpenSpiel (default 200)"
    )
    parser.add_argument("--games", type=int, default=None, help="cross-check this many games")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--no-engine", action="store_true", help="skip the engine figures")


# -- OpenSpiel side -----------------------------------------------------------------


def _pyspiel() -> Any:
    try:
        return importlib.import_module("pyspiel")
    except ImportError as exc:  # open-spiel is a test dependency; say so plainly
        raise ValueError(f"OpenSpiel (pyspiel) does not import: {exc}") from None


def openspiel_perft(depth: int) -> int:
    """perft from OpenSpiel's othello start, walking states with clone/apply_action."""
    state = _pyspiel().load_game("othello").new_initial_state()
    return _openspiel_perft(state, depth)


def _openspiel_perft(state: Any, depth: int) -> int:
    if state.is_terminal():
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply_action(action)
        total += _openspiel_perft(child, depth - 1)
    return total


def openspiel_bitboards(state: Any) -> tuple[int, int]:
    """(black, white) bitboards read from OpenSpiel's printed board."""
    black = white = 0
    rows = [line.split() for line in str(state).splitlines()[2:10]]
    for row, tokens in enumerate(rows):
        for col, symbol in enumerate(tokens[1:9]):
            if symbol == "x":
                black |= 1 << (row * 8 + col)
            elif symbol == "o":
                white |= 1 << (row * 8 + col)
    return black, white


def crosscheck_openspiel(games: int, seed: int) -> tuple[int, int]:
    """Play ``games`` random games on both libraries at once and compare, move
    for move, the legal moves, the boards after each move, passes and the
    outcome.  Returns the moves compared and how many were passes; raises ``AssertionError``
    naming the game and ply at the first disagreement."""
    game = _pyspiel().load_game("othello")
    rng = random.Random(seed)
    compared = passes = 0
    for number in range(games):
        board = reversi.Board()
        state = game.new_initial_state()
        ply = 0
        while True:
            where = f"game {number} (seed {seed}) ply {ply} after {' '.join(str(m) for m in board.move_stack)}"
            ours = board.legal_moves
            if state.is_terminal():
                assert not ours, f"{where}: OpenSpiel ended the game, tabletop has {ours}"
                break
            mover = Color(state.current_player())
            assert board.turn is mover, f"{where}: turn {board.turn.label} vs OpenSpiel {mover.label}"
            theirs = state.legal_actions()
            as_actions = [OPENSPIEL_PASS if m.is_pass else m.row * 8 + m.col for m in ours]
            assert sorted(as_actions) == sorted(theirs), f"{where}: legal {as_actions} vs OpenSpiel {theirs}"
            move = rng.choice(ours)
            action = OPENSPIEL_PASS if move is PASS else move.row * 8 + move.col
            expected_flips = len(board.flips(move))
            before = board.discs()
            board.push(move)
            state.apply_action(action)
            after = board.discs()
            if not move.is_pass:
                gained = after[mover] - before[mover]
                assert gained == expected_flips + 1, f"{where}: {move} flips {expected_flips}, gained {gained}"
            assert board.bitboards() == openspiel_bitboards(state), f"{where}: boards differ after {move}"
            compared += 1
            passes += move.is_pass
            ply += 1
        outcome = board.outcome()
        assert outcome is not None, f"game {number}: OpenSpiel says over, tabletop does not"
        black_return = state.returns()[0]
        expected_winner = None if black_return == 0 else (BLACK if black_return > 0 else BLACK.other)
        assert outcome.winner == expected_winner, f"game {number}: winner {outcome.winner} vs {expected_winner}"
    return compared, passes


# -- the benchmark ------------------------------------------------------------------


def _timed(fn: Any, *args: Any) -> tuple[int, float]:
    start = time.perf_counter()
    value = int(fn(*args))
    return value, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    depth = int(args.depth)
    if not 1 <= depth <= 11:
        raise ValueError(f"--depth must be between 1 and 11, not {depth}")
    games = args.games if args.games is not None else (10_000 if args.crosscheck else 200)
    results: dict[str, Any] = {"depth": depth, "repeat": args.repeat}
    if args.repeat < 1:
        raise ValueError(f"--repeat must be 1 or more, not {args.repeat}")
    # Alternate the two and keep each one's best time: on a shared machine the
    # best of a few runs is the figure least disturbed by other work.
    our_seconds = their_seconds = float("inf")
    ours = theirs = 0
    for _ in range(args.repeat):
        ours, seconds = _timed(reversi.perft, reversi.Board(), depth)
        our_seconds = min(our_seconds, seconds)
        theirs, seconds = _timed(openspiel_perft, depth)
        their_seconds = min(their_seconds, seconds)
    if ours != PERFT_8X8[depth] or theirs != PERFT_8X8[depth]:
        raise ValueError(f"perft({depth}) mismatch: tabletop {ours}, OpenSpiel {theirs}, published {PERFT_8X8[depth]}")
    results["perft"] = {
        "leaves": ours,
        "tabletop_seconds": round(our_seconds, 3),
        "tabletop_leaves_per_second": round(ours / our_seconds),
        "openspiel_seconds": round(their_seconds, 3),
        "openspiel_leaves_per_second": round(theirs / their_seconds),
        "ratio": round(their_seconds / our_seconds, 2),
    }
    deep: dict[str, Any] = {}
    if args.full:
        for d in (10, 11):
            count, seconds = _timed(reversi.perft, reversi.Board(), d)
            if count != PERFT_8X8[d]:
                raise ValueError(f"perft({d}) = {count}, published {PERFT_8X8[d]}")
            deep[str(d)] = {"leaves": count, "seconds": round(seconds, 1)}
    results["deep_perft"] = deep or "skipped (use --full for perft 10 and 11)"
    start = time.perf_counter()
    compared, passes = crosscheck_openspiel(games, args.seed)
    results["crosscheck"] = {"games": games, "moves": compared, "passes": passes, "seconds": round(time.perf_counter() - start, 1)}
    if args.json:
        print(json.dumps(results))
    else:
        _print_table(results)
    if not args.no_engine:
        try:
            engine_bench = importlib.import_module("tabletop.bench.reversi_engine")
        except ImportError as exc:
            print(f"engine figures skipped: tabletop.bench.reversi_engine does not import ({exc})")
        else:
            return int(engine_bench.run_engine_bench(args) or 0)
    return 0


def _print_table(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    p = results["perft"]
    table = Table(
        title=f"Reversi 8x8 perft({results['depth']}) = {p['leaves']:,} leaves (best of {results['repeat']})"
    )
    table.add_column("implementation")
    table.add_column("seconds", justify="right")
    table.add_column("leaves/s", justify="right")
    table.add_row("tabletop (pure Python)", f"{p['tabletop_seconds']:.2f}", f"{p['tabletop_leaves_per_second']:,}")
    table.add_row("OpenSpiel othello", f"{p['openspiel_seconds']:.2f}", f"{p['openspiel_leaves_per_second']:,}")
    table.add_row("ratio (target >= 2x)", f"{p['ratio']:.2f}x", "")
    console = Console()
    console.print(table)
    deep = results["deep_perft"]
    if isinstance(deep, dict):
        for d, row in deep.items():
            console.print(f"perft({d}) = {row['leaves']:,} (published value) in {row['seconds']} s")
    else:
        console.print(f"deeper perft: {deep}")
    c = results["crosscheck"]
    console.print(
        f"OpenSpiel cross-check: {c['games']:,} random games, {c['moves']:,} moves "
        f"({c['passes']:,} passes) agree move for move ({c['seconds']} s)"
    )
