"""An abandoned online game can be ended, clocks start with each side's first move, and the
games in progress are listed to watch (match.py, server/room.py, seats.py, results.py, live.py).

Through the app (TestClient) on a wall clock the test moves by hand (``create_app(now=...)``), so the
away timeout and the clocks are passed without sleeping; the Match rules also on their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tabletop.games.core import BLACK, WHITE
from tabletop.games.mnk import tictactoe
from tabletop.match import ClockSettings, Match, MatchError
from tabletop.server.app import create_app
from tabletop.server.settings import Settings
from test_lobby import CLOCK, Players

AWAY = 30.0  # the away timeout of these tests' servers


class Wall:
    """A wall clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.at = time.time()

    def __call__(self) -> float:
        return self.at

    def wait(self, seconds: float) -> None:
        self.at += seconds


@pytest.fixture(scope="module")
def wall() -> Wall:
    return Wall()


def _app(database: Path, wall: Wall) -> TestClient:
    """A server on ``database`` whose games run on ``wall``, its players away for :data:`AWAY` seconds at most."""
    settings = Settings(database=f"sqlite:///{database}", workers=1, away_timeout=AWAY)
    return TestClient(create_app(settings, now=wall))


class Server(Players):
    """The module's server: its players, and the database a second server may open."""

    def __init__(self, client: TestClient, database: Path) -> None:
        super().__init__(client)
        self.database = database


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory, wall: Wall) -> Iterator[Server]:
    """One server for the module's tests (each plays its own games), with its players signed up."""
    database = tmp_path_factory.mktemp("abandon") / "a.db"
    with _app(database, wall) as client:
        p = Server(client, database)
        for name in ("alice", "bob", "carol", "dave"):
            p.sign_up(name)
        yield p


def seek_game(players: Players, poster: str, acceptor: str, rated: bool = True) -> tuple[str, dict[str, str]]:
    """``poster`` (Black) and ``acceptor`` (White) in a room made from a seek: its id and their tokens."""
    seek = players.as_(poster).post(
        "/api/seeks", json={"game": "tictactoe", "clock": CLOCK, "color": "black", "rated": rated}).json()
    accepted = players.as_(acceptor).post(f"/api/seeks/{seek['id']}/accept").json()
    collected = players.as_(poster).post(f"/api/seeks/{seek['id']}/seat").json()
    return accepted["room"], {"black": collected["token"], "white": accepted["token"]}


class Seat:
    """One player's socket in a room."""

    def __init__(self, ws: WebSocketTestSession, token: str) -> None:
        self.ws = ws
        ws.send_json({"type": "hello", "token": token})
        self.state = self.until(lambda f: f["type"] == "state")

    def until(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            f: dict[str, Any] = self.ws.receive_json()
            if test(f):
                return f

    def send(self, kind: str, **data: Any) -> dict[str, Any]:
        """Send a frame; the room's answer: the game's end, or an error."""
        self.ws.send_json({"type": kind, **data})
        return self.until(lambda f: f["type"] == "error" or f.get("event", {}).get("kind") == "game_ended")

    def move(self, move: str) -> None:
        self.ws.send_json({"type": "move", "move": move})
        self.until(lambda f: f.get("event", {}).get("kind") == "move_played" or f["type"] == "error")


def state(client: TestClient, room: str) -> dict[str, Any]:
    answer: dict[str, Any] = client.get(f"/api/rooms/{room}").json()
    return answer


def wait_away(client: TestClient, room: str, color: str) -> dict[str, Any]:
    """The room's state once the server has seen ``color``'s socket close."""
    for _ in range(200):
        found = state(client, room)
        if color in found["away"]:
            return found
        time.sleep(0.01)
    raise AssertionError(f"{color} never showed as away")


def page(players: Players, name: str) -> dict[str, Any]:
    answer: dict[str, Any] = players.as_(None).get(f"/api/players/{name}").json()
    return answer


POOL = "tictactoe-bullet"  # the pool of these tests' seeks (CLOCK: 2 minutes)


def standing(client: TestClient, name: str) -> dict[str, Any]:
    """``name``'s rating and rated games in :data:`POOL` (the module's players play several games)."""
    ratings = client.get(f"/api/players/{name}").json()["ratings"]
    found: dict[str, Any] = ratings.get(POOL, {"rating": 1500.0, "games": 0, "wins": 0, "losses": 0})
    return found


# -- the Match's rules ---------------------------------------------------------------------------------------------
def test_a_clock_from_the_first_move_waits_for_each_sides_first_move_and_gives_it_no_increment() -> None:
    now = [0.0]
    m = Match(tictactoe(), clock=ClockSettings(initial=60, increment=2, from_first_move=True), now=lambda: now[0])
    m.start()
    now[0] = 50.0
    assert m.clock_running is None and m.clock.snapshot() == {"black": 60, "white": 60}  # type: ignore[union-attr]
    m.play(BLACK, "b2")
    now[0] = 100.0
    assert m.clock_running is None and m.clock.snapshot() == {"black": 60, "white": 60}  # type: ignore[union-attr]
    m.play(WHITE, "a1")
    assert m.clock_running is BLACK
    now[0] = 110.0
    m.play(BLACK, "c3")
    assert m.clock.snapshot() == {"black": 52, "white": 60}  # type: ignore[union-attr]  # 10 s, +2
    assert m.state()["clock_running"] == "white" and m.state()["moved"] == {"black": True, "white": True}


def test_either_side_may_abort_until_both_have_moved_and_only_a_player_who_stayed_after() -> None:
    m = Match(tictactoe(), local=False)
    m.start()
    m.play(BLACK, "b2")
    with pytest.raises(MatchError) as refused:
        m.claim_win(BLACK)  # nothing to claim before both moved: abort instead
    assert refused.value.code == "not_allowed"
    m.play(WHITE, "a1")
    with pytest.raises(MatchError):
        m.abort(WHITE)
    m.abort(WHITE, abandoned=True)
    outcome = m.outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason == "aborted"
    claimed = Match(tictactoe(), local=False)
    for color, move in ((BLACK, "b2"), (WHITE, "a1")):
        claimed.play(color, move)
    claimed.claim_win(WHITE)
    won = claimed.outcome()
    assert won is not None and won.winner is WHITE and won.reason == "abandoned" and won.result() == "0-1"


# -- through the server --------------------------------------------------------------------------------------------
def test_a_rated_game_with_one_move_is_aborted_by_either_player_unrated_and_without_result(players: Players) -> None:
    room, tokens = seek_game(players, "alice", "bob")
    client = players.as_(None)
    before = [standing(client, "alice"), standing(client, "bob")]
    with client.websocket_connect(f"/api/rooms/{room}/ws") as b, client.websocket_connect(f"/api/rooms/{room}/ws") as w:
        black, white = Seat(b, tokens["black"]), Seat(w, tokens["white"])
        assert black.state["moved"] == {"black": False, "white": False}
        black.move("b2")
        ended = white.send("abort")
        assert ended["event"]["outcome"]["reason"] == "aborted" and ended["event"]["outcome"]["winner"] is None
    assert {g["room"]: g["result"] for g in page(players, "alice")["games"]}[room] == "aborted"
    assert [standing(client, "alice"), standing(client, "bob")] == before


def test_a_player_away_past_the_timeout_loses_a_rated_game_by_abandonment(players: Players, wall: Wall) -> None:
    room, tokens = seek_game(players, "alice", "bob")
    client = players.as_(None)
    before = [standing(client, "alice"), standing(client, "bob")]
    with client.websocket_connect(f"/api/rooms/{room}/ws") as b:
        black = Seat(b, tokens["black"])
        with client.websocket_connect(f"/api/rooms/{room}/ws") as w:
            white = Seat(w, tokens["white"])
            black.move("b2")
            white.move("a1")
            assert black.send("abort")["code"] == "opponent_present"  # both moved, and White is here
            assert black.send("claim_abandoned")["code"] == "opponent_present"
        assert wait_away(client, room, "white")["away"] == {"white": AWAY}
        presence = black.until(lambda f: f["type"] == "watchers")
        assert presence["away"] == {"white": AWAY} and presence["seats"]["white"] is False
        wall.wait(AWAY - 1)
        refused = black.send("claim_abandoned")
        assert refused["code"] == "claim_too_early" and "in 1 s" in refused["message"]
        wall.wait(1)
        ended = black.send("claim_abandoned")
        assert ended["event"]["outcome"] == {**ended["event"]["outcome"], "winner": "black", "reason": "abandoned"}
    assert {g["room"]: g["result"] for g in page(players, "alice")["games"]}[room] == "1-0"
    alice, bob = standing(client, "alice"), standing(client, "bob")
    assert (alice["wins"], bob["losses"]) == (before[0]["wins"] + 1, before[1]["losses"] + 1)
    assert alice["rating"] > before[0]["rating"] and bob["rating"] < before[1]["rating"]
    assert state(client, room)["away"] == {}  # the game is over: nobody waits for anyone


def test_an_abandoned_game_called_off_has_no_result_and_no_rating_change(players: Players, wall: Wall) -> None:
    room, tokens = seek_game(players, "carol", "dave")
    client = players.as_(None)
    before = [standing(client, "carol"), standing(client, "dave")]
    with client.websocket_connect(f"/api/rooms/{room}/ws") as w:
        white = Seat(w, tokens["white"])
        with client.websocket_connect(f"/api/rooms/{room}/ws") as b:
            black = Seat(b, tokens["black"])
            black.move("b2")
            white.move("a1")
        wait_away(client, room, "black")
        wall.wait(AWAY)
        ended = white.send("abort")
        assert ended["event"]["outcome"]["reason"] == "aborted"
    assert {g["room"]: g["result"] for g in page(players, "dave")["games"]}[room] == "aborted"
    assert [standing(client, "carol"), standing(client, "dave")] == before


def test_a_local_game_is_neither_aborted_nor_claimed(players: Players) -> None:
    created = players.as_(None).post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    with players.client.websocket_connect(f"/api/rooms/{created['room']}/ws") as ws:
        seat = Seat(ws, created["tokens"]["black"])
        assert seat.send("abort")["code"] == "not_allowed"
        assert seat.state["away"] == {}


def test_online_clocks_start_with_each_sides_first_move(players: Players, wall: Wall) -> None:
    client = players.as_(None)
    created = client.post("/api/rooms", json={"game": "tictactoe", "clock": {"initial": 60, "increment": 0}}).json()
    room = created["room"]
    white_token = client.post(f"/api/rooms/{room}/join", json={"invite": created["invite"].split("invite=")[1]}).json()
    with client.websocket_connect(f"/api/rooms/{room}/ws") as b, client.websocket_connect(f"/api/rooms/{room}/ws") as w:
        black, white = Seat(b, created["tokens"]["black"]), Seat(w, white_token["token"])
        wall.wait(20)
        assert state(client, room)["clocks"] == {"black": 60, "white": 60}
        assert state(client, room)["clock_running"] is None
        black.move("b2")
        wall.wait(20)
        assert state(client, room)["clocks"] == {"black": 60, "white": 60}
        white.move("a1")
        wall.wait(5)
        found = state(client, room)
        assert found["clocks"] == {"black": 55, "white": 60} and found["clock_running"] == "black"


def test_the_end_by_abandonment_and_the_away_countdown_survive_a_restart(players: Server, wall: Wall) -> None:
    client = players.as_(None)
    room, tokens = seek_game(players, "carol", "dave")
    other, other_tokens = seek_game(players, "dave", "carol")
    before = standing(client, "carol")
    with client.websocket_connect(f"/api/rooms/{room}/ws") as b, client.websocket_connect(f"/api/rooms/{room}/ws") as w:
        black, white = Seat(b, tokens["black"]), Seat(w, tokens["white"])
        black.move("b2")
        white.move("a1")
    with client.websocket_connect(f"/api/rooms/{other}/ws") as b:
        Seat(b, other_tokens["black"]).move("b2")
    wall.wait(1)
    # a new server on the same database, as after a restart (the module's server holds no socket any more)
    with _app(players.database, wall) as restarted:
        # nobody is connected yet: a seat counts as left from the moment its room is loaded
        assert state(restarted, room)["away"] == {"black": AWAY, "white": AWAY}
        with restarted.websocket_connect(f"/api/rooms/{room}/ws") as w:
            white = Seat(w, tokens["white"])
            assert white.state["away"] == {"black": AWAY}
            wall.wait(AWAY)
            assert white.send("claim_abandoned")["event"]["outcome"]["reason"] == "abandoned"
        with restarted.websocket_connect(f"/api/rooms/{other}/ws") as w:
            assert Seat(w, other_tokens["white"]).send("abort")["event"]["outcome"]["reason"] == "aborted"
    with _app(players.database, wall) as again:
        assert state(again, room)["outcome"] == {**state(again, room)["outcome"], "winner": "white", "reason": "abandoned"}
        assert state(again, other)["outcome"]["reason"] == "aborted"
        results = {g["room"]: g["result"] for g in again.get("/api/players/carol").json()["games"]}
        assert (results[room], results[other]) == ("0-1", "aborted")
        after = standing(again, "carol")  # the abandoned game rated, the aborted one not
        assert (after["games"], after["losses"]) == (before["games"] + 1, before["losses"] + 1)


def test_live_games_list_public_games_in_progress_rated_first_by_rating(players: Players, wall: Wall) -> None:
    client = players.as_(None)
    casual, casual_tokens = seek_game(players, "carol", "dave", rated=False)
    weak, _ = seek_game(players, "carol", "dave")
    strong, strong_tokens = seek_game(players, "alice", "bob")
    listed = client.post("/api/rooms", json={"game": "gomoku", "listed": True}).json()
    client.post(f"/api/rooms/{listed['room']}/join", json={})
    private = client.post("/api/rooms", json={"game": "gomoku"}).json()
    client.post(f"/api/rooms/{private['room']}/join", json={"invite": private["invite"].split("invite=")[1]})
    waiting = client.post("/api/rooms", json={"game": "gomoku", "listed": True}).json()  # nobody joined yet
    # alice and bob bring better ratings to their game than carol and dave (near 1500, if rated at all)
    engine = players.client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        for name, rating in (("alice", 1800.0), ("bob", 1700.0)):
            conn.execute(sa.text("delete from ratings where pool = 'tictactoe-bullet' and player_id in "
                                 "(select id from players where name = :n)"), {"n": name})
            conn.execute(sa.text(
                "insert into ratings (player_id, pool, rating, deviation, volatility, games, wins, draws, losses) "
                "select id, 'tictactoe-bullet', :r, 80, 0.06, 20, 15, 0, 5 from players where name = :n"),
                {"r": rating, "n": name})
    mine = {strong, weak, casual, listed["room"], private["room"], waiting["room"]}
    games = [g for g in client.get("/api/live").json()["games"] if g["room"] in mine]  # other tests' games too
    assert [g["room"] for g in games] == [strong, weak, casual, listed["room"]]
    assert games[0]["black"] == {"name": "alice", "bot": False, "rating": 1800, "display": "1800"}
    assert games[0]["watch"] == f"/play/{strong}" and games[0]["rated"] and not games[2]["rated"]
    assert games[3]["black"] is None and waiting["room"] not in {g["room"] for g in games}
    # a game that ends leaves the list; so does one nobody has touched for half an hour
    with client.websocket_connect(f"/api/rooms/{casual}/ws") as ws:
        Seat(ws, casual_tokens["white"]).send("abort")
    assert casual not in {g["room"] for g in client.get("/api/live").json()["games"]}
    assert weak in {g["room"] for g in client.get("/api/live").json()["games"]}
    wall.wait(1700)
    with client.websocket_connect(f"/api/rooms/{strong}/ws") as ws:
        Seat(ws, strong_tokens["black"]).move("b2")
    wall.wait(200)
    assert {g["room"] for g in client.get("/api/live").json()["games"]} & mine == {strong}
