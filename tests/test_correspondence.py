"""Correspondence games (server/correspondence.py): days a move, over simulated days.

The app runs on a wall clock the test moves (``create_app(now=...)``): no test sleeps.  A game is
posted as a seek, accepted, played over the room sockets, survives a restart of the app on the same
database, shows on each player's list of games with the time left, and ends when the late side's
opponent claims the win; its rating pool is the game's correspondence pool."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.ratings import DEFAULT, rate_game
from tabletop.server.app import create_app
from tabletop.server.lobby import SEEK_FRESH
from tabletop.server.settings import Settings
from test_lobby import Players

DAY = 86400.0


class Wall:
    """A wall clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t

    def days(self, n: float) -> None:
        self.t += n * DAY


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Wall, Players]]:
    """One app for the tests that need no restart, with alice, bob and carol signed up."""
    wall = Wall()
    with app_client(tmp_path_factory.mktemp("correspondence") / "c.db", wall) as client:
        players = Players(client)
        for name in ("alice", "bob", "carol"):
            players.sign_up(name)
        yield wall, players


def app_client(database: Path, wall: Wall) -> TestClient:
    return TestClient(create_app(Settings(database=f"sqlite:///{database}", workers=1), now=wall))


def move(client: TestClient, room: str, token: str, text: str, seq: int) -> dict[str, Any]:
    """Play ``text`` from the seat of ``token``; the ack, or the error frame."""
    with client.websocket_connect(f"/api/rooms/{room}/ws") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "move", "move": text, "seq": seq})
        while (f := ws.receive_json())["type"] not in ("ack", "error"):
            pass
        return dict(f)


def claim(client: TestClient, room: str, token: str) -> dict[str, Any]:
    """Claim the win on time from the seat of ``token``: the game's end, or the error frame."""
    with client.websocket_connect(f"/api/rooms/{room}/ws") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "claim_time"})
        while True:
            f = ws.receive_json()
            if f["type"] == "error" or (f["type"] == "event" and f["event"]["kind"] == "game_ended"):
                return dict(f)


def my_games(players: Players, name: str) -> list[dict[str, Any]]:
    answer = players.as_(name).get("/api/me/games")
    assert answer.status_code == 200, answer.text
    return list(answer.json()["games"])


def test_only_the_listed_days_make_a_correspondence_clock(shared: tuple[Wall, Players]) -> None:
    _, players = shared
    for days in (4, 0.5, 30):
        answer = players.as_("alice").post("/api/seeks", json={"game": "reversi", "clock": {"days": days}})
        assert answer.status_code == 422, answer.text
        assert "1, 2, 3, 5, 7 or 14" in answer.json()["message"]
    for days in (1, 14):
        answer = players.as_("alice").post("/api/seeks", json={"game": "reversi", "clock": {"days": days}})
        assert answer.status_code == 201 and answer.json()["pool"] == "reversi-8-correspondence"
        assert players.as_("alice").delete(f"/api/seeks/{answer.json()['id']}").status_code == 204


def test_a_correspondence_game_runs_over_days_and_restarts_and_is_won_by_a_claim(
    tmp_path: Path, wall: Wall
) -> None:
    database = tmp_path / "c.db"
    with app_client(database, wall) as client:
        players = Players(client)
        players.sign_up("alice")
        players.sign_up("bob")
        seek = players.as_("alice").post(
            "/api/seeks", json={"game": "reversi", "clock": {"days": 3}, "color": "black", "rated": True}).json()
        assert seek["pool"] == "reversi-8-correspondence"
        # a correspondence seek waits for days: neither the lobby's sweep nor its poster leaving takes it
        assert client.portal.call(client.app.state.lobby.heartbeat, time.time() + 10 * SEEK_FRESH) == []
        accepted = players.as_("bob").post(f"/api/seeks/{seek['id']}/accept").json()
        room = accepted["room"]
        assert accepted["seat"] == "white"
        # alice, away when bob accepted, takes her seat from her games (another browser would too)
        assert [g["room"] for g in my_games(players, "alice")] == [room]
        black = players.as_("alice").post(f"/api/rooms/{room}/seat").json()
        assert black["seat"] == "black"
        tokens = {"black": black["token"], "white": accepted["token"]}
        assert move(client, room, tokens["black"], "f5", 1)["type"] == "ack"
        wall.days(0.5)
        assert move(client, room, tokens["white"], "d6", 1)["type"] == "ack"
        wall.days(1)
        (game,) = my_games(players, "alice")
        assert game["your_move"] and game["correspondence"] and game["opponent"] == {"name": "bob", "bot": False}
        assert game["time_left"] == pytest.approx(2 * DAY, abs=1)
        (other,) = my_games(players, "bob")
        assert not other["your_move"] and not other["claimable"] and other["time_left"] == game["time_left"]

    # the server stops for a day and comes back: the game is there, and the day counted
    wall.days(1)
    with app_client(database, wall) as client:
        players.client = client
        (game,) = my_games(players, "alice")
        assert game["room"] == room and game["moves"] == 2
        assert game["time_left"] == pytest.approx(1 * DAY, abs=1)
        refused = claim(client, room, tokens["white"])
        assert refused["type"] == "error" and refused["code"] == "no_claim"  # black still has a day
        wall.days(1.5)
        (game,) = my_games(players, "alice")
        assert game["time_left"] == 0 and game["your_move"]
        (other,) = my_games(players, "bob")
        assert other["claimable"]
        # nothing ends the game by itself: it waits for the claim
        assert client.get(f"/api/rooms/{room}").json()["outcome"] is None
        ended = claim(client, room, tokens["white"])
        assert ended["event"]["outcome"]["winner"] == "white" and ended["event"]["outcome"]["reason"] == "time"
        assert my_games(players, "alice") == [] and my_games(players, "bob") == []
        pool = "reversi-8-correspondence"
        bob = client.get("/api/players/bob").json()
        new_alice, new_bob = rate_game(DEFAULT, DEFAULT, 0)
        assert bob["ratings"][pool]["rating"] == round(new_bob.rating, 1)
        assert bob["ratings"][pool]["wins"] == 1 and list(bob["ratings"]) == [pool]
        alice = client.get("/api/players/alice").json()
        assert alice["ratings"][pool]["losses"] == 1
        assert alice["ratings"][pool]["rating"] == round(new_alice.rating, 1)


def test_a_move_after_the_time_ran_out_loses_on_time(shared: tuple[Wall, Players]) -> None:
    wall, players = shared
    client = players.client
    seek = players.as_("alice").post(
        "/api/seeks", json={"game": "tictactoe", "clock": {"days": 1}, "color": "black"}).json()
    accepted = players.as_("bob").post(f"/api/seeks/{seek['id']}/accept").json()
    room = accepted["room"]
    black = players.as_("alice").post(f"/api/rooms/{room}/seat").json()["token"]
    assert move(client, room, black, "b2", 1)["type"] == "ack"
    assert move(client, room, accepted["token"], "a1", 1)["type"] == "ack"
    wall.days(1.01)
    late = move(client, room, black, "c3", 2)
    assert late["type"] == "error" and late["code"] == "game_over"
    outcome = client.get(f"/api/rooms/{room}").json()["outcome"]
    assert outcome["winner"] == "white" and outcome["reason"] == "time"


def test_a_seat_is_taken_back_only_by_its_player_and_the_old_token_stops(shared: tuple[Wall, Players]) -> None:
    _, players = shared
    client = players.client
    seek = players.as_("alice").post("/api/seeks", json={"game": "tictactoe", "clock": {"days": 2}}).json()
    accepted = players.as_("bob").post(f"/api/seeks/{seek['id']}/accept").json()
    room = accepted["room"]
    assert players.as_("carol").post(f"/api/rooms/{room}/seat").status_code == 404
    assert players.as_(None).post(f"/api/rooms/{room}/seat").status_code == 401
    again = players.as_("bob").post(f"/api/rooms/{room}/seat").json()
    assert again["seat"] == accepted["seat"] and again["token"] != accepted["token"]
    with client.websocket_connect(f"/api/rooms/{room}/ws") as ws:
        ws.send_json({"type": "hello", "token": accepted["token"]})
        while (f := ws.receive_json())["type"] != "error":
            assert f["type"] != "state" or f["you"] == []  # seated nowhere
        assert f["code"] == "bad_token"


def test_a_player_leaving_the_lobby_keeps_their_correspondence_seek_and_loses_the_others(
    shared: tuple[Wall, Players]
) -> None:
    _, players = shared
    client = players.client
    slow = players.as_("carol").post("/api/seeks", json={"game": "gomoku", "clock": {"days": 7}}).json()
    fast = players.as_("carol").post("/api/seeks", json={"game": "gomoku", "clock": {"initial": 60}}).json()
    carol = client.portal.call(client.app.state.accounts.find, "carol")
    assert client.portal.call(client.app.state.lobby.cancel, carol) == [fast["id"]]  # as when her last socket closes
    assert [s["id"] for s in client.get("/api/seeks").json()["seeks"] if s["player"] == "carol"] == [slow["id"]]
    assert slow["pool"] == "gomoku-freestyle-correspondence"
    players.as_("carol").delete(f"/api/seeks/{slow['id']}")
