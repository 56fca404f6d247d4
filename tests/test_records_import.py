"""``POST /api/records/import`` and rooms that go on from a record's position (issue 25, point 4).

The route reads every format :mod:`tabletop.records` knows, tells the format
from the file name or the text, and answers a malformed record with the
reader's line and column; ``POST /api/rooms`` with ``moves`` makes a room that
goes on from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.records import guess_format
from tabletop.server.settings import Settings

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1))) as test_client:
        yield test_client


def read(client: TestClient, **body: Any) -> Any:
    answer = client.post("/api/records/import", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize(
    ("name", "fmt", "game", "games", "first_moves"),
    [
        ("records/two-games.ggf", "ggf", "reversi", 2, ["f5", "d6", "c3", "d3", "c4"]),
        ("records/gomoku-hand.sgf", "sgf", "gomoku", 1, ["h8", "i8", "g7", "a15", "o1"]),
        ("records/reversi-opening.sgf", "sgf", "reversi", 1, ["f5", "d6", "c3", "d3", "c4", "f4"]),
        ("records/short.psq", "psq", "gomoku", 1, ["h8", "i7", "i8"]),
        ("records/three-positions.obf", "obf", "reversi", 3, []),
        ("records/reversi.txt", "transcript", "reversi", 1, ["f5", "d6", "c3", "d3", "c4", "f4", "c5", "b3", "c2"]),
    ],
)
def test_every_format_reads_with_its_format_told_from_the_text(
    client: TestClient, name: str, fmt: str, game: str, games: int, first_moves: list[str]
) -> None:
    text = (DATA / name).read_text()
    answer = read(client, text=text)
    assert answer["format"] == fmt
    assert len(answer["games"]) == games
    first = answer["games"][0]
    assert first["game"] == game
    assert first["moves"] == first_moves


def test_the_file_name_names_the_format_and_an_obf_line_is_a_start_position(client: TestClient) -> None:
    line = (DATA / "records/three-positions.obf").read_text().splitlines()[0]
    answer = read(client, text=line, filename="ffo.obf")
    game = answer["games"][0]
    assert game["start_position"] == game["position"] != read(client, text="f5")["games"][0]["position"]
    assert game["position"].replace("/", "").split()[0] == line.split()[0]


def test_a_transcript_is_reversi_then_gomoku_unless_the_game_is_given(client: TestClient) -> None:
    assert read(client, text="f5 d6")["games"][0]["game"] == "reversi"
    assert read(client, text="h8 i9 j10")["games"][0]["game"] == "gomoku"
    assert read(client, text="b2 a1", game="tictactoe")["games"][0]["game"] == "tictactoe"


# A random Othello game with its move 23 (e7) swapped with its move 26 (a4): as Reversi,
# a4 flips no disc there; as Gomoku on 15x15, all 60 squares are distinct and no five forms.
OTHELLO_WITH_ILLEGAL_MOVE_23 = (
    "d3c5f6e3f3g7c6f2e6c3b5f5g5g6g4g3e2f4b3a3h2h3a4e7d6f1b2b7d7d8"
    "b4h1e1c1c2a5a1b1h8d2h5b6f7h6h7d1a2g8f8e8a7c4c8a6c7a8h4b8g1g2"
)


def test_an_othello_transcript_with_an_illegal_move_says_why_and_is_not_read_as_gomoku(client: TestClient) -> None:
    text = OTHELLO_WITH_ILLEGAL_MOVE_23
    assert read(client, text=text, game="gomoku")["games"][0]["moves"][22] == "a4"  # Gomoku alone would read it
    answer = client.post("/api/records/import", json={"text": text})
    assert answer.status_code == 400, answer.text
    message = answer.json()["message"]
    assert "line 1, column 45: move 23 (a4) is illegal" in message
    assert "choose Gomoku" in message
    # a transcript that no Reversi reading fits is still Gomoku: squares off 8x8, no Reversi opening
    assert read(client, text="h8 h9 i8 g8 j8")["games"][0]["game"] == "gomoku"
    # a Reversi game with a square off the board, after a Reversi opening, keeps the Reversi error
    answer = client.post("/api/records/import", json={"text": "f5 d6 c3 i9"})
    assert answer.status_code == 400 and "move 4 (i9)" in answer.json()["message"]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"text": "(;GM[2]SZ[8]\n;B[fe];W[zz])"}, "line 2, column 8"),
        ({"text": "f5d6\nf5 d6 q"}, "line 2, column 7"),
        ({"text": "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n"}, "line 3"),
        ({"text": "(;GM[Othello]BO[8 -------- *]B[f5];)"}, "line 1, column"),
    ],
)
def test_a_bad_record_is_a_400_that_names_the_line_and_column(
    client: TestClient, body: dict[str, Any], where: str
) -> None:
    answer = client.post("/api/records/import", json=body)
    assert answer.status_code == 400
    assert answer.json()["code"] == "bad_record"
    assert where in answer.json()["message"], answer.json()["message"]


def test_guess_format_reads_the_first_characters() -> None:
    assert guess_format("(;GM[Othello]BO[8 ...]") == "ggf"
    assert guess_format("  (;FF[4]GM[4]") == "sgf"
    assert guess_format("Piskvorky 20x20, 11:11, 0") == "psq"
    assert guess_format("-" * 64 + " X") == "obf"
    assert guess_format("f5d6") == "transcript"
    assert guess_format("f5d6", "game.sgf") == "sgf"
    assert guess_format("f5d6", "game.txt") == "transcript"


def test_a_room_goes_on_from_the_moves_of_a_record(client: TestClient) -> None:
    game = read(client, text=(DATA / "records/two-games.ggf").read_text())["games"][1]
    body = {"game": "reversi", "mode": "local", "position": game["start_position"], "moves": game["moves"]}
    created = client.post("/api/rooms", json=body)
    assert created.status_code == 201, created.text
    state = client.get(f"/api/rooms/{created.json()['room']}").json()
    # the forced pass the record writes out is the one the room plays itself
    assert state["moves"] == ["pass", "h8"]
    assert state["start_position"] == game["start_position"]
    assert state["outcome"]["winner"] == "black"


def test_a_room_refuses_an_illegal_move_by_its_number_and_moves_while_it_waits(client: TestClient) -> None:
    bad = client.post("/api/rooms", json={"game": "reversi", "mode": "local", "moves": ["f5", "a1"]})
    assert bad.status_code == 400
    assert bad.json()["message"].startswith("move 2 (a1)")
    waiting = client.post("/api/rooms", json={"game": "reversi", "mode": "online", "moves": ["f5"]})
    assert waiting.status_code == 400
    assert "waits for its opponent" in waiting.json()["message"]
