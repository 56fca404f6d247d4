# ruff: noqa: F811  (the fixtures imported from test_lobby are parameters of a test below)
"""A record's facts besides its moves (issue 44 point 5): players and ratings, date, event, place,
time control, opening, result and how the game ended survive a write and a read in SGF, GGF and PSQ,
wherever the format has a place for them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop import records
from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, Color, Outcome
from tabletop.records import GameRecord
from test_lobby import Players, app_client, play, start_game  # noqa: F401  (fixtures are found by name)

NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_.\- ]{0,14}[A-Za-z0-9]", fullmatch=True).filter(lambda s: "  " not in s)
# SGF escapes ']' and '\'; the other formats are given plain text
SGF_TEXT = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1,
                   max_size=30).map(lambda s: " ".join(s.split())).filter(bool)
RESULTS_BEFORE_THE_END = {
    "B+R": "resign", "W+R": "resign", "B+T": "time", "W+T": "time", "B+F": "forfeit", "W+F": "forfeit",
    "Draw": "agreement", "Void": "aborted",
}


@st.composite
def games(draw: st.DrawFn, game: str, text: st.SearchStrategy[str] = NAME) -> tuple[GameRecord, str | None]:
    """A record with random legal moves and every tag, and the way it ended."""
    options: dict[str, Any] = {"size": 8} if game == "reversi" else {
        "size": 15, "rule": draw(st.sampled_from(["renju", "freestyle"]))}
    board = new_board(game, options)
    for _ in range(draw(st.integers(0, 12 if game == "reversi" else 40))):
        if board.is_game_over():
            break
        board.push(draw(st.sampled_from(list(board.legal_moves))))
    record = GameRecord.from_board(board)
    record.options = options if game == "gomoku" and options["rule"] != "freestyle" else record.options
    if board.is_game_over():
        ending = {"discs": "score", "line": "line", "forbidden": "forbidden"}.get(board.outcome().reason, "draw")
    else:
        record.result = draw(st.sampled_from([None, *RESULTS_BEFORE_THE_END]))
        ending = RESULTS_BEFORE_THE_END.get(record.result or "")
    clock = draw(st.tuples(st.integers(1, 10_800), st.sampled_from([0, 0, 1, 2, 5, 30])))
    record.tags = {
        "black": draw(NAME),
        "white": draw(NAME),
        "black_rating": str(draw(st.integers(100, 3000))),
        "white_rating": str(draw(st.integers(100, 3000))),
        "date": draw(st.dates()).isoformat(),
        "event": draw(text),
        "place": draw(text),
        "time_control": records.time_control_text(*clock),
        "opening": draw(text),
    }
    return record, ending


def round_trip(record: GameRecord, fmt: str) -> GameRecord:
    text = records.write([record], fmt)
    again = records.read(text, fmt)
    assert len(again) == 1, text
    assert again[0].moves == record.moves, text
    return again[0]


@settings(max_examples=25, deadline=None)
@given(data=st.data(), game=st.sampled_from(["reversi", "gomoku"]))
def test_sgf_keeps_players_ratings_date_event_place_time_control_result_and_ending(
    data: st.DataObject, game: str
) -> None:
    record, ending = data.draw(games(game, SGF_TEXT))
    again = round_trip(record, "sgf")
    assert again.tags == record.tags
    assert again.result == record.result and again.termination() == ending
    assert again.options == record.options


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_ggf_keeps_players_ratings_date_place_time_control_result_and_ending(data: st.DataObject) -> None:
    record, ending = data.draw(games("reversi"))
    again = round_trip(record, "ggf")
    kept = {k: v for k, v in record.tags.items() if k not in ("event", "opening")}  # GGF has no field for them
    assert again.tags == kept
    if record.result == "Void":  # GGF has no word for a game called off: the result is unknown
        assert again.result is None and again.termination() is None
    else:
        assert again.result == record.result and again.termination() == ending


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_psq_keeps_players_ratings_date_event_place_time_control_rule_result_and_ending(
    data: st.DataObject,
) -> None:
    record, ending = data.draw(games("gomoku"))
    again = round_trip(record, "psq")
    assert again.tags == record.tags
    assert again.options == record.options  # the rule comes back from the file's Rule line
    assert again.result == record.result and again.termination() == ending


def test_each_format_writes_the_facts_where_its_readers_look() -> None:
    board = new_board("reversi", {"size": 8})
    for move in ("f5", "d6", "c3"):
        board.push(move)
    record = GameRecord.from_board(board, {
        "black": "alice", "white": "bob", "black_rating": "1612", "white_rating": "1498",
        "date": "2026-11-28", "event": "tabletop rated reversi-8-blitz", "time_control": "180+2",
    })
    record.result = "W+T"
    sgf = records.write([record], "sgf")
    for prop in ("PB[alice]", "PW[bob]", "BR[1612]", "WR[1498]", "DT[2026-11-28]",
                 "EV[tabletop rated reversi-8-blitz]", "TM[180]", "OT[Fischer: +2 s a move]", "RE[W+T]"):
        assert prop in sgf
    ggf = records.write([record], "ggf")
    for prop in ("PB[alice]", "PW[bob]", "RB[1612]", "RW[1498]", "DT[2026.11.28]", "TI[03:00/00:02/00:00]",
                 "RE[-1.000:t]"):
        assert prop in ggf
    gomoku = new_board("gomoku", {"size": 15, "rule": "renju"})
    for move in ("h8", "h9", "i9"):
        gomoku.push(move)
    renju = GameRecord.from_board(gomoku, dict(record.tags))
    renju.result = "B+R"
    psq = records.write([renju], "psq").splitlines()
    assert psq[:4] == ["Piskvorky 15x15, 11:11, 0", "8,8,0", "8,7,0", "9,7,0"]
    assert psq[4:6] == ["alice", "bob"]
    for line in ('[BlackRating "1612"]', '[Date "2026-11-28"]', '[TimeControl "180+2"]', '[Result "B+R"]',
                 '[Rule "renju"]'):
        assert line in psq


@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        ("(;GM[2]FF[4]SZ[8]TM[600]OT[5x30 byo-yomi];B[fe])", "sgf", {"time_control": "600", "OT": "5x30 byo-yomi"}),
        ("(;GM[Othello]TI[15:00//02:00]DT[2003.12.15_13:24:03.MST]TY[8]B[f5];)", "ggf",
         {"time": "15:00//02:00", "date": "2003.12.15_13:24:03.MST"}),
    ],
)
def test_foreign_clocks_and_dates_we_cannot_express_are_kept_as_written(
    text: str, fmt: str, expected: dict[str, str]
) -> None:
    record = records.read(text, fmt)[0]
    assert record.tags == expected
    again = records.read(records.write([record], fmt), fmt)[0]
    assert again.tags == expected


def test_how_a_game_ended_is_read_from_the_result_and_the_board() -> None:
    assert GameRecord("reversi", moves=["f5"], result="B+R").termination() == "resign"
    assert GameRecord("reversi", moves=["f5"], result="Void").termination() == "aborted"
    assert GameRecord("reversi", moves=["f5"], result="Draw").termination() == "agreement"
    assert GameRecord("reversi", moves=["f5"], result=None).termination() is None
    five = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"]
    assert GameRecord("gomoku", {"size": 15}, moves=five, result="B+").termination() == "line"
    assert GameRecord("tictactoe", moves=["c2", "c3", "b2", "c1", "a3", "b3", "b1", "a2", "a1"],
                      result="Draw").termination() == "draw"


# -- the server's exports -----------------------------------------------------------------------------------



@pytest.fixture
def players(app_client: TestClient) -> Players:
    """Two signed-up players (each sign-up hashes a password: the fewer, the faster)."""
    both = Players(app_client)
    for name in ("alice", "bob"):
        both.sign_up(name)
    return both


def test_a_rated_games_export_names_the_players_ratings_pool_date_clock_and_how_it_ended(players: Players) -> None:
    for game, options, moves, formats in (
        ("reversi", {"size": 8}, ["f5", "d6", "c3"], ("sgf", "ggf")),
        ("gomoku", {"size": 15, "rule": "renju"}, ["h8", "h9", "i9"], ("sgf", "psq")),
    ):
        room, tokens = start_game(players, "alice", "bob", game=game, options=options, color="black", rated=True,
                                  clock={"initial": 180, "increment": 2})
        play(players.client, room, tokens, moves, then="white")  # bob (White) resigns
        state = players.as_(None).get(f"/api/rooms/{room}").json()
        assert state["outcome"]["reason"] == "resign"
        for fmt in formats:
            reply = players.client.get(f"/api/rooms/{room}/record", params={"format": fmt})
            assert reply.status_code == 200, reply.text
            (record,) = records.read(reply.text, fmt)
            tags = record.tags
            assert (tags["black"], tags["white"]) == ("alice", "bob"), fmt
            assert tags["black_rating"] == tags["white_rating"] == "1500", fmt
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", tags["date"]), fmt
            assert tags["time_control"] == "180+2", fmt
            if fmt != "ggf":  # GGF has no field for an event or an opening
                assert tags["event"] == f"tabletop rated {state['players']['pool']}", fmt
                assert tags["opening"] == ("Perpendicular Opening" if game == "reversi" else "Kagetsu (4D)"), fmt
            assert record.result == "B+R" and record.termination() == "resign", fmt
            assert record.moves == moves and record.options == options, fmt
    # a correspondence game's clock, in words where the format has no number for it
    made = players.client.post("/api/rooms", json={"game": "reversi", "mode": "local", "clock": {"days": 3}})
    assert made.status_code == 201, made.text
    sgf = players.client.get(f"/api/rooms/{made.json()['room']}/record", params={"format": "sgf"}).text
    assert "OT[3 days a move]" in sgf and "EV[tabletop game at one screen]" in sgf, sgf


@pytest.mark.parametrize(
    ("winner", "reason", "game", "score", "result"),
    [
        (BLACK, "resign", "gomoku", (1, 0), "B+R"),
        (WHITE, "time", "reversi", (0, 1), "W+T"),
        (BLACK, "abandoned", "reversi", (1, 0), "B+F"),
        (None, "aborted", "gomoku", (0, 0), "Void"),
        (None, "agreement", "reversi", (0, 0), "Draw"),
        (WHITE, "discs", "reversi", (20, 44), "W+24"),
        (BLACK, "line", "gomoku", (1, 0), "B+"),
    ],
)
def test_a_games_outcome_is_written_in_sgfs_result_conventions(
    winner: Color | None, reason: str, game: str, score: tuple[int, int], result: str
) -> None:
    assert records.result_from_outcome(Outcome(winner, reason, score), game) == result
