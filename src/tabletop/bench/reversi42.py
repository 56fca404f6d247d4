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
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["VERSION", "main", "play", "reversi42_command"]

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
    env = root / ".bench-envs" / "reversi42"
    python = env / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"reversi42=={VERSION}"], check=True)
    adapter = env / "nboard_reversi42.py"
    adapter.write_text(_ADAPTER)
    return f"{python} {adapter} {depth}"


def play(games: int, depth: int, think: float, root: Path) -> dict[str, Any]:
    """Our level 10 (``think`` seconds a move) against reversi42 at ``depth``, colours alternating."""
    from tabletop.ai.base import Limit
    from tabletop.ai.reversi import level_player
    from tabletop.games.reversi import Board
    from tabletop.protocols.nboard import NBoardPlayer

    command = reversi42_command(root, depth)
    record: list[dict[str, Any]] = []
    spent = {"ours": 0.0, "theirs": 0.0}
    count = {"ours": 0, "theirs": 0}
    for game in range(games):
        ours = level_player(10)
        ours_black = game % 2 == 0
        board = Board()
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
        record.append({"game": game + 1, "we_play": "black" if ours_black else "white",
                       "result": "win" if won else ("draw" if draw else "loss")})
    score = sum(1.0 if r["result"] == "win" else 0.5 if r["result"] == "draw" else 0.0 for r in record)
    return {"games": games, "score": score, "depth": depth, "think": think,
            "ours_s_per_move": spent["ours"] / max(1, count["ours"]),
            "theirs_s_per_move": spent["theirs"] / max(1, count["theirs"]), "record": record}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tabletop.bench.reversi42", description=__doc__.splitlines()[0])
    p.add_argument("games", type=int, help="number of games")
    p.add_argument("--depth", type=int, default=6, help="reversi42's search depth (default 6)")
    p.add_argument("--think", type=float, default=1.0, help="our seconds per move (default 1)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.games < 1 or not 1 <= args.depth <= 20:
        print("reversi42: error: games must be >= 1 and depth 1..20", file=sys.stderr)
        return 2
    result = play(args.games, args.depth, args.think, Path.cwd())
    if args.json:
        print(json.dumps(result))
    else:
        print(f"tabletop level 10 vs reversi42 {VERSION} tournament depth {args.depth}: "
              f"{result['score']}/{result['games']}, s/move ours {result['ours_s_per_move']:.2f} "
              f"theirs {result['theirs_s_per_move']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
