"""Test helpers shared by the Gomoku engine tests: boards from stone lists, random boards."""

from __future__ import annotations

import random

from tabletop.games.mnk import GomokuBoard, gomoku


def board_with(black: list[tuple[int, int]], white: list[tuple[int, int]], rule: str = "freestyle",
               size: int = 15, turn: str = "X") -> GomokuBoard:
    """A board from (col, row-from-top) stone lists."""
    grid = [["-"] * size for _ in range(size)]
    for c, r in black:
        grid[r][c] = "X"
    for c, r in white:
        grid[r][c] = "O"
    return gomoku(size, rule, position="/".join("".join(row) for row in grid) + " " + turn)


def random_board(rule: str, stones: int, seed: int, size: int = 15) -> GomokuBoard:
    """A game of random moves near the centre, stopped early if it ends."""
    rng = random.Random(seed)
    board = gomoku(size, rule)
    c = size // 2
    for _ in range(stones):
        moves = [m for m in board.legal_moves if abs(m.col - c) <= 4 and abs(m.row - c) <= 4]
        if not moves:
            break
        m = rng.choice(moves)
        board.push(m)
        if board.is_game_over():
            board.pop()
            break
    return board
