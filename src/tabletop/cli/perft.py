"""``tabletop perft reversi --depth D [--size S] [--engine python|fast]``: count leaves.

Prints what it is counting and how fast, then the leaf count alone as the LAST
line (scripts read that line).  The convention is the standard one: a forced
pass is one ply, a finished game is one leaf.  ``--engine fast`` runs the
compiled kernel of the Reversi engine (8x8 only) instead of the pure-Python
rules library.  This module only parses arguments and prints; the counting
lives in :mod:`tabletop.games.reversi` and ``tabletop.ai.reversi.kernel``.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from typing import Any

from tabletop.cli import CliError

GAMES = ("reversi",)


def register(sub: Any) -> None:
    p = sub.add_parser("perft", help="count the leaves of the game tree (rules check and speed figure)")
    p.add_argument("game", help="the game: reversi")
    p.add_argument("--depth", type=int, required=True, help="plies to count (1 or more)")
    p.add_argument("--size", type=int, default=8, help="board size (reversi: even, 4..16; default 8)")
    p.add_argument("--position", default=None, help="start from this position text instead of the standard start")
    p.add_argument(
        "--engine",
        choices=("python", "fast"),
        default="python",
        help="python: the rules library; fast: the compiled engine kernel (8x8 only)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.game != "reversi":
        raise CliError(f"perft knows the games {', '.join(GAMES)}, not {args.game!r}")
    if args.depth < 1:
        raise CliError(f"--depth must be 1 or more, not {args.depth}")
    from tabletop.games import reversi

    board = reversi.Board(position=args.position, size=args.size)
    print(f"perft reversi {args.size}x{args.size} depth {args.depth} engine {args.engine}", flush=True)
    count = _fast_counter(board) if args.engine == "fast" else reversi.perft
    start = time.perf_counter()
    if args.depth == 1 or board.is_game_over():
        leaves = count(board, args.depth)
    else:
        # one line per root move as it finishes: progress on long runs, and a
        # "divide" to find where two implementations part ways
        leaves = 0
        for move in board.legal_moves:
            board.push(move)
            below = count(board, args.depth - 1)
            board.pop()
            leaves += below
            print(f"  {move}: {below}", flush=True)
    seconds = time.perf_counter() - start
    rate = leaves / seconds if seconds > 0 else float("inf")
    print(f"time {seconds:.3f} s, {rate:,.0f} leaves/s")
    print(leaves)
    return 0


def _fast_counter(board: Any) -> Callable[[Any, int], int]:
    if board.size != 8:
        raise CliError("--engine fast counts only 8x8 boards (use --engine python for other sizes)")
    try:
        kernel = importlib.import_module("tabletop.ai.reversi.kernel")
        count = kernel.perft
    except (ImportError, AttributeError) as exc:
        raise CliError(f"--engine fast is not available: the engine kernel does not import ({exc})") from None

    def fast(position: Any, depth: int) -> int:
        if depth < 1 or position.is_game_over():
            return 1
        black, white = position.bitboards()
        player, opponent = (black, white) if position.turn == 0 else (white, black)
        return int(count(player, opponent, depth))

    return fast
