"""The engine facing a five that Black may only block on a foul (renju) still plays a legal move."""

from __future__ import annotations

import pytest

from gomoku_boards import board_with
from tabletop.ai.gomoku.engine import level_player


@pytest.mark.parametrize("level", [6, 7, 8, 9])
def test_black_whose_only_block_is_an_overline_plays_a_legal_move(level: int) -> None:
    # Black on row 7 at columns 0-2 and 4-5: a stone at (3, 7) would make six, an overline (a foul).
    # White's four on column 3, rows 8-11, is blocked at row 12, so White's only five point is (3, 7).
    black = [(0, 7), (1, 7), (2, 7), (4, 7), (5, 7), (3, 12)]
    white = [(3, 8), (3, 9), (3, 10), (3, 11), (14, 0), (12, 0)]
    board = board_with(black, white, rule="renju")
    assert board.forbidden(board.move_at(3, 7)) == "overline"
    move = level_player(level).choose(board.copy())
    assert board.is_legal(move) and (move.col, move.row) != (3, 7)
