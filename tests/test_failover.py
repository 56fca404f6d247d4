"""Failover with real processes: two ``tabletop serve`` behind one PostgreSQL database and one Redis.

The players of a game are connected to one process; it is killed with SIGKILL
(its worker processes too, as in a crash of its machine) right after a move is
sent and before its answer; both players reconnect to the other process with
``since``, resend what was not acknowledged, and finish the game there.  Every
acknowledged move is stored exactly once, and the unacknowledged one exactly
once whether or not it had landed; each player is shown every stored move once,
in order.  Then both processes receive the same move
for the same seat at once, move after move: each is accepted exactly once.

The database and Redis are throw-away ones (the fixtures of
``test_server_postgres.py`` and ``test_server_scaleout.py``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from tabletop.server.store import SqlStore, StoredRoom
from test_server import Server, Socket, started_pair, state
from test_server_postgres import postgres_url  # noqa: F401 - a fixture
from test_server_scaleout import redis_url  # noqa: F401 - a fixture

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]

Frame = dict[str, Any]


def _serve(url: str, redis: str) -> Server:
    """A ``tabletop serve`` on the shared database and bus; a start that runs past the helper's
    60 s on a loaded machine is tried once more."""
    try:
        return Server(url, "--redis", redis)
    except RuntimeError as exc:
        if "did not start" not in str(exc):
            raise
        return Server(url, "--redis", redis)


def _answer(sock: Socket, seq: int) -> Frame:
    """The ack or the error that answers the move numbered ``seq``."""
    return sock.until(lambda f: f.get("type") in ("ack", "error") and f.get("seq") == seq)


def _play_until_acked(sock: Socket, move: str, seq: int, tries: int = 20) -> Frame:
    """Send a move until it is acknowledged: a process whose copy of the room is
    behind answers ``stale_room`` once, reloads, and then knows the move."""
    for _ in range(tries):
        sock.send({"type": "move", "move": move, "seq": seq})
        answer = _answer(sock, seq)
        if answer["type"] == "ack":
            return answer
        assert answer["code"] == "stale_room", answer
        time.sleep(0.05)
    raise AssertionError(f"{move} (seq {seq}) was never acknowledged")


def _last_version(sock: Socket) -> int:
    return max((f["version"] for f in sock.seen if isinstance(f.get("version"), int)), default=0)


def _race(socks: dict[str, Socket], move: str, seq: int) -> dict[str, Frame]:
    """Send the same move on every socket at the same moment; each one's final answer."""
    barrier = threading.Barrier(len(socks))
    got: dict[str, Frame] = {}

    def send(name: str, sock: Socket) -> None:
        barrier.wait()
        got[name] = _play_until_acked(sock, move, seq)

    threads = [threading.Thread(target=send, args=item) for item in socks.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return got


def _shown(sock: Socket) -> list[str]:
    """The moves a connection was shown, in the order of their events."""
    return [
        f["event"]["move"] for f in sock.seen if f.get("type") == "event" and f["event"]["kind"] == "move_played"
    ]


def _stored_moves(server: Server, room: str) -> list[str]:
    moves: list[str] = state(server, room)["moves"]
    return moves


def test_players_finish_their_game_on_the_other_process_after_kill_9(
    postgres_url: str,  # noqa: F811 - the fixture
    redis_url: str,  # noqa: F811 - the fixture
) -> None:
    one, two = started_pair(lambda: _serve(postgres_url, redis_url))
    try:
        created = one.http.post("/api/rooms", json={"game": "gomoku"}).json()
        room = created["room"]
        secret = created["invite"].split("invite=")[1]
        white_token = one.http.post(f"/api/rooms/{room}/join", json={"invite": secret}).json()["token"]
        black_token = created["tokens"]["black"]
        assert state(two, room)["moves"] == []  # the other process holds the room too, and follows it
        black, white = one.ws(room), one.ws(room)
        black.hello(black_token)
        white.hello(white_token)
        acknowledged: list[str] = []
        for i, (sock, move) in enumerate(zip([black, white] * 2, ["h8", "a1", "h9", "a2"])):
            sock.send({"type": "move", "move": move, "seq": i // 2 + 1})
            sock.ack(i // 2 + 1)
            acknowledged.append(move)
        white.until(lambda f: f.get("type") == "event" and f["event"].get("move") == "a2")
        black.until(lambda f: f.get("type") == "event" and f["event"].get("move") == "a2")
        # Black's third move is sent and the process dies before its answer can be read
        black.send({"type": "move", "move": "h10", "seq": 3})
        one.kill()
        black_since, white_since = _last_version(black), _last_version(white)
        shown_before = {"black": _shown(black), "white": _shown(white)}
        black.close()
        white.close()

        # both players come back on the other process with what they saw last
        black, white = two.ws(room), two.ws(room)
        black.hello(black_token, since=black_since)
        white.hello(white_token, since=white_since)
        # landed or not before the kill, h10 is now stored exactly once: the other process reads the
        # room at each hello, so the resend is answered with its ack (fresh, or duplicate if it had landed)
        black.send({"type": "move", "move": "h10", "seq": 3})
        answer = _answer(black, 3)
        assert answer["type"] == "ack", answer
        assert _stored_moves(two, room) == [*acknowledged, "h10"]
        rest = [(white, "a3", 3), (black, "h11", 4), (white, "a4", 4), (black, "h12", 5)]
        for sock, move, seq in rest:
            _play_until_acked(sock, move, seq)
        ended = white.until(lambda f: f.get("type") == "event" and f["event"]["kind"] == "game_ended")
        assert ended["event"]["outcome"]["winner"] == "black"
        black.until(lambda f: f.get("type") == "event" and f["event"]["kind"] == "game_ended")
        black.close()
        white.close()
        expected = [*acknowledged, "h10", "a3", "h11", "a4", "h12"]
        # each player was shown every stored move once, in order, across the two processes: h10 too
        # when the killed process committed it without publishing it (the hello reads the room, so the
        # events after ``since`` include it)
        for name, sock in (("black", black), ("white", white)):
            assert shown_before[name] + _shown(sock) == expected, name
        assert _stored_moves(two, room) == expected
    finally:
        one.stop()
        two.stop()
    # what the database alone holds: each move once, in order, and the end of the game
    async def load() -> StoredRoom | None:
        store = SqlStore(postgres_url)
        try:
            return await store.load(room)
        finally:
            await store.close()

    stored = asyncio.run(load())
    assert stored is not None and stored.room.over
    assert [str(a.arg) for a in stored.actions if a.kind == "play"] == expected


def test_two_processes_receiving_the_same_move_at_once_accept_it_exactly_once(
    postgres_url: str,  # noqa: F811 - the fixture
    redis_url: str,  # noqa: F811 - the fixture
) -> None:
    one, two = started_pair(lambda: _serve(postgres_url, redis_url))
    try:
        created = one.http.post("/api/rooms", json={"game": "gomoku"}).json()
        room = created["room"]
        secret = created["invite"].split("invite=")[1]
        tokens = {
            "black": created["tokens"]["black"],
            "white": one.http.post(f"/api/rooms/{room}/join", json={"invite": secret}).json()["token"],
        }
        assert state(two, room)["moves"] == []
        # each seat is connected to both processes (a player with two tabs, a retry through the other one)
        socks = {(color, name): server.ws(room) for color in tokens for name, server in (("one", one), ("two", two))}
        for (color, _), sock in socks.items():
            sock.hello(tokens[color])
        moves = ["h8", "a1", "h9", "a2", "h10", "a3", "j9", "b5"]
        answers: list[tuple[str, Frame, Frame]] = []
        for ply, move in enumerate(moves):
            color, seq = ("black", "white")[ply % 2], ply // 2 + 1
            got = _race({"one": socks[(color, "one")], "two": socks[(color, "two")]}, move, seq)
            assert set(got) == {"one", "two"}, f"{move}: {got}"
            answers.append((move, got["one"], got["two"]))
            stored = _stored_moves(one, room)
            assert stored == moves[: ply + 1], f"after {move} on both processes: {stored}"
        # each move was acknowledged on both connections, and applied by exactly one process
        fresh = [sum(not f.get("duplicate") for f in (x, y)) for _, x, y in answers]
        assert fresh == [1] * len(moves), answers
        for sock in socks.values():
            sock.close()
        assert _stored_moves(two, room) == moves
        assert state(one, room)["version"] == state(two, room)["version"]
    finally:
        one.stop()
        two.stop()
