"""Tournaments across two real ``tabletop serve`` processes on one PostgreSQL database and one Redis.

Both processes tick (every half second) and race for the same work: an arena of six players and a
swiss of four are paired exactly once per free player and per round (never a player in two games,
never a round twice), each pairing and each game's end is announced once on the tournament's socket
whichever process made it, and after one process is killed with SIGKILL mid-tournament no game is
lost: the games under way finish through the other process, are scored, and it goes on pairing.

The database and Redis are throw-away ones (the fixtures of ``test_server_postgres.py`` and
``test_server_scaleout.py``); the servers are started as ``test_failover.py`` starts them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from test_failover import _play_until_acked, _serve
from test_lobby_scaleout import Players
from test_server import Server, Socket
from test_server_postgres import postgres_url  # noqa: F401 - a fixture
from test_server_scaleout import redis_url  # noqa: F401 - a fixture

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]

Frame = dict[str, Any]
CLOCK = {"initial": 120, "increment": 0}
ARENA = ("ann", "ben", "cat", "dan", "eve", "fay")
SWISS = ("gus", "hal", "ivy", "jon")


@pytest.fixture
def servers(
    postgres_url: str,  # noqa: F811 - the fixture
    redis_url: str,  # noqa: F811 - the fixture
) -> Iterator[tuple[Server, Server]]:
    one = _serve(postgres_url, redis_url)
    try:
        two = _serve(postgres_url, redis_url)
    except BaseException:
        one.stop()
        raise
    try:
        yield one, two
    finally:
        one.stop()
        two.stop()


def watch(server: Server, tournament_id: str) -> Socket:
    opening = connect(f"ws://127.0.0.1:{server.port}/api/tournaments/{tournament_id}/ws", open_timeout=10,
                      close_timeout=1)
    sock = Socket(opening.__enter__())  # closed by Socket.close
    assert sock.recv()["type"] == "tournament"
    return sock


def view(server: Server, tournament_id: str) -> Frame:
    answer = server.http.get(f"/api/tournaments/{tournament_id}")
    assert answer.status_code == 200, answer.text
    found: Frame = answer.json()
    return found


def wait_for(server: Server, tournament_id: str, test: Any, timeout: float = 30.0) -> Frame:
    deadline = time.monotonic() + timeout
    while True:
        t = view(server, tournament_id)
        if test(t):
            return t
        assert time.monotonic() < deadline, f"the tournament never got there: {t['status']}, {t['games'][:4]}"
        time.sleep(0.2)


def playing(t: Frame) -> list[Frame]:
    return [g for g in t["games"] if g["result"] is None]


def no_one_twice(t: Frame) -> None:
    """Every player in at most one game under way, and each standing's game is the one it plays."""
    names = Counter(n for g in playing(t) for n in (g["black"], g["white"]))
    assert all(count == 1 for count in names.values()), names
    busy = {s["name"]: s["playing"] for s in t["standings"] if s["playing"]}
    assert busy == {n: g["room"] for g in playing(t) for n in (g["black"], g["white"])}


def settled(server: Server, tournament_id: str) -> Frame:
    """The arena after three ticks more of each process, checked: nobody is in two games, and no two
    free players could be paired (each free pair met in their last games)."""
    time.sleep(1.5)
    t = view(server, tournament_id)
    no_one_twice(t)
    last: dict[str, str] = {}
    for g in reversed(t["games"]):  # oldest first: the newest game of each player wins
        last[g["black"]], last[g["white"]] = g["white"], g["black"]
    free = [s["name"] for s in t["standings"] if s["active"] and not s["playing"]]
    for index, a in enumerate(free):
        for b in free[index + 1:]:
            assert last.get(a) == b or last.get(b) == a, f"{a} and {b} are free and could play: {t['games'][:6]}"
    return t


def finish(players: Players, server: Server, game: Frame) -> None:
    """Both players take their seats on ``server``, move once each, and White resigns: 1-0."""
    socks = {}
    for color in ("black", "white"):
        seat = players.on(server, game[color]).post(f"/api/rooms/{game['room']}/seat")
        assert seat.status_code == 200, seat.text
        sock = server.ws(game["room"])
        sock.hello(seat.json()["token"])
        socks[seat.json()["seat"]] = sock
    try:
        _play_until_acked(socks["black"], "b2", 1)
        _play_until_acked(socks["white"], "a1", 1)
        socks["white"].send({"type": "resign"})
        socks["black"].event("game_ended")
    finally:
        for sock in socks.values():
            sock.close()


def test_two_processes_pair_each_free_player_and_round_once_and_one_killed_loses_no_game(
    servers: tuple[Server, Server]
) -> None:
    one, two = servers
    players = Players()
    try:
        for index, name in enumerate(ARENA + SWISS):
            players.sign_up((one, two)[index % 2], name)
        # a start a few seconds ahead, so that every player has joined when both processes race for it
        starts = time.time() + 15
        arena = players.on(one, "ann").post("/api/tournaments", json={
            "kind": "arena", "game": "tictactoe", "clock": CLOCK, "minutes": 30, "starts": starts})
        swiss = players.on(two, "gus").post("/api/tournaments", json={
            "kind": "swiss", "game": "tictactoe", "clock": CLOCK, "rounds": 3, "starts": starts})
        assert arena.status_code == swiss.status_code == 201, (arena.text, swiss.text)
        arena_id, swiss_id = arena.json()["id"], swiss.json()["id"]
        for index, name in enumerate(SWISS):
            assert players.on((two, one)[index % 2], name).post(f"/api/tournaments/{swiss_id}/join").status_code == 200
        for index, name in enumerate(ARENA):
            assert players.on((one, two)[index % 2], name).post(f"/api/tournaments/{arena_id}/join").status_code == 200
        assert time.time() < starts, "the joins took longer than the time given them"
        watcher = watch(two, arena_id)  # it stays on the process that lives

        # both processes race at the start: three arena games and two swiss games, each made once
        t = wait_for(one, arena_id, lambda t: len(playing(t)) == 3)
        s = wait_for(one, swiss_id, lambda s: s["round"] == 1 and len(playing(s)) == 2)
        time.sleep(1.5)  # three ticks more of each process: nothing is paired twice
        t, s = view(two, arena_id), view(two, swiss_id)
        assert (len(t["games"]), len(s["games"]), s["round"]) == (3, 2, 1)
        no_one_twice(t)
        no_one_twice(s)

        # games end on either process; the arena pairs the freed players again, once each
        for game, server in zip(playing(t), (one, two, one), strict=True):
            finish(players, server, game)
        t = settled(two, arena_id)
        assert len(playing(t)) >= 2
        for game in playing(s):
            finish(players, two, game)
        s = wait_for(two, swiss_id, lambda s: s["round"] == 2 and len(playing(s)) == 2)
        time.sleep(1.5)
        s = view(one, swiss_id)
        assert (len(s["games"]), s["round"]) == (4, 2)
        no_one_twice(s)

        # one process dies with games under way; the other finishes them, scores them, and pairs on
        under_way = playing(t)
        before = len(t["games"])
        one.kill()
        for game in under_way:
            finish(players, two, game)
        t = settled(two, arena_id)
        ended = {g["room"]: g for g in t["games"]}
        assert all(ended[g["room"]]["result"] == "1-0" and ended[g["room"]]["black_points"] == 2 for g in under_way)
        assert len(t["games"]) >= before + 2  # paired again by the process that lives
        for game in playing(s):
            finish(players, two, game)
        s = wait_for(two, swiss_id, lambda s: s["round"] == 3 and len(playing(s)) == 2)
        for game in playing(s):
            finish(players, two, game)
        s = wait_for(two, swiss_id, lambda s: s["status"] == "finished")
        assert sum(st["score"] for st in s["standings"]) == 6 and len(s["games"]) == 6
        assert len({frozenset((g["black"], g["white"])) for g in s["games"]}) == 6  # no rematch

        # the watcher saw each arena game start once and each end once, from whichever process
        while True:
            try:
                watcher.recv(timeout=1.5)
            except TimeoutError:
                break
        started = Counter(f["game"]["room"] for f in watcher.seen if f.get("event") == "game_started")
        finished = Counter(f["game"]["room"] for f in watcher.seen if f.get("event") == "game_ended")
        assert set(started) == {g["room"] for g in t["games"]} and set(started.values()) == {1}
        assert set(finished) == {g["room"] for g in t["games"] if g["result"]} and set(finished.values()) == {1}
        watcher.close()
        # the points of the games ended add up to the standings, each once
        points = sum((g["black_points"] or 0) + (g["white_points"] or 0) for g in t["games"])
        assert points == sum(st["score"] for st in t["standings"]) == sum(sum(st["sheet"]) for st in t["standings"])
        assert sum(st["games"] for st in t["standings"]) == 2 * len([g for g in t["games"] if g["result"]])
    finally:
        players.close()
