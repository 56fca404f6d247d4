"""Seeks, the lobby, quick pairing and rated games (server/lobby.py, results.py, routers/lobby.py).

The pairing rules are checked as pure functions; the rest through the app (TestClient, one cookie
per player), and the accept race and the migration on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from tabletop.ratings import DEFAULT, rate_game
from tabletop.server.app import create_app
from tabletop.server.lobby import WINDOW_MAX, Waiting, computer_level, nearest, window
from tabletop.server.settings import Settings
from test_server_postgres import postgres_url  # noqa: F401 - the PostgreSQL cluster fixture

PASSWORD = "correct horse battery"
CLOCK = {"initial": 120, "increment": 0}


# -- pure pairing rules ----------------------------------------------------------------------------------------
def test_the_window_widens_while_a_seek_waits_up_to_a_limit() -> None:
    assert window(0) == 100 and window(4) == 200 and window(10_000) == WINDOW_MAX
    assert window(-5) == 100  # a clock that stepped back never narrows it


def test_nearest_takes_the_nearest_rating_in_its_window_and_never_ones_own_seek() -> None:
    waiting = [Waiting("own", "me", 1500, 0), Waiting("far", "p1", 1800, 0), Waiting("near", "p2", 1560, 0)]
    assert nearest(1500, "me", waiting, now=1).seek_id == "near"  # type: ignore[union-attr]
    assert nearest(1500, "me", waiting[:2], now=1) is None  # 300 away, window 125
    assert nearest(1500, "me", waiting[:2], now=9) is not None  # the far seek waited: window 325


def test_among_equals_the_longest_waiting_is_paired_first() -> None:
    waiting = [Waiting("new", "p1", 1550, 5), Waiting("old", "p2", 1450, 1)]
    assert nearest(1500, "me", waiting, now=6).seek_id == "old"  # type: ignore[union-attr]


@given(st.floats(500, 3000), st.lists(st.tuples(st.floats(500, 3000), st.floats(0, 60)), max_size=20),
       st.floats(0, 60))
def test_a_pairing_is_always_inside_the_waiting_seeks_window(rating: float, seeks: list[tuple[float, float]],
                                                             now: float) -> None:
    waiting = [Waiting(str(i), f"p{i}", r, since) for i, (r, since) in enumerate(seeks)]
    found = nearest(rating, "me", waiting, now)
    fits = [w for w in waiting if abs(w.rating - rating) <= window(now - w.since)]
    assert (found is None) == (not fits)
    if found is not None:
        assert abs(found.rating - rating) == min(abs(w.rating - rating) for w in fits)


def test_the_computer_offered_grows_with_the_rating() -> None:
    levels = [computer_level(r) for r in (600, 1000, 1001, 1500, 2000, 2350, 3000)]
    assert levels == [1, 1, 2, 5, 8, 10, 10]


# -- through the app ---------------------------------------------------------------------------------------------
class Players:
    """One TestClient; each player's session cookie is set before their requests."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies: dict[str, str] = {}

    def sign_up(self, name: str) -> None:
        self.client.cookies.clear()
        answer = self.client.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        self.cookies[name] = answer.cookies["tabletop_session"]

    def as_(self, name: str | None) -> TestClient:
        self.client.cookies.clear()
        if name is not None:
            self.client.cookies.set("tabletop_session", self.cookies[name])
        return self.client


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database=f"sqlite:///{tmp_path / 'l.db'}", workers=1))) as client:
        yield client


@pytest.fixture
def players(app_client: TestClient) -> Players:
    p = Players(app_client)
    for name in ("alice", "bob", "carol"):
        p.sign_up(name)
    return p


def post_seek(players: Players, name: str, **body: Any) -> dict[str, Any]:
    answer = players.as_(name).post("/api/seeks", json={"game": "tictactoe", "clock": CLOCK, **body})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def start_game(players: Players, poster: str, acceptor: str, **body: Any) -> tuple[str, dict[str, str]]:
    """A seek of ``poster`` accepted by ``acceptor``: the room and each player's seat token by colour."""
    seek = post_seek(players, poster, **body)
    accepted = players.as_(acceptor).post(f"/api/seeks/{seek['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    collected = players.as_(poster).post(f"/api/seeks/{seek['id']}/seat").json()
    assert collected["room"] == accepted.json()["room"]
    return collected["room"], {accepted.json()["seat"]: accepted.json()["token"], collected["seat"]: collected["token"]}


def play(client: TestClient, room: str, tokens: dict[str, str], moves: list[str], then: str | None = None) -> None:
    """Play ``moves`` alternately from Black through each seat's own socket; ``then``: the next side resigns."""
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black, \
            client.websocket_connect(f"/api/rooms/{room}/ws") as white:
        sockets = {"black": black, "white": white}
        for color, ws in sockets.items():
            ws.send_json({"type": "hello", "token": tokens[color]})
            assert ws.receive_json()["type"] == "state"
        for ply, move in enumerate(moves):
            ws = sockets["black" if ply % 2 == 0 else "white"]
            ws.send_json({"type": "move", "move": move, "seq": ply + 1})
            while (f := ws.receive_json())["type"] != "ack":
                assert f["type"] != "error", f
        if then is not None:
            sockets[then].send_json({"type": "resign"})
        while True:
            f = black.receive_json()
            if f["type"] == "event" and f["event"]["kind"] == "game_ended":
                return


def test_a_rated_game_from_a_seek_changes_both_ratings_as_glicko2_says(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    play(players.client, room, tokens, ["a1", "b1", "a2", "b2", "a3"])  # Black (alice) wins on a line
    alice = players.as_(None).get("/api/players/ALICE").json()
    bob = players.client.get("/api/players/bob").json()
    new_alice, new_bob = rate_game(DEFAULT, DEFAULT, 1)
    pool = "tictactoe-bullet"
    assert alice["ratings"][pool]["rating"] == round(new_alice.rating, 1)
    assert bob["ratings"][pool]["rating"] == round(new_bob.rating, 1)
    assert alice["ratings"][pool]["display"] == f"{round(new_alice.rating)}?"
    assert (alice["ratings"][pool]["wins"], bob["ratings"][pool]["losses"]) == (1, 1)
    assert alice["ratings"][pool]["history"][0]["change"] == round(new_alice.rating - 1500, 1)
    assert alice["games"][0] == {
        "room": room, "game": "tictactoe", "pool": pool, "rated": True, "black": "alice", "white": "bob",
        "created": alice["games"][0]["created"], "result": "1-0", "review": f"/review/{room}",
        "black_bot": False, "white_bot": False}


def test_a_casual_game_records_its_result_and_rates_nobody(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="white", rated=False)
    play(players.client, room, tokens, ["a1", "b1"], then="black")  # bob (Black) resigns
    page = players.client.get("/api/players/alice").json()
    assert page["ratings"] == {} and page["games"][0]["result"] == "0-1"


def test_a_game_resigned_before_each_side_moved_is_not_rated(players: Players) -> None:
    room, tokens = start_game(players, "alice", "bob", color="black", rated=True)
    play(players.client, room, tokens, ["a1"], then="white")
    page = players.client.get("/api/players/bob").json()
    assert page["ratings"] == {} and page["games"][0]["result"] == "aborted"


def test_a_guest_room_writes_no_player_rows(app_client: TestClient) -> None:
    created = app_client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    play(app_client, created["room"], created["tokens"], ["a1", "b1", "a2", "b2", "a3"])
    with app_client.app.state.hub.store.engine.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(sa.text("select count(*) from room_players")).scalar() == 0


def test_only_the_player_acts_on_their_seeks(players: Players) -> None:
    seek = post_seek(players, "alice")
    assert players.as_(None).post("/api/seeks", json={"game": "tictactoe"}).status_code == 401
    assert players.as_(None).post(f"/api/seeks/{seek['id']}/accept").json()["code"] == "not_signed_in"
    assert players.as_("bob").delete(f"/api/seeks/{seek['id']}").json()["code"] == "unknown_seek"
    assert players.as_("alice").post(f"/api/seeks/{seek['id']}/accept").json()["code"] == "own_seek"
    assert players.as_("bob").post(f"/api/seeks/{seek['id']}/seat").status_code == 404
    assert players.as_("alice").post(f"/api/seeks/{seek['id']}/seat").json()["code"] == "seek_waiting"
    players.as_("bob").post(f"/api/seeks/{seek['id']}/accept")
    assert players.as_("carol").post(f"/api/seeks/{seek['id']}/seat").status_code == 404  # the poster's only
    assert players.as_("alice").post(f"/api/seeks/{seek['id']}/seat").status_code == 200
    assert players.as_("alice").post(f"/api/seeks/{seek['id']}/seat").status_code == 404  # given once


def test_a_seeks_view_shows_name_rating_and_clock_and_no_secret(players: Players) -> None:
    seek = post_seek(players, "alice", rated=True, game="reversi", options={"size": 6})
    assert seek["player"] == "alice" and seek["display"] == "1500?" and seek["pool"] == "reversi-6-bullet"
    assert seek["clock"] == {"initial": 120.0, "increment": 0.0, "days": None}
    listed = players.as_(None).get("/api/seeks").json()["seeks"]
    assert [s["id"] for s in listed] == [seek["id"]]
    assert not {"player_id", "poster_token", "taken_by"} & set(listed[0])


@pytest.mark.parametrize(("body", "code"), [
    ({"game": "reversi", "options": {"size": 5}, "clock": CLOCK}, "bad_seek"),
    ({"game": "tictactoe", "rated": True}, "bad_seek"),  # rated needs a clock
    ({"game": "chess", "clock": CLOCK}, "bad_request"),
    ({"game": "tictactoe", "color": "green"}, "bad_request"),
])
def test_bad_seeks_are_refused_with_the_one_error_body(players: Players, body: dict[str, Any], code: str) -> None:
    answer = players.as_("alice").post("/api/seeks", json=body)
    assert answer.status_code in (400, 422) and answer.json()["code"] == code
    assert set(answer.json()) == {"code", "message", "detail"}


def test_at_most_three_open_seeks_a_player(players: Players) -> None:
    for _ in range(3):
        post_seek(players, "alice")
    assert players.as_("alice").post("/api/seeks", json={"game": "tictactoe"}).json()["code"] == "too_many_seeks"


def test_two_accepts_at_once_one_gets_the_game(players: Players) -> None:
    seek = post_seek(players, "alice")
    app = players.client.app
    lobby = app.state.lobby  # type: ignore[attr-defined]
    accounts = app.state.accounts  # type: ignore[attr-defined]

    async def race() -> list[Any]:
        bob, carol = await accounts.find("bob"), await accounts.find("carol")
        return list(await asyncio.gather(lobby.accept(bob, seek["id"]), lobby.accept(carol, seek["id"]),
                                         return_exceptions=True))

    results = players.client.portal.call(race)  # type: ignore[union-attr]
    wins = [r for r in results if isinstance(r, dict)]
    losses = [r for r in results if not isinstance(r, dict)]
    assert len(wins) == 1 and len(losses) == 1 and getattr(losses[0], "code", None) == "seek_taken"


def test_the_lobby_socket_shows_seeks_come_and_go_and_a_leaving_players_seeks_are_cancelled(
    players: Players,
) -> None:
    with players.as_(None).websocket_connect("/api/lobby/ws") as watcher:
        assert watcher.receive_json() == {"type": "seeks", "seeks": []}
        players.as_("alice")
        with players.client.websocket_connect("/api/lobby/ws") as alice_socket:
            alice_socket.receive_json()
            first = post_seek(players, "alice")
            second = post_seek(players, "alice")
            posted = [watcher.receive_json(), watcher.receive_json()]
            assert [(f["event"], f["seek"]["id"]) for f in posted] == [
                ("seek_posted", first["id"]), ("seek_posted", second["id"])]
            players.as_("bob").post(f"/api/seeks/{first['id']}/accept")
            taken = watcher.receive_json()
            assert taken["event"] == "seek_taken" and taken["id"] == first["id"] and taken["room"]
        assert watcher.receive_json() == {"type": "lobby", "event": "seek_cancelled", "id": second["id"]}
    assert players.client.get("/api/seeks").json() == {"seeks": []}


def test_signing_out_cancels_the_players_seeks_and_no_one_elses(players: Players) -> None:
    mine = [post_seek(players, "alice")["id"], post_seek(players, "alice")["id"]]
    other = post_seek(players, "bob")["id"]
    with players.as_(None).websocket_connect("/api/lobby/ws") as watcher:
        assert {s["id"] for s in watcher.receive_json()["seeks"]} == {*mine, other}
        assert players.as_("alice").delete("/api/session").status_code == 204
        assert [s["id"] for s in players.as_(None).get("/api/seeks").json()["seeks"]] == [other]
        cancelled = [watcher.receive_json(), watcher.receive_json()]  # the watcher is told of both
        assert sorted(f["id"] for f in cancelled) == sorted(mine)
        assert {f["event"] for f in cancelled} == {"seek_cancelled"}
    # the session is gone: the old cookie posts nothing
    assert players.as_("alice").post("/api/seeks", json={"game": "tictactoe"}).status_code == 401


def test_a_seek_no_process_has_seen_its_poster_in_the_lobby_for_a_minute_is_cancelled(players: Players) -> None:
    """The heartbeat: each process vouches for the players with a lobby socket in it; the open seeks of a
    player nobody vouched for in SEEK_FRESH seconds (posted over the API and never in the lobby, or whose
    process stopped without closing their socket) are cancelled, and every lobby is told."""
    import time

    from tabletop.server.lobby import SEEK_FRESH

    lobby = players.client.app.state.lobby  # type: ignore[attr-defined]
    portal = players.client.portal
    assert portal is not None
    away = post_seek(players, "alice")["id"]  # alice posts over the API and never opens the lobby
    players.as_("bob")
    with players.client.websocket_connect("/api/lobby/ws") as bob_socket:  # bob waits in the lobby
        bob_socket.receive_json()
        here = post_seek(players, "bob")["id"]
        bob_socket.receive_json()  # his own seek_posted
        later = time.time() + SEEK_FRESH / 2
        assert portal.call(lobby.heartbeat, later) == []  # half a minute: both still open
        assert portal.call(lobby.heartbeat, later + SEEK_FRESH / 2 + 1) == [away]  # bob was vouched for
        assert bob_socket.receive_json() == {"type": "lobby", "event": "seek_cancelled", "id": away}
        assert portal.call(lobby.heartbeat, later + SEEK_FRESH / 2 + 2) == []  # swept once
    deadline = time.monotonic() + 10  # bob left: his seek is cancelled by a task of its own
    while players.as_(None).get("/api/seeks").json()["seeks"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert players.as_(None).get("/api/seeks").json() == {"seeks": []}
    assert players.as_("carol").post(f"/api/seeks/{here}/accept").status_code == 404


def test_a_seek_whose_poster_was_not_seen_for_a_minute_cannot_be_accepted_before_the_sweep(
    players: Players,
) -> None:
    """Between two heartbeats a stale seek is neither listed nor taken."""
    import sqlalchemy as sa_

    from tabletop.server.lobby import SEEK_FRESH
    from tabletop.server.store import seeks_table

    seek = post_seek(players, "alice")["id"]
    store = players.client.app.state.hub.store  # type: ignore[attr-defined]
    with store.engine.begin() as conn:  # alice was last seen more than a minute ago
        conn.execute(sa_.update(seeks_table).values(seen=seeks_table.c.seen - SEEK_FRESH - 1))
    assert players.as_(None).get("/api/seeks").json() == {"seeks": []}
    refused = players.as_("bob").post(f"/api/seeks/{seek}/accept")
    assert refused.status_code == 404 and "left the lobby" in refused.json()["message"]


def test_play_now_pairs_with_the_nearest_waiting_player_or_waits_with_a_computer_offer(players: Players) -> None:
    body = {"game": "gomoku", "options": {"rule": "renju"}, "clock": {"initial": 600, "increment": 5}}
    waiting = players.as_("alice").post("/api/play-now", json=body).json()
    assert waiting["room"] is None and waiting["seek"]["pool"] == "gomoku-renju-rapid"
    assert waiting["computer"] == "level:5"
    paired = players.as_("bob").post("/api/play-now", json=body).json()
    assert paired["room"] and paired["token"] and paired["seek"] is None
    assert players.as_("alice").post(f"/api/seeks/{waiting['seek']['id']}/seat").json()["room"] == paired["room"]


def test_the_leaderboard_lists_players_with_ten_rated_games(players: Players) -> None:
    for game in range(10):
        room, tokens = start_game(players, "alice", "bob", color="black", rated=True)
        play(players.client, room, tokens, ["a1", "b1"], then="white" if game % 2 else "black")
    board = players.client.get("/api/leaderboard/tictactoe-bullet").json()
    assert [p["name"] for p in board["players"]] == ["alice", "bob"] or \
        [p["name"] for p in board["players"]] == ["bob", "alice"]
    assert all(p["games"] == 10 for p in board["players"])
    assert players.client.get("/api/leaderboard/gomoku-renju-blitz").json()["players"] == []
    assert players.client.get("/api/leaderboard/chess-blitz").json()["code"] == "bad_request"  # the schema's pattern
    assert players.client.get("/api/players/nobody").json()["code"] == "unknown_player"


# -- storage: the accept race and the migration on SQLite and PostgreSQL ------------------------------------------
def _two_servers_race(url: str) -> list[Any]:
    """Two hubs on their own stores (two writers, as two server processes have) accept one seek at once."""
    from tabletop.server.accounts import Accounts
    from tabletop.server.bus import LocalBus
    from tabletop.server.lobby import Lobby
    from tabletop.server.rooms import RoomHub
    from tabletop.server.store import SqlStore
    from tabletop.server.workers import Pool

    async def run() -> list[Any]:
        stores = [SqlStore(url), SqlStore(url)]
        hubs = [RoomHub(s, LocalBus(), Pool(1)) for s in stores]
        try:
            accounts = Accounts(stores[0])
            (alice, _), (bob, _), (carol, _) = [await accounts.sign_up(n, PASSWORD) for n in ("ann", "ben", "cat")]
            seek = await Lobby(hubs[0]).post(alice, "tictactoe", {}, None, "black", rated=False)
            return list(await asyncio.gather(Lobby(hubs[0]).accept(bob, seek["id"]),
                                             Lobby(hubs[1]).accept(carol, seek["id"]), return_exceptions=True))
        finally:
            for hub in hubs:
                await hub.close()
                hub.pool.close()
            for store in stores:
                await store.close()

    return asyncio.run(run())


def test_two_server_stores_racing_for_a_seek_on_sqlite_give_it_to_one(tmp_path: Path) -> None:
    results = _two_servers_race(f"sqlite:///{tmp_path / 'race.db'}")
    assert sorted(type(r).__name__ for r in results) == ["SeekError", "dict"]


def test_two_server_stores_racing_for_a_seek_on_postgresql_give_it_to_one(postgres_url: str) -> None:  # noqa: F811
    results = _two_servers_race(postgres_url)
    assert sorted(type(r).__name__ for r in results) == ["SeekError", "dict"]
    assert next(r for r in results if not isinstance(r, dict)).code == "seek_taken"


def _upgrade_keeps_games(url: str) -> None:
    """A database at revision 0003 with a game in it upgrades to 0004 and the game loads move for move."""
    from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, SqlStore
    from test_server_parts import _alembic

    async def run() -> None:
        store = SqlStore(url)
        _alembic(store.engine, "downgrade", "0003")
        assert "players" not in sa.inspect(store.engine).get_table_names()
        room = RoomRecord("old-room", "tictactoe", {}, None, {"black": "human", "white": "human"}, None,
                          "local", False, None, 1.0)
        await store.create_room(room, [SeatRecord("black", "human"), SeatRecord("white", "human")],
                                [ActionRecord(0, "start", None, None, 1.0),
                                 ActionRecord(1, "play", "black", "b2", 2.0)])
        await store.close()
        store = SqlStore(url)  # migrates to the newest revision
        try:
            assert {"players", "seeks", "ratings"} <= set(sa.inspect(store.engine).get_table_names())
            loaded = await store.load("old-room")
            assert loaded is not None and [a.arg for a in loaded.actions] == [None, "b2"]
        finally:
            await store.close()

    asyncio.run(run())


def test_a_database_from_before_players_upgrades_without_losing_a_game_on_sqlite(tmp_path: Path) -> None:
    _upgrade_keeps_games(f"sqlite:///{tmp_path / 'old.db'}")


def test_a_database_from_before_players_upgrades_without_losing_a_game_on_postgresql(
    postgres_url: str,  # noqa: F811
) -> None:
    _upgrade_keeps_games(postgres_url)
