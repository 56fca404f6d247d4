"""Where did A lose? The first move of A's in each lost game of a Gomoku match log after which B had a
forced win, and whether A had a move there that left B none.

Run: ``.venv/bin/python benchmarks/gomoku_lost_games.py LOG [GAMES]`` on a log of ``tabletop match
gomoku ... --log LOG`` (its results carry each game's moves); GAMES (default all) caps the lost games
read.  For each lost game the script replays the moves and, after each move of A's past the opening,
asks whether B (to move) has a VCF, or a VCT of up to six threats (deepened two at a time, 200,000
threat nodes each) that holds against every defence (``engine.vct_holds``).  At the first such move
it tries A's 20 best-looking candidates instead and lists those after which B has neither: an empty
list means the game was lost before, deeper than the solvers see.
"""

from __future__ import annotations

import json
import sys

from tabletop.ai.gomoku.engine import vct_holds, verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games import new_board
from tabletop.games.core import BaseBoard

NODES = 200_000
VCT_THREATS = 6


def forced_win(board: BaseBoard) -> str | None:
    """The side to move's forced win: ``"vcf"``, ``"vctN"`` (N threats) or None."""
    pos = Position.from_board(board)
    line = ThreatSolver(pos, max_nodes=NODES).vcf()
    if line is not None and verified_win(board, pos, line) is not None:
        return "vcf"
    for depth in range(2, VCT_THREATS + 1, 2):
        line = ThreatSolver(pos, max_nodes=NODES).vct(depth=depth)
        if line is not None:
            return f"vct{depth}" if vct_holds(board, pos, line, depth, 5_000) else None
    return None


def replay(rule: str, moves: list[str]) -> BaseBoard:
    """A board of ``rule`` with ``moves`` (move texts) played."""
    board = new_board("gomoku", {"rule": rule})
    for text in moves:
        board.push(board.parse_move(text))
    return board


def first_losing_move(rule: str, moves: list[str], opening: int, a_black: bool) -> tuple[int, str] | None:
    """The index of A's first move after which B has a forced win, and its kind."""
    board = replay(rule, [])
    for i, text in enumerate(moves):
        board.push(board.parse_move(text))
        a_moved = (i % 2 == 0) == a_black
        if i < opening or not a_moved or board.is_game_over():
            continue
        kind = forced_win(board)
        if kind is not None:
            return i, kind
    return None


def safe_alternatives(rule: str, before: list[str]) -> list[str]:
    """A's best-looking 20 candidates at the position ``before`` after which B has no forced win."""
    board = replay(rule, before)
    pos = Position.from_board(board)
    safe = []
    for p in pos.candidates(20):
        move = pos.to_move(board, p)
        if not board.is_legal(move):
            continue
        after = board.copy()
        after.push(move)
        if after.is_game_over() or forced_win(after) is None:
            safe.append(str(move))
    return safe


def main(path: str, limit: int) -> None:
    try:
        with open(path, encoding="utf-8") as log:
            games = [json.loads(raw) for raw in log if raw.strip()]
    except (OSError, ValueError) as exc:
        raise SystemExit(f"gomoku_lost_games: cannot read the match log {path!r}: {exc}") from None
    lost = 0
    for data in games:
        result = data["result"]
        if result["a_score"] != 0 or not result.get("line"):
            continue
        lost += 1
        if lost > limit:
            break
        rule = data["spec"]["options"].get("rule", "freestyle")
        moves = list(result["line"])
        colour = "A Black" if result["a_is_black"] else "A White"
        head = f"game {result['number']} ({colour}, {result['plies']} plies)"
        found = first_losing_move(rule, moves, len(result["opening"]), result["a_is_black"])
        if found is None:
            print(f"{head}: no forced loss found after a move of A's")
            continue
        i, kind = found
        safe = safe_alternatives(rule, moves[:i])
        print(f"{head}: A's {moves[i]} at ply {i + 1} gives B a {kind}; safe instead: {safe[:8] or 'none'}")
        print("    " + " ".join(moves[: i + 1]), flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and not sys.argv[2].isdigit()):
        raise SystemExit("usage: gomoku_lost_games.py LOG [GAMES]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10**9)
