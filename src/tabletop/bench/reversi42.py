"""Strength against PyPI's reversi42 (7.0.13): ``python -m tabletop.bench.reversi42 N``.

reversi42 is an application, not a library, so it is installed on first use
into its own virtual environment under ``.bench-envs/reversi42`` (git-ignored)
and driven through a small NBoard adapter written there.  The adapter answers
``nboard``, ``set depth``, ``set game``, ``move``, ``ping`` and ``go`` with the
move of reversi42's tournament engine (``ApocalyptronFactory.create_tournament``,
all optimisations, fixed depth), so the match goes through our NBoard manager
like any outside engine.  This module only installs, plays and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tabletop.bench import reference_python

__all__ = ["VERSION", "add_cli_arguments", "main", "play", "reversi42_command", "with_match"]

VERSION = "7.0.13"

_ADAPTER = """
# NBoard adapter for reversi42's Apocalyptron engine, written by tabletop.bench.reversi42
import sys
from AI.Apocalyptron.factory import ApocalyptronFactory
from Reversi.BitboardGame import BitboardGame
from Reversi.Game import Move

depth = int(sys.argv[1]) if len(sys.argv) > 1 else 8
engine = ApocalyptronFactory.create_tournament(depth)
moves = []

def reply(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()

base = None

def position():
    game = BitboardGame()
    if base is not None:
        squares, side = base
        game.black = sum(1 << i for i, c in enumerate(squares) if c == "*")
        game.white = sum(1 << i for i, c in enumerate(squares) if c == "O")
        game.turn = "B" if side == "*" else "W"
        game.black_cnt = game._count_bits(game.black)
        game.white_cnt = game._count_bits(game.white)
        game.turn_cnt = game.black_cnt + game.white_cnt - 4
        game._create_virtual_matrix()
    for m in moves:
        if m == "PA":
            game.pass_turn()
        else:
            game.move(Move(ord(m[0]) - 64, int(m[1:])))
    return game

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "nboard":
        reply("set myname reversi42")
    elif cmd == "set" and len(words) > 1 and words[1] == "game":
        text = line.split(None, 2)[2] if len(line.split(None, 2)) == 3 else ""
        moves = []
        base = None
        for part in text.split("]")[:-1]:
            tag, _, value = part.rpartition("[")
            if tag.endswith("BO"):
                fields = value.split()
                base = (fields[1], fields[2])
            elif tag.endswith((";B", ";W", "]B", "]W")) or tag.strip() in ("B", "W"):
                moves.append(value.split("/")[0].strip().upper()[:2])
    elif cmd == "move":
        moves.append(words[1].split("/")[0].strip().upper()[:2])
    elif cmd == "ping":
        reply("pong " + (words[1] if len(words) > 1 else "0"))
    elif cmd == "go":
        game = position()
        if not game.get_move_list():
            reply("=== PA")
        else:
            engine = ApocalyptronFactory.create_tournament(depth)
            move = engine.get_best_move(game, depth)
            reply("=== " + chr(64 + move.x) + str(move.y))
    elif cmd == "quit":
        break
"""


def reversi42_command(root: Path, depth: int) -> str:
    """The NBoard command for reversi42's tournament engine at ``depth``, installing it on first use."""
    python = reference_python(root, "reversi42", f"reversi42=={VERSION}")
    env = python.parent.parent
    adapter = env / "nboard_reversi42.py"
    adapter.write_text(_ADAPTER)
    return f"{python} {adapter} {depth}"


def _play_game(game: int, opening: tuple[str, ...], ours_black: bool, command: str,
               think: float) -> dict[str, Any]:
    """One game of level 10 against reversi42 from ``opening``; its result and both sides' times."""
    from tabletop.ai.base import Limit
    from tabletop.ai.reversi import level_player
    from tabletop.games.reversi import Board
    from tabletop.protocols.nboard import NBoardPlayer

    ours = level_player(10)
    board = Board()
    for mv in opening:
        board.push(board.parse_move(mv))
    spent = {"ours": 0.0, "theirs": 0.0}
    count = {"ours": 0, "theirs": 0}
    theirs = NBoardPlayer(command, timeout=600.0)
    try:
        while not board.is_game_over():
            mine = (board.turn.name == "BLACK") == ours_black
            side = "ours" if mine else "theirs"
            started = time.perf_counter()
            move = (ours if mine else theirs).choose(board.copy(), Limit(seconds=think if mine else 600.0))
            spent[side] += time.perf_counter() - started
            count[side] += 1
            board.push(move)
    finally:
        theirs.close()
    out = board.outcome()
    won = out is not None and out.winner is not None and (out.winner.name == "BLACK") == ours_black
    draw = out is not None and out.winner is None
    grid = board.to_text().split()[0]
    discs = grid.count("X" if ours_black else "O"), grid.count("O" if ours_black else "X")
    return {"game": game + 1, "opening": " ".join(opening), "we_play": "black" if ours_black else "white",
            "result": "win" if won else ("draw" if draw else "loss"), "discs": f"{discs[0]}-{discs[1]}",
            "spent": spent, "count": count}


def play(games: int, depth: int, think: float, root: Path, jobs: int = 1, seed: int = 1,
         log: Any = None) -> dict[str, Any]:
    """Our level 10 (``think`` seconds a move) against reversi42 at ``depth``.

    Games start from distinct random 4-ply openings (the ones ``tabletop match``
    uses, from ``seed``), each opening played once with each colour; ``jobs``
    games run at a time in separate processes.
    """
    from tabletop.games.reversi import Board
    from tabletop.tournament import openings

    command = reversi42_command(root, depth)
    book = openings("reversi", Board(), (games + 1) // 2, seed)
    specs = [(i, book[(i // 2) % len(book)], i % 2 == 0) for i in range(games)]
    record: list[dict[str, Any]] = []
    if jobs == 1:
        for i, opening, black in specs:
            record.append(_play_game(i, opening, black, command, think))
            _log(log, record[-1])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_game, i, opening, black, command, think) for i, opening, black in specs]
            for future in as_completed(futures):
                record.append(future.result())
                _log(log, record[-1])
    record.sort(key=lambda r: int(r["game"]))
    spent = {side: sum(float(r["spent"][side]) for r in record) for side in ("ours", "theirs")}
    count = {side: sum(int(r["count"][side]) for r in record) for side in ("ours", "theirs")}
    score = sum(1.0 if r["result"] == "win" else 0.5 if r["result"] == "draw" else 0.0 for r in record)
    for r in record:
        del r["spent"], r["count"]
    ours_s = spent["ours"] / max(1, count["ours"])
    theirs_s = spent["theirs"] / max(1, count["theirs"])
    return {"games": games, "score": score, "percent": round(100.0 * score / games, 1), "depth": depth,
            "think": think, "jobs": jobs, "seed": seed, "ours_s_per_move": round(ours_s, 3),
            "theirs_s_per_move": round(theirs_s, 3), "equal_or_less_time": ours_s <= theirs_s,
            "not_won": [r for r in record if r["result"] != "win"], "record": record}


def _log(log: Any, game: dict[str, Any]) -> None:
    if log is not None:
        s, c = game["spent"], game["count"]
        print(f"game {game['game']}: {game['result']} {game['discs']} as {game['we_play']} after "
              f"{game['opening']}; s/move ours {s['ours'] / max(1, c['ours']):.2f} "
              f"theirs {s['theirs'] / max(1, c['theirs']):.2f} (moves {c['ours']}+{c['theirs']}, "
              f"s {s['ours']:.1f}+{s['theirs']:.1f})", file=log, flush=True)


def _report(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(f"tabletop level 10 ({result['think']} s/move) vs reversi42 {VERSION} tournament depth {result['depth']}: "
          f"{result['score']}/{result['games']} ({result['percent']}%), s/move ours {result['ours_s_per_move']:.2f} "
          f"theirs {result['theirs_s_per_move']:.2f}")
    for r in result["not_won"]:
        print(f"  {r['result']}: game {r['game']} as {r['we_play']} after {r['opening']} ({r['discs']})")


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--vs-reversi42 N`` options of ``tabletop bench reversi`` (``--seed`` and ``--json`` are shared)."""
    parser.add_argument("--vs-reversi42", type=int, default=None, metavar="N",
                        help="instead: play N games of level 10 against PyPI's reversi42 (installed on first use)")
    parser.add_argument("--r42-depth", type=int, default=6, help="reversi42's search depth (default 6)")
    parser.add_argument("--think", type=float, default=0.8, help="level 10's seconds per move (default 0.8)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at a time (default 1)")


def with_match(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``run``, or the reversi42 match when ``--vs-reversi42`` is given."""

    def dispatch(args: argparse.Namespace) -> int:
        if args.vs_reversi42 is None:
            return run(args)
        if args.vs_reversi42 < 1 or not 1 <= args.r42_depth <= 20 or args.jobs < 1 or not args.think > 0:
            raise ValueError("--vs-reversi42 and --jobs must be >= 1, --r42-depth 1..20 and --think > 0")
        result = play(args.vs_reversi42, args.r42_depth, args.think, Path.cwd(), args.jobs, args.seed, sys.stderr)
        _report(result, args.json)
        return 0

    return dispatch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tabletop.bench.reversi42", description=__doc__.splitlines()[0])
    p.add_argument("games", type=int, help="number of games")
    p.add_argument("--depth", type=int, default=6, help="reversi42's search depth (default 6)")
    p.add_argument("--think", type=float, default=0.8, help="our seconds per move (default 0.8)")
    p.add_argument("--jobs", type=int, default=1, help="games played at a time (default 1)")
    p.add_argument("--seed", type=int, default=1, help="seed for the openings (default 1)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.games < 1 or not 1 <= args.depth <= 20 or args.jobs < 1 or not args.think > 0:
        print("reversi42: error: games and jobs must be >= 1, depth 1..20 and think > 0", file=sys.stderr)
        return 2
    result = play(args.games, args.depth, args.think, Path.cwd(), args.jobs, args.seed, sys.stderr)
    _report(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
