# ruff: noqa: F811  (the fixtures imported from test_lobby are parameters of the tests below)
"""A room's state names its signed-in players with their ratings, and a rated game's change once its
result is stored (``players`` of ``GET /api/rooms/{id}`` and the socket's ``state`` frame).

The expected ratings come from ``tabletop.ratings``; the games are played through the app as in
``test_lobby.py``, whose helpers these are."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tabletop.ratings import DEFAULT, Rating, rate_game
from test_lobby import Players, app_client, play, players, start_game  # noqa: F401

COLUMN = ["a1", "b1", "a2", "b2", "a3"]  # Black makes a column on its third move


def state_frame(client: TestClient, room: str, token: str | None = None) -> dict[str, Any]:
    with client.websocket_connect(f"/api/rooms/{room}/ws") as ws:
        ws.send_json({"type": "hello"} if token is None else {"type": "hello", "token": token})
        frame = ws.receive_json()
    assert frame["type"] == "state"
    return dict(frame)


def seen(rating: Rating, after: Rating | None = None) -> dict[str, Any]:
    """A player's view as the state shows it (``name`` aside)."""
    return {
        "rating": round(rating.rating), "display": rating.display(),
        "after": None if after is None else after.display(),
        "change": None if after is None else round(after.rating) - round(rating.rating),
    }


def without_name(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("name", "bot")}


def test_a_seek_rooms_state_names_both_players_with_their_provisional_ratings(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="white", rated=True)
    for state in (players.as_(None).get(f"/api/rooms/{room}").json(), state_frame(players.client, room),
                  state_frame(players.client, room, tokens["black"])):
        found = state["players"]
        assert (found["pool"], found["rated"]) == ("tictactoe-bullet", True)
        assert (found["black"]["name"], found["white"]["name"]) == ("bob", "alice")  # alice asked for White
        assert without_name(found["black"]) == without_name(found["white"]) == seen(DEFAULT)
        assert found["black"]["display"] == "1500?"


def test_a_guest_room_has_no_players(app_client: TestClient) -> None:
    created = app_client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    assert app_client.get(f"/api/rooms/{created['room']}").json()["players"] is None
    assert state_frame(app_client, created["room"])["players"] is None


def test_a_rated_games_end_shows_each_rating_change_as_glicko2_gives_it(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    with players.client.websocket_connect(f"/api/rooms/{room}/ws") as watcher:  # keeps the room in memory
        watcher.send_json({"type": "hello"})
        assert watcher.receive_json()["players"]["black"]["after"] is None
        play(players.client, room, tokens, COLUMN)  # alice (Black) wins
        # asked as the page asks on the game_ended event, while the room is still being watched
        found = players.as_(None).get(f"/api/rooms/{room}").json()["players"]
    new_alice, new_bob = rate_game(DEFAULT, DEFAULT, 1.0)
    assert without_name(found["black"]) == seen(DEFAULT, new_alice)
    assert without_name(found["white"]) == seen(DEFAULT, new_bob)
    assert (found["black"]["change"], found["white"]["change"]) == (162, -162)  # 1500? -> 1662? and 1338?
    assert state_frame(players.client, room)["players"] == found  # a spectator arriving later sees it too


def test_the_next_game_starts_from_the_rating_the_last_one_left(players: Players) -> None:
    first, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    play(players.client, first, tokens, COLUMN)
    alice, bob = rate_game(DEFAULT, DEFAULT, 1.0)
    second, tokens = start_game(players, "bob", "alice", color="black", rated=True)  # bob is Black now
    before = players.as_(None).get(f"/api/rooms/{second}").json()["players"]
    assert (before["black"]["name"], before["white"]["name"]) == ("bob", "alice")
    assert without_name(before["black"]) == seen(bob) and without_name(before["white"]) == seen(alice)
    play(players.client, second, tokens, COLUMN)  # bob wins this one
    new_bob, new_alice = rate_game(bob, alice, 1.0)
    after = players.as_(None).get(f"/api/rooms/{second}").json()["players"]
    assert without_name(after["black"]) == seen(bob, new_bob)
    assert without_name(after["white"]) == seen(alice, new_alice)
    # the first game still shows what it did, though both ratings have moved on since
    first_game = players.client.get(f"/api/rooms/{first}").json()["players"]
    assert without_name(first_game["black"]) == seen(DEFAULT, alice)


def test_a_casual_game_names_the_players_and_changes_no_rating(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="black", rated=False)
    play(players.client, room, tokens, COLUMN)
    found = players.as_(None).get(f"/api/rooms/{room}").json()["players"]
    assert found["rated"] is False and found["black"]["name"] == "alice"
    assert without_name(found["black"]) == without_name(found["white"]) == seen(DEFAULT)


def test_a_game_aborted_before_both_sides_moved_shows_no_change(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    play(players.client, room, tokens, ["a1"], then="white")
    found = players.as_(None).get(f"/api/rooms/{room}").json()["players"]
    assert found["rated"] is True and found["black"]["after"] is None and found["white"]["change"] is None


def test_the_players_follow_their_seats_when_an_opening_swaps_the_colours(players: Players) -> None:
    room, _ = start_game(players, "alice", "bob", color="black", rated=True)
    held = players.client.app.state.hub.rooms[room]  # type: ignore[attr-defined]
    held.seats.swap()  # what a swap opening's choice does to the room's seats
    found = players.as_(None).get(f"/api/rooms/{room}").json()["players"]
    assert (found["black"]["name"], found["white"]["name"]) == ("bob", "alice")


def rematch(client: TestClient, room: str, tokens: dict[str, str]) -> str:
    """Both seats of the finished ``room`` ask for a rematch: the new room's id."""
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black, \
            client.websocket_connect(f"/api/rooms/{room}/ws") as white:
        for color, ws in (("black", black), ("white", white)):
            ws.send_json({"type": "hello", "token": tokens[color]})
            assert ws.receive_json()["type"] == "state"
        black.send_json({"type": "rematch"})
        white.send_json({"type": "rematch"})
        while True:
            f = black.receive_json()
            assert f["type"] != "error", f
            if f["type"] == "event" and f["event"]["kind"] == "rematch_started":
                return str(f["event"]["room"])


def test_a_rematch_names_the_same_players_colours_swapped_and_is_rated_like_the_first(players: Players) -> None:
    first, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    play(players.client, first, tokens, COLUMN)  # alice (Black) wins
    alice, bob = rate_game(DEFAULT, DEFAULT, 1.0)
    second = rematch(players.client, first, tokens)
    swapped = {"black": tokens["white"], "white": tokens["black"]}  # each player keeps their token
    for state in (state_frame(players.client, second), state_frame(players.client, second, swapped["black"])):
        found = state["players"]
        assert (found["black"]["name"], found["white"]["name"]) == ("bob", "alice")
        assert (found["pool"], found["rated"]) == ("tictactoe-bullet", True)
        assert without_name(found["black"]) == seen(bob) and without_name(found["white"]) == seen(alice)
    play(players.client, second, swapped, COLUMN)  # bob (Black now) wins
    new_bob, new_alice = rate_game(bob, alice, 1.0)
    after = players.as_(None).get(f"/api/rooms/{second}").json()["players"]
    assert without_name(after["black"]) == seen(bob, new_bob)
    assert without_name(after["white"]) == seen(alice, new_alice)


def test_a_guest_games_rematch_has_no_players(app_client: TestClient) -> None:
    created = app_client.post("/api/rooms", json={"game": "tictactoe"}).json()
    secret = created["invite"].split("invite=")[1]
    joined = app_client.post(f"/api/rooms/{created['room']}/join", json={"invite": secret}).json()
    tokens = {"black": created["tokens"]["black"], "white": joined["token"]}
    play(app_client, created["room"], tokens, COLUMN)
    second = rematch(app_client, created["room"], tokens)
    assert app_client.get(f"/api/rooms/{second}").json()["players"] is None
