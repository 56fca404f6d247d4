"""The lobby across two real ``tabletop serve`` processes on one PostgreSQL database and one Redis.

Players sign up over HTTP (each keeps their session cookie) and talk to whichever process the test
picks.  A watcher's lobby socket on one process sees the seeks posted, taken and cancelled on the
other; two players accepting one seek at once, one through each process, round after round: exactly
one gets the room, the other 409 ``seek_taken``; a player's seeks are cancelled when their lobby
socket closes, and the watcher on the other process is told.

The database and Redis are throw-away ones (the fixtures of ``test_server_postgres.py`` and
``test_server_scaleout.py``); the servers are started as ``test_failover.py`` starts them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from test_failover import _serve
from test_server import Server, Socket, state
from test_server_postgres import postgres_url  # noqa: F401 - a fixture
from test_server_scaleout import redis_url  # noqa: F401 - a fixture

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]

Frame = dict[str, Any]
COOKIE = "tabletop_session"
PASSWORD = "correct horse battery"
CLOCK = {"initial": 120, "increment": 0}
ROUNDS = 10


@pytest.fixture
def servers(
    postgres_url: str,  # noqa: F811 - the fixture
    redis_url: str,  # noqa: F811 - the fixture
) -> Iterator[tuple[Server, Server]]:
    """Two ``tabletop serve`` processes on the shared database and Redis."""
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


class Players:
    """Signed-up players' session cookies, and an HTTP client per player and process."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}
        self.clients: dict[tuple[str, int], httpx.Client] = {}

    def sign_up(self, server: Server, name: str) -> None:
        answer = server.http.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        self.cookies[name] = answer.cookies[COOKIE]
        server.http.cookies.clear()  # the shared client stays anonymous

    def on(self, server: Server, name: str) -> httpx.Client:
        """``name``'s client for ``server``: the session made on one process is honoured by both."""
        key = (name, server.port)
        if key not in self.clients:
            self.clients[key] = httpx.Client(
                base_url=server.url, cookies={COOKIE: self.cookies[name]}, timeout=30
            )
        return self.clients[key]

    def lobby(self, server: Server, name: str | None = None) -> Socket:
        """A lobby socket on ``server``, signed in as ``name`` (anonymous when None), past its first frame."""
        headers = {} if name is None else {"Cookie": f"{COOKIE}={self.cookies[name]}"}
        opening = connect(
            f"ws://127.0.0.1:{server.port}/api/lobby/ws", additional_headers=headers, open_timeout=10
        )
        sock = Socket(opening.__enter__())  # closed by Socket.close
        assert sock.recv()["type"] == "seeks"
        return sock

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


@pytest.fixture
def players() -> Iterator[Players]:
    p = Players()
    try:
        yield p
    finally:
        p.close()


def post_seek(players: Players, server: Server, name: str, **body: Any) -> Frame:
    answer = players.on(server, name).post("/api/seeks", json={"game": "tictactoe", "clock": CLOCK, **body})
    assert answer.status_code == 201, answer.text
    seek: Frame = answer.json()
    return seek


def lobby_event(sock: Socket, event: str, seek_id: str) -> Frame:
    """The next lobby frame ``event`` about ``seek_id`` (others are kept in ``sock.seen``)."""

    def about(f: Frame) -> bool:
        if f.get("type") != "lobby" or f.get("event") != event:
            return False
        return bool(f["seek"]["id"] == seek_id if event == "seek_posted" else f["id"] == seek_id)

    return sock.until(about, timeout=30)


def lobby_events(sock: Socket) -> list[tuple[str, str]]:
    """(event, seek id) of every lobby frame the socket was shown, in order."""
    return [
        (f["event"], f["seek"]["id"] if f["event"] == "seek_posted" else f["id"])
        for f in sock.seen
        if f.get("type") == "lobby"
    ]


def test_a_watcher_on_one_process_sees_seeks_posted_taken_and_cancelled_on_the_other(
    servers: tuple[Server, Server], players: Players
) -> None:
    one, two = servers
    players.sign_up(one, "alice")
    players.sign_up(two, "bob")
    players.sign_up(one, "carol")
    assert players.on(two, "alice").get("/api/session").json() == {"name": "alice", "bot": False}  # one's session, on two
    watcher = players.lobby(two)
    alice_present = players.lobby(one, "alice")  # alice is in the lobby on process one
    try:
        first = post_seek(players, one, "alice", color="black")
        second = post_seek(players, one, "alice", rated=True)
        shown = lobby_event(watcher, "seek_posted", first["id"])["seek"]
        assert shown["player"] == "alice" and shown["display"] == "1500?" and shown["clock"]["initial"] == 120
        lobby_event(watcher, "seek_posted", second["id"])
        listed = players.on(two, "carol").get("/api/seeks").json()["seeks"]
        assert [s["id"] for s in listed] == [first["id"], second["id"]]

        accepted = players.on(one, "bob").post(f"/api/seeks/{first['id']}/accept")
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["seat"] == "white"
        taken = lobby_event(watcher, "seek_taken", first["id"])
        assert taken["room"] == accepted.json()["room"]
        collected = players.on(two, "alice").post(f"/api/seeks/{first['id']}/seat").json()
        assert collected["room"] == taken["room"] and collected["seat"] == "black"
        assert [s["id"] for s in players.on(two, "carol").get("/api/seeks").json()["seeks"]] == [second["id"]]
    finally:
        alice_present.close()  # alice leaves the lobby on process one: her open seek goes
    lobby_event(watcher, "seek_cancelled", second["id"])
    assert players.on(two, "carol").get("/api/seeks").json() == {"seeks": []}
    assert lobby_events(watcher) == [
        ("seek_posted", first["id"]),
        ("seek_posted", second["id"]),
        ("seek_taken", first["id"]),
        ("seek_cancelled", second["id"]),
    ]
    watcher.close()


def _accept_at_once(players: Players, seek_id: str, who: dict[str, Server]) -> dict[str, httpx.Response]:
    """Each named player accepts ``seek_id`` through their process at the same moment; the answers."""
    barrier = threading.Barrier(len(who))
    answers: dict[str, httpx.Response] = {}
    failures: list[BaseException] = []

    def accept(name: str, server: Server) -> None:
        client = players.on(server, name)
        try:
            barrier.wait(timeout=30)
            answers[name] = client.post(f"/api/seeks/{seek_id}/accept")
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=accept, args=item) for item in who.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures, failures
    return answers


def test_two_players_accepting_one_seek_through_two_processes_at_once_one_gets_the_room(
    servers: tuple[Server, Server], players: Players
) -> None:
    one, two = servers
    for name in ("ann", "ben", "cat"):
        players.sign_up(one, name)
    watcher = players.lobby(one)
    rooms: dict[str, str] = {}
    for round_ in range(ROUNDS):
        # the poster and the two acceptors change processes from round to round
        poster_on, other = (one, two) if round_ % 2 == 0 else (two, one)
        seek = post_seek(players, poster_on, "ann")
        lobby_event(watcher, "seek_posted", seek["id"])
        for server in (one, two):  # each process lists it before the race starts
            assert seek["id"] in [
                s["id"] for s in players.on(server, "cat").get("/api/seeks").json()["seeks"]
            ]
        who = {"ben": one, "cat": two} if round_ % 4 < 2 else {"ben": two, "cat": one}
        answers = _accept_at_once(players, seek["id"], who)
        assert sorted(a.status_code for a in answers.values()) == [200, 409], {
            n: a.text for n, a in answers.items()
        }
        winner = next(n for n, a in answers.items() if a.status_code == 200)
        loser = next(n for n, a in answers.items() if a.status_code == 409)
        refused = answers[loser].json()
        assert refused["code"] == "seek_taken" and refused["message"], refused
        won = answers[winner].json()
        assert won["token"] and won["seat"] in ("black", "white")
        rooms[seek["id"]] = won["room"]
        # the poster's seat, collected through the other process, is the other seat of the same room
        collected = players.on(other, "ann").post(f"/api/seeks/{seek['id']}/seat").json()
        assert collected["room"] == won["room"] and collected["seat"] != won["seat"], collected
        for server in (one, two):  # both processes serve the room, with the winner in their seat
            seated = state(server, won["room"])["players"]
            assert seated[won["seat"]]["name"] == winner and seated[collected["seat"]]["name"] == "ann", (
                seated
            )
            assert players.on(server, loser).get("/api/seeks").json() == {"seeks": []}
        # the loser was not seated: their accept changed nothing they can collect or retry
        again = players.on(who[loser], loser).post(f"/api/seeks/{seek['id']}/accept")
        assert again.status_code == 409 and again.json()["code"] == "seek_taken", again.text
    # a last seek posted after every race: the bus delivers in order, so every seek_taken
    # published by either process reached the watcher before it
    last = post_seek(players, two, "ann")
    lobby_event(watcher, "seek_posted", last["id"])
    taken = [f for f in watcher.seen if f.get("type") == "lobby" and f.get("event") == "seek_taken"]
    assert [(f["id"], f["room"]) for f in taken] == list(rooms.items())  # each seek taken once, by its winner
    assert len(set(rooms.values())) == ROUNDS
    watcher.close()
