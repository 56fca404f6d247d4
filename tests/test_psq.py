"""Piskvork PSQ records: reading, writing, round trips and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop import records
from tabletop.cli import main
from tabletop.games.core import BLACK
from tabletop.games.mnk import gomoku
from tabletop.records.psq import PsqError, PsqGame, psq_from_board, read_psq, write_psq

SAMPLE = """Piskvorky 20x20, 11:11, 0\r
10,10,1000\r
11,11,812\r
11,10,500\r
12,12,0\r
pbrain-first.exe\r
pbrain-second.exe\r
-1\r
"""


def test_reads_header_moves_times_and_tail() -> None:
    game = read_psq(SAMPLE)
    assert (game.width, game.height) == (20, 20)
    # 1-based x (column) and y (row from the top): 10,10 is j11 on a 20-high board
    assert [str(m) for m in game.moves] == ["j11", "k10", "k11", "l9"]
    assert [(m.col, m.row) for m in game.moves][:2] == [(9, 9), (10, 10)]
    assert game.times_ms == [1000, 812, 500, 0]
    assert game.players == ["pbrain-first.exe", "pbrain-second.exe"]
    assert game.tail == ["-1"]


def test_writing_gives_the_same_lines_back() -> None:
    assert write_psq(read_psq(SAMPLE)).splitlines() == SAMPLE.replace("\r", "").splitlines()


def test_centre_of_15x15_is_8_8() -> None:
    board = gomoku()
    board.push("h8")
    board.push("a15")
    board.push("o1")
    text = write_psq(psq_from_board(board, times_ms=[5, 6, 7], players=("a", "b"), result=1))
    assert text.splitlines() == ["Piskvorky 15x15, 11:11, 0", "8,8,5", "1,1,6", "15,15,7", "a", "b", "1"]


def test_rectangular_boards_round_trip() -> None:
    board = gomoku(size=(12, 7))
    for mv in ["a1", "l7", "f4"]:
        board.push(mv)
    game = read_psq(write_psq(psq_from_board(board)))
    assert (game.width, game.height) == (12, 7)
    assert game.moves == board.move_stack
    assert [str(m) for m in game.moves] == ["a1", "l7", "f4"]


def test_to_board_replays_and_finds_the_winner() -> None:
    moves = "\n".join(f"{x},8,0\n{x},1,0" for x in range(3, 7)) + "\n7,8,0"
    board = read_psq(f"Piskvorky 15x15, 11:11, 0\n{moves}\n").to_board()
    out = board.outcome()
    assert out is not None and out.winner is BLACK
    assert sorted(str(c) for c in out.cells) == ["c8", "d8", "e8", "f8", "g8"]


def test_to_board_reports_an_illegal_move_with_its_line() -> None:
    # Under renju, Black's ninth stone here is a double-three.
    board = gomoku(rule="renju")
    for mv in ["g8", "a1", "h8", "a2", "i9", "a3", "i10", "a4"]:
        board.push(mv)
    game = psq_from_board(board)
    game.moves.append(gomoku().parse_move("i8"))
    game.times_ms.append(0)
    text = write_psq(game)
    with pytest.raises(PsqError, match=r"line 10: .*double-three") as info:
        read_psq(text).to_board(rule="renju")
    assert info.value.line == 10
    assert read_psq(text).to_board(rule="freestyle").move_stack[-1] == board.parse_move("i8")


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("", 0, "empty"),
        ("Gomoku 15x15\n8,8,0\n", 1, "header"),
        ("Piskvorky 30x30, 11:11, 0\n", 1, "out of range"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n", 3, "off the 15x15 board"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n0,1,0\n", 3, "off the"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\n8,8,0\n", 4, "already played on line 2"),
        ("Piskvorky 15x15, 11:11, 0\n8,x,0\n", 2, "cannot read move line"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,0\nengine\n9,9,0\n", 4, "after the players"),
        ("Piskvorky 15x15, 11:11, 0\n8,8,-5\n", 2, "negative time"),
    ],
)
def test_malformed_text_names_the_line_and_the_reason(text: str, line: int, reason: str) -> None:
    with pytest.raises(PsqError, match=reason) as info:
        read_psq(text)
    assert info.value.line == line
    assert isinstance(info.value, ValueError)


@settings(deadline=None)
@given(st.integers(5, 26), st.integers(5, 26), st.data())
def test_any_game_round_trips(width: int, height: int, data: st.DataObject) -> None:
    board = gomoku(size=(width, height))
    for _ in range(data.draw(st.integers(0, 30))):
        if board.is_game_over():
            break
        board.push(data.draw(st.sampled_from(board.legal_moves)))
    times = data.draw(st.lists(st.integers(0, 10**7), min_size=len(board.move_stack), max_size=len(board.move_stack)))
    game = psq_from_board(board, times_ms=times)
    again = read_psq(write_psq(game))
    assert again.moves == game.moves and again.times_ms == times
    assert [str(m) for m in again.moves] == [str(m) for m in board.move_stack]
    assert again.to_board().to_text() == board.to_text()


def test_psq_game_is_a_plain_value() -> None:
    game = PsqGame(15, 15)
    assert write_psq(game) == "Piskvorky 15x15, 11:11, 0\n"


# -- through the records registry and tabletop convert ---------------------------------


def test_psq_is_a_registered_format() -> None:
    assert "psq" in records.formats()
    assert records.detect("games/final.PSQ") == "psq"


def test_registry_reads_one_gomoku_record_and_writes_it_back() -> None:
    [record] = records.read(SAMPLE, "psq")
    assert (record.game, record.options) == ("gomoku", {"size": 20})
    assert record.moves == ["j11", "k10", "k11", "l9"]
    assert record.tags["black"] == "pbrain-first.exe" and record.tags["white"] == "pbrain-second.exe"
    assert record.result is None
    assert records.write([record], "psq").splitlines() == SAMPLE.replace("\r", "").splitlines()


def test_registry_replays_under_the_rule_hint_and_names_the_line() -> None:
    board = gomoku(rule="renju")
    for mv in ["g8", "a1", "h8", "a2", "i9", "a3", "i10", "a4"]:
        board.push(mv)
    game = psq_from_board(board)
    game.moves.append(gomoku().parse_move("i8"))
    text = write_psq(game)
    with pytest.raises(records.RecordError) as info:
        records.read(text, "psq", options={"rule": "renju"})
    assert info.value.line == 10 and "double-three" in str(info.value)
    [record] = records.read(text, "psq", options={"rule": "freestyle"})
    assert record.moves[-1] == "i8"


def test_registry_reports_malformed_text_with_its_line() -> None:
    with pytest.raises(records.RecordError) as info:
        records.read("Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n", "psq")
    assert info.value.line == 3 and "already played" in str(info.value)


def test_a_finished_game_gets_its_result() -> None:
    moves = "\n".join(f"{x},8,0\n{x},1,0" for x in range(3, 7)) + "\n7,8,0"
    [record] = records.read(f"Piskvorky 15x15, 11:11, 0\n{moves}\n", "psq")
    assert record.result == "B+"


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (records.GameRecord(game="reversi", moves=["f5"]), "Gomoku"),
        (records.GameRecord(game="gomoku", position="/".join(["-" * 15] * 15) + " X"), "start position"),
    ],
)
def test_writer_refuses_what_psq_cannot_hold(record: records.GameRecord, reason: str) -> None:
    with pytest.raises(records.RecordError, match=reason):
        records.write([record], "psq")
    with pytest.raises(records.RecordError, match="exactly one"):
        records.write([record, record], "psq")


def test_convert_psq_to_sgf_and_back(tmp_path: Path) -> None:
    src = tmp_path / "game.psq"
    src.write_text(SAMPLE)
    sgf = tmp_path / "game.sgf"
    back = tmp_path / "back.psq"
    assert main(["convert", str(src), str(sgf)]) == 0
    assert "GM[4]" in sgf.read_text() and "SZ[20]" in sgf.read_text()
    assert main(["convert", str(sgf), str(back)]) == 0
    lines = back.read_text().splitlines()
    assert lines[:5] == ["Piskvorky 20x20, 11:11, 0", "10,10,0", "11,11,0", "11,10,0", "12,12,0"]
    assert lines[5:] == ["pbrain-first.exe", "pbrain-second.exe"]


def test_convert_refuses_a_malformed_psq_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "bad.psq"
    src.write_text("Piskvorky 15x15, 11:11, 0\n8,8,0\n99,1,0\n")
    out = tmp_path / "out.sgf"
    assert main(["convert", str(src), str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "line 3" in err and len(err.strip().splitlines()) == 1
