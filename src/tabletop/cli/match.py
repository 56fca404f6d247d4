"""``tabletop match GAME --a SPEC --b SPEC --games N [--sprt ELO0 ELO1]``: a tournament between two players.

This module reads the arguments and prints; the games are played and counted by
:mod:`tabletop.tournament` (openings, colours swapped in pairs, Elo, the sequential test, failures).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tabletop.cli import CliError
from tabletop.games import new_board
from tabletop.players import SpecError
from tabletop.tournament import (
    OPENING_KINDS,
    GameLog,
    GameLogError,
    MatchReport,
    Sprt,
    check_players,
    openings,
    play_match,
    schedule,
)

SPRT_DEFAULT_GAMES = 1000


def register(sub: Any) -> None:
    p = sub.add_parser("match", help="play a tournament between two players and report the score and Elo",
                       description="Games are played in pairs from one opening, each player Black once. "
                                   "The result is from A's side; a player that crashes, runs out of time or "
                                   "answers badly loses that game, and the table and --json name the failure.")
    p.add_argument("game", help="tictactoe, reversi or gomoku")
    p.add_argument("--a", required=True, metavar="SPEC", help="player A (random, greedy, mcts:N, minimax:S, level:N, ...)")
    p.add_argument("--b", required=True, metavar="SPEC", help="player B")
    p.add_argument("--games", type=int, default=None,
                   help=f"number of games (default 10); with --sprt the most to play (default {SPRT_DEFAULT_GAMES})")
    p.add_argument("--jobs", type=int, default=1, help="games played at once in worker processes")
    p.add_argument("--size", type=int, default=None, help="board size")
    p.add_argument("--rule", default=None, help="gomoku rule")
    p.add_argument("--think", type=float, default=None, metavar="SECONDS", help="time per move for both players")
    p.add_argument("--seed", type=int, default=1, help="seed for the opening order")
    p.add_argument("--openings", default="balanced", choices=sorted(OPENING_KINDS),
                   help="where the games start: " + "; ".join(f"{k}: {v}" for k, v in OPENING_KINDS.items())
                   + " (default balanced)")
    p.add_argument("--sprt", type=float, nargs=2, metavar=("ELO0", "ELO1"), default=None,
                   help="play game pairs until a sequential test accepts H0 (A is ELO0 stronger than B) or "
                        "H1 (ELO1 stronger) at alpha = beta = 0.05: pentanomial model on pairs, logistic Elo "
                        "(the Elo of the expected score, 1 / (1 + 10^(-Elo/400)))")
    p.add_argument("--log", default=None, metavar="FILE",
                   help="write each finished game to FILE (JSON lines) as it ends; run the same command again "
                        "after an interruption and the games in FILE are not played again")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = args.games if args.games is not None else (SPRT_DEFAULT_GAMES if args.sprt else 10)
    if games < (2 if args.sprt else 1):
        raise CliError("--games must be at least 2 with --sprt (one pair)" if args.sprt else "--games must be at least 1")
    if args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    if args.think is not None and not args.think > 0:
        raise CliError(f"--think must be positive, not {args.think}")
    sprt = None
    if args.sprt:
        try:
            sprt = Sprt(*args.sprt)
        except ValueError as exc:
            raise CliError(f"--sprt: {exc}") from None
        games -= games % 2  # whole pairs only
    try:
        check_players(args.game, {"--a": args.a, "--b": args.b})
    except SpecError as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    options: dict[str, Any] = {}
    if args.size is not None:
        options["size"] = args.size
    if args.rule is not None:
        options["rule"] = args.rule
    board = new_board(args.game, options)
    pairs = (games + 1) // 2
    try:
        book = openings(args.game, board, pairs, args.seed, args.openings)
    except ValueError as exc:
        raise CliError(f"--openings: {exc}") from None
    _note_repeats(args.openings, len(set(book)), pairs)
    specs = schedule(args.game, options, args.a, args.b, games, book, args.think)
    log = GameLog(args.log) if args.log else None
    try:
        report = _play(specs, args.jobs, sprt, quiet=args.json, log=log)
    except (GameLogError, OSError) as exc:
        raise CliError(f"--log: {exc}") from None
    if args.json:
        print(json.dumps(report.summary()))
    else:
        _print_table(args, report)
    return 0


def _note_repeats(kind: str, distinct: int, pairs: int) -> None:
    """Say on stderr when the pairs outnumber the distinct openings: two engines that search
    alike replay the same game from a repeated opening, and the Elo interval and a sequential
    test count each replay as new evidence, so both come out surer than the games allow."""
    if 1 < distinct < pairs:
        hint = " (--openings random3 draws a new one for each pair)" if kind != "random3" else ""
        print(f"tabletop: note: {pairs} pairs from {distinct} distinct openings ({kind}): openings repeat, and "
              f"games replayed from them count as new evidence{hint}", file=sys.stderr)


def _play(specs: list[Any], jobs: int, sprt: Sprt | None, quiet: bool, log: GameLog | None) -> MatchReport:
    from rich.progress import Progress

    with Progress(disable=quiet, transient=True) as progress:
        task = progress.add_task("games" if sprt is None else "games (SPRT)", total=len(specs))
        return play_match(specs, jobs, sprt, on_game=lambda _: progress.advance(task), log=log)


def _print_table(args: argparse.Namespace, report: MatchReport) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    summary = report.summary()
    table = Table(title=f"{args.game}: A = {args.a}, B = {args.b}")
    for col in ("games", "A wins", "draws", "A losses", "A score", "Elo (95%)"):
        table.add_column(col, justify="right")
    table.add_row(str(summary["games"]), str(summary["wins"]), str(summary["draws"]), str(summary["losses"]),
                  f"{100 * summary['score']:.1f}%",
                  f"{summary['elo']:+.0f} [{summary['elo_low']:+.0f}, {summary['elo_high']:+.0f}]")
    console = Console()
    console.print(table)
    console.print(f"Black won {summary['black_wins']}, White won {summary['white_wins']} (draws {summary['draws']}); "
                  f"seconds per move: A {summary['a_seconds_per_move']:.3f}, B {summary['b_seconds_per_move']:.3f}")
    for failure in summary["failures"]:
        text = (f"game {failure['game']} lost by {failure['player']} ({failure['spec']}, {failure['color']}): "
                f"{failure['kind']}: {failure['reason']}")
        console.print(f"[red]{escape(text)}[/]", highlight=False)
    if "sprt" in summary:
        s = summary["sprt"]
        console.print(f"SPRT [{s['elo0']:g}, {s['elo1']:g}] ({s['model']}, alpha {s['alpha']}, beta {s['beta']}): "
                      f"LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f}) after {s['pairs']} pairs "
                      f"{s['pentanomial']} (LL, LD, WL+DD, WD, WW)", highlight=False)
        console.print(f"Elo {s['elo']:+.1f} [{s['elo_low']:+.1f}, {s['elo_high']:+.1f}] (pairs): {s['verdict']}",
                      highlight=False)
