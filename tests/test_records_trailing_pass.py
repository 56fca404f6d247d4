"""A Reversi transcript that stops right after a forced pass keeps that pass (found by hypothesis)."""

from __future__ import annotations

from tabletop import records
from tabletop.games.reversi import Board

MOVES = ["e4", "e5", "d5", "c5", "e6", "e3", "b4", "f5", "c2", "b5", "f2", "a4", "b3", "d1", "a5", "a6",
         "f3", "b2", "b6", "c6", "d6", "f6", "b1", "f4", "d2", "f1", "pass"]


def test_a_trailing_forced_pass_survives_a_transcript_round_trip() -> None:
    board = Board(size=6)
    for mv in MOVES:
        board.push(mv)
    assert not board.is_game_over()
    record = records.GameRecord.from_board(board)
    text = records.write([record], "transcript")
    assert text.strip().endswith("pass")
    back = records.read(text, "transcript", game="reversi", options={"size": 6})
    assert [m.lower() for m in back[0].moves] == MOVES
