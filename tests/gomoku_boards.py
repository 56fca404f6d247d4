"""Test helper shared by the threat-solver tests: Gomoku boards from stone lists."""

from __future__ import annotations

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
