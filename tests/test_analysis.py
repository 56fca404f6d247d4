"""The analysis of a whole game (issue 25 point 3): the marks by their documented
thresholds, and the routes that start, follow, cancel and store it, on a live server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tabletop.server.analyses import THRESHOLDS, classify, summarise, win_chance
from test_server import Server


# -- the marks ----------------------------------------------------------------------------------------
def test_each_mark_starts_at_its_documented_threshold() -> None:
    assert classify("discs", 2.99) is None
    assert classify("discs", 3) == "inaccuracy"
    assert classify("discs", 6) == "mistake"
    assert classify("discs", 11.9) == "mistake"
    assert classify("discs", 12) == "blunder"
    assert classify("win chance", 9.9) is None
    assert classify("win chance", 10) == "inaccuracy"
    assert classify("win chance", 20) == "mistake"
    assert classify("win chance", 30) == "blunder"
    assert classify("win chance", None) is None
    doc = (Path(__file__).resolve().parent.parent / "docs" / "analysis.md").read_text()
    discs, chance = dict(THRESHOLDS["discs"]), dict(THRESHOLDS["win chance"])
    for mark in ("inaccuracy", "mistake", "blunder"):
        assert f"| {mark} | {discs[mark]:g} | {chance[mark]:g} |" in doc, mark


def test_a_win_chance_is_fifty_at_zero_and_certain_once_proven() -> None:
    assert win_chance("gomoku", 0) == 50
    assert 50 < win_chance("gomoku", 300) < win_chance("gomoku", 3000) < 100
    assert win_chance("gomoku", 999_990) == 100 and win_chance("gomoku", -999_990) == 0
    assert [win_chance("tictactoe", s) for s in (1, 0, -1)] == [100, 50, 0]


def test_the_servers_gomoku_scale_is_the_engines_evaluation_scale() -> None:
    from tabletop.ai.gomoku.evaluation import SCALE
    from tabletop.server.analyses import GOMOKU_SCALE

    # one unit of log-odds: the engine's SCALE reads as 1/(1+e^-1) of a win
    assert GOMOKU_SCALE == SCALE
    assert abs(win_chance("gomoku", SCALE) - 100 / (1 + 2.718281828459045 ** -1)) < 1e-6


def _view(turn: str, scores: dict[str, float], pv: list[str]) -> dict[str, Any]:
    listed = [{"move": m, "score": s, "exact": True} for m, s in scores.items()]
    return {"turn": turn, "over": None, "analysis": {"scores": listed, "pv": pv, "depth": 5}}


def test_a_move_is_marked_by_what_the_graph_drops_from_the_movers_side() -> None:
    views = [
        _view("black", {"f5": 4, "d3": -10}, ["f5", "d6"]),  # Black plays d3: 4 before, -10 after
        _view("white", {"c3": 10, "c5": 9}, ["c3"]),  # White plays c5: White's +10 before, +6 after
        _view("black", {"a1": -6}, ["a1"]),  # Black plays its best move
        {"turn": "white", "over": {"winner": "white", "score": [20, 44]}, "analysis": None},
    ]
    result = summarise("reversi", ["d3", "c5", "a1"], views)
    assert result["unit"] == "discs"
    # the engine's own a1 takes the value after it: -24, not its search's -6
    assert [p["eval"] for p in result["positions"]] == [4, -10, -24, -24]
    assert result["positions"][0]["best"] == "f5" and result["positions"][0]["line"] == ["f5", "d6"]
    # c5 is judged by the positions, not by its own score in the search (9, a bound of another depth)
    assert [(m["loss"], m["mark"]) for m in result["moves"]] == [(14, "blunder"), (0, None), (0, None)]
    assert [m["color"] for m in result["moves"]] == ["black", "white", "black"]


def test_the_marks_agree_with_the_graph_and_the_engines_choice_loses_nothing() -> None:
    """The three contradictions of issue 44: a move marked with the same evaluation before and
    after it, the engine's own choice losing discs, a loss unlike the graph's swing."""
    views = [
        _view("black", {"f5": 2, "d3": -2}, ["f5"]),  # Black plays d3, scored 4 lower in this search
        _view("white", {"c3": -2, "c5": -6}, ["c3"]),  # yet the next search sees Black still +2
        _view("black", {"c4": 5}, ["c4"]),  # White's c3 was its best; this search says Black +5
        _view("white", {"e6": -2, "a1": -9}, ["e6"]),  # after Black's best c4 the next says +2
        _view("black", {"b4": 20}, ["b4"]),  # White's a1 gives 18 away
    ]
    moves = ["d3", "c3", "c4", "a1"]
    result = summarise("reversi", moves, views)
    evals = [p["eval"] for p in result["positions"]]
    assert evals == [2, 2, 2, 2, 20]
    for m, before, after in zip(result["moves"], evals[:-1], evals[1:], strict=True):
        drop = before - after if m["color"] == "black" else after - before
        assert m["loss"] == max(0.0, drop), m
    assert [m["loss"] for m in result["moves"]] == [0, 0, 0, 18]
    assert [m["mark"] for m in result["moves"]] == [None, None, None, "blunder"]


def test_a_gomoku_move_loses_points_of_the_movers_chance_to_win() -> None:
    views = [
        _view("black", {"h8": 0}, ["h8"]),  # Gomoku: an even start
        _view("white", {"j9": 3000}, ["j9"]),  # after Black's a1, White is well ahead (88 %)
        _view("black", {"h9": 0}, ["h9"]),  # White's k10 instead of j9 evens it again
    ]
    result = summarise("gomoku", ["a1", "k10"], views)
    black_chance = [p["eval"] for p in result["positions"]]
    white_ahead = win_chance("gomoku", 3000)
    assert black_chance == [50, pytest.approx(100 - white_ahead), 50]
    assert [m["loss"] for m in result["moves"]] == [pytest.approx(white_ahead - 50, abs=0.01)] * 2
    assert [m["mark"] for m in result["moves"]] == ["blunder", "blunder"]


# -- the routes, on a live server ------------------------------------------------------------------------
@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "analysis.db"


def _finished_room(server: Server, game: str = "tictactoe") -> dict[str, Any]:
    """A game the computer plays against itself to the end, at one screen."""
    created = server.http.post(
        "/api/rooms", json={"game": game, "mode": "local", "seats": {"black": "level:1", "white": "level:1"}}
    )
    assert created.status_code == 201, created.text
    room = created.json()["room"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state: dict[str, Any] = server.http.get(f"/api/rooms/{room}").json()
        if state["outcome"] is not None:
            return state
        time.sleep(0.2)
    raise AssertionError("the computer did not finish its game")


def _until_done(server: Server, room: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer: dict[str, Any] = server.http.get(f"/api/rooms/{room}/analysis").json()
        if answer["status"] != "running":
            return answer
        time.sleep(0.2)
    raise AssertionError("the analysis did not end")


def test_a_finished_game_is_analysed_in_the_pool_and_stored_for_the_next_visit(database: Path) -> None:
    server = Server(database, "--workers", "1")
    try:
        state = _finished_room(server)
        room, moves = state["id"], state["moves"]
        assert server.http.get(f"/api/rooms/{room}/analysis").json()["status"] == "none"
        started = server.http.post(f"/api/rooms/{room}/analysis")
        assert started.status_code == 202, started.text
        assert started.json()["status"] in ("running", "done") and started.json()["total"] == len(moves) + 1
        done = _until_done(server, room)
        assert done["status"] == "done" and done["done"] == len(moves) + 1
        assert done["unit"] == "win chance" and done["analysed_moves"] == moves
        assert [p["ply"] for p in done["positions"]] == list(range(len(moves) + 1))
        assert [m["move"] for m in done["moves"]] == moves
        winner = state["outcome"]["winner"]
        assert done["positions"][-1]["eval"] == {"black": 100, "white": 0, None: 50}[winner]
        assert all(p["best"] for p in done["positions"][:-1])  # the engine's move at every ply
        assert done["positions"][0]["line"][0] == done["positions"][0]["best"]
        # a second start gives the stored analysis back without searching again
        again = server.http.post(f"/api/rooms/{room}/analysis")
        assert again.json()["status"] == "done"
    finally:
        server.stop()
    restarted = Server(database, "--workers", "1")
    try:
        stored = restarted.http.get(f"/api/rooms/{room}/analysis").json()
        assert stored["status"] == "done" and stored["positions"] == done["positions"]
        assert stored["moves"] == done["moves"]
    finally:
        restarted.stop()


def test_a_running_analysis_is_cancelled_and_nothing_is_stored(database: Path) -> None:
    server = Server(database, "--workers", "1")
    try:
        state = _finished_room(server, "reversi")
        room = state["id"]
        assert server.http.post(f"/api/rooms/{room}/analysis").json()["status"] == "running"
        cancelled = server.http.post(f"/api/rooms/{room}/analysis/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        assert cancelled.json()["done"] < len(state["moves"]) + 1
        time.sleep(1)
        assert server.http.get(f"/api/rooms/{room}/analysis").json()["status"] == "cancelled"
    finally:
        server.stop()


def test_an_online_game_in_progress_an_empty_game_and_an_unknown_room_are_refused(database: Path) -> None:
    server = Server(database, "--workers", "1")
    try:
        online = server.http.post("/api/rooms", json={"game": "tictactoe"}).json()["room"]
        refused = server.http.post(f"/api/rooms/{online}/analysis")
        assert refused.status_code == 409 and refused.json()["code"] == "game_in_progress"
        empty = server.http.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()["room"]
        none = server.http.post(f"/api/rooms/{empty}/analysis")
        assert none.status_code == 400 and none.json()["code"] == "no_moves"
        missing = server.http.get("/api/rooms/nosuchroom/analysis")
        assert missing.status_code == 404 and missing.json()["code"] == "unknown_room"
    finally:
        server.stop()
