"""``tabletop match GAME --a SPEC --b SPEC --games N``: a tournament between two players.

Games alternate colours; games with an opening set start each pair of games
from the same opening, once with each colour, so neither player profits from a
lucky start.  Gomoku and Renju games start from three stones that the engine
scores about even (:func:`tabletop.ai.gomoku.openings.balanced_openings`): from
two stones near the centre the first player won nearly every game between the
upper levels, whatever their strength.  A player that fails (an external engine that times out or sends
nonsense) loses that game, and the reason is counted.  The result is printed
from A's side with the Elo difference and its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from tabletop.players import SpecError, player
from tabletop.ai.base import Limit
from tabletop.cli import CliError
from tabletop.games import GAMES, new_board
from tabletop.games.core import BLACK, WHITE, BaseBoard


def register(sub: Any) -> None:
    p = sub.add_parser("match", help="play a tournament between two players and report the score and Elo")
    p.add_argument("game", help="tictactoe, reversi or gomoku")
    p.add_argument("--a", required=True, metavar="SPEC", help="player A (random, greedy, mcts:N, minimax:S, level:N, ...)")
    p.add_argument("--b", required=True, metavar="SPEC", help="player B")
    p.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    p.add_argument("--jobs", type=int, default=1, help="games played at once in worker processes")
    p.add_argument("--size", type=int, default=None, help="board size")
    p.add_argument("--rule", default=None, help="gomoku rule")
    p.add_argument("--think", type=float, default=None, metavar="SECONDS", help="time per move for both players")
    p.add_argument("--seed", type=int, default=1, help="seed for the opening order")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.set_defaults(func=run)

@dataclass(frozen=True)
class GameSpec:
    game: str
    options: dict[str, Any]
    a: str
    b: str
    a_is_black: bool
    opening: tuple[str, ...]
    think: float | None

@dataclass(frozen=True)
class GameResult:
    a_score: float  # 1 win, 0.5 draw, 0 loss
    reason: str
    plies: int
    black_score: float = 0.5  # the same from Black's side: how the openings treat the colours

def play_one(spec: GameSpec) -> GameResult:
    """Play one game to the end; a player that raises loses it."""
    board = new_board(spec.game, spec.options)
    for mv in spec.opening:
        board.push(mv)
    players = {
        BLACK: player(spec.a if spec.a_is_black else spec.b, game=spec.game),
        WHITE: player(spec.b if spec.a_is_black else spec.a, game=spec.game),
    }
    a_color = BLACK if spec.a_is_black else WHITE
    limit = Limit(seconds=spec.think) if spec.think is not None else None
    while not board.is_game_over():
        mover = board.turn
        try:
            move = players[mover].choose(board.copy(), limit)
            board.push(move)
        except Exception as exc:  # an engine failure loses the game, whatever its kind
            return GameResult(0.0 if mover is a_color else 1.0, f"{mover.label} failed: {exc}", len(board.move_stack),
                              0.0 if mover is BLACK else 1.0)
    outcome = board.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return GameResult(0.5, outcome.reason, len(board.move_stack))
    return GameResult(1.0 if outcome.winner is a_color else 0.0, outcome.reason, len(board.move_stack),
                      1.0 if outcome.winner is BLACK else 0.0)

def openings(game: str, board: BaseBoard, count: int, seed: int) -> list[tuple[str, ...]]:
    """Distinct short openings for a fair match: Reversi's positions after 4 plies,
    Gomoku's balanced three-stone starts (two-stone starts near the centre where the
    board is too small for them); none for Tic-tac-toe."""
    rng = random.Random(seed)
    if game == "tictactoe":
        return [()]
    if game == "gomoku":
        from tabletop.ai.gomoku.openings import balanced_openings

        book = [tuple(str(m) for m in line) for line in balanced_openings(board, count, seed)]
        if book:
            return book
    seen: set[str] = set()
    out: list[tuple[str, ...]] = []
    plies = 4 if game == "reversi" else 2
    tries = 0
    while len(out) < count and tries < count * 50:
        tries += 1
        b = board.copy()
        line: list[str] = []
        for _ in range(plies):
            moves = b.legal_moves
            if game != "reversi":
                cx, cy = b.width // 2, b.height // 2
                moves = [m for m in moves if abs(m.col - cx) <= 2 and abs(m.row - cy) <= 2]
            if not moves:
                break
            m = rng.choice(moves)
            b.push(m)
            line.append(str(m))
        key = b.to_text()
        if key not in seen:
            seen.add(key)
            out.append(tuple(line))
    return out or [()]

def schedule(game: str, options: dict[str, Any], a: str, b: str, games: int, book: list[tuple[str, ...]],
             think: float | None) -> list[GameSpec]:
    """The games in order: pairs from one opening, A Black in the first game of a pair and White in the second."""
    return [GameSpec(game, options, a, b, i % 2 == 0, book[(i // 2) % len(book)], think) for i in range(games)]


def elo(score: float, games: int, per_game: list[float]) -> tuple[float, float, float]:
    """Elo difference for a score fraction, with a 95% interval from the spread of results."""

    def to_elo(p: float) -> float:
        p = min(max(p, 1e-3), 1 - 1e-3)
        return -400.0 * math.log10(1.0 / p - 1.0)

    p = score / games
    var = sum((x - p) ** 2 for x in per_game) / games
    se = math.sqrt(var / games)
    return to_elo(p), to_elo(p - 1.96 * se), to_elo(p + 1.96 * se)

def run(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise CliError(f"unknown game {args.game!r} (known: {', '.join(GAMES)})")
    if args.games < 1:
        raise CliError("--games must be at least 1")
    if args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    for flag, spec in (("--a", args.a), ("--b", args.b)):
        try:
            player(spec, game=args.game)
        except SpecError as exc:
            raise CliError(f"{flag}: {exc}") from None
    options: dict[str, Any] = {}
    if args.size is not None:
        options["size"] = args.size
    if args.rule is not None:
        options["rule"] = args.rule
    board = new_board(args.game, options)
    book = openings(args.game, board, (args.games + 1) // 2, args.seed)
    specs = schedule(args.game, options, args.a, args.b, args.games, book, args.think)
    results = _play_all(specs, args.jobs, quiet=args.json)
    wins = sum(1 for r in results if r.a_score == 1.0)
    draws = sum(1 for r in results if r.a_score == 0.5)
    losses = len(results) - wins - draws
    score = wins + 0.5 * draws
    e, lo, hi = elo(score, len(results), [r.a_score for r in results])
    failures = [r.reason for r in results if "failed" in r.reason]
    summary = {
        "games": len(results), "wins": wins, "draws": draws, "losses": losses,
        "score": round(score / len(results), 4), "elo": round(e, 1), "elo_low": round(lo, 1), "elo_high": round(hi, 1),
        "black_wins": sum(1 for r in results if r.black_score == 1.0),
        "white_wins": sum(1 for r in results if r.black_score == 0.0),
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{args.game}: A = {args.a}, B = {args.b}")
    for col in ("games", "A wins", "draws", "A losses", "A score", "Elo (95%)"):
        table.add_column(col, justify="right")
    table.add_row(str(len(results)), str(wins), str(draws), str(losses), f"{100 * summary['score']:.1f}%",
                  f"{e:+.0f} [{lo:+.0f}, {hi:+.0f}]")
    console = Console()
    console.print(table)
    console.print(f"Black won {summary['black_wins']}, White won {summary['white_wins']} (draws {draws})")
    for reason in sorted(set(failures)):
        console.print(f"[red]{failures.count(reason)} game(s) lost because {reason}[/]")
    return 0

def _play_all(specs: list[GameSpec], jobs: int, quiet: bool) -> list[GameResult]:
    from rich.progress import Progress

    results: list[GameResult] = []
    with Progress(disable=quiet, transient=True) as progress:
        task = progress.add_task("games", total=len(specs))
        if jobs == 1:
            for s in specs:
                results.append(play_one(s))
                progress.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(play_one, s) for s in specs]
                for f in as_completed(futures):
                    results.append(f.result())
                    progress.advance(task)
    return results

