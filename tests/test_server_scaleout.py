"""Scale-out: two server processes share one database and a real Redis (pub/sub).

A player on one process and a player on the other play one game: each sees
the other's moves relayed across processes, and each process follows what the
other committed.  Needs ``redis-server`` (Debian package ``redis-server``).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_server import Server, free_port, started_pair, state


@pytest.fixture
def redis_url() -> Iterator[str]:
    binary = shutil.which("redis-server")
    assert binary, "redis-server is needed for this test: apt-get install redis-server"
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        from redis import Redis  # here: every test worker imports this file (half a CPU-s), few start Redis

        client = Redis(port=port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_two_server_processes_share_a_game_through_redis_and_the_database(
    tmp_path: Path, redis_url: str
) -> None:
    database = tmp_path / "shared.db"
    one, two = started_pair(lambda: Server(database, "--redis", redis_url))
    try:
        created = one.http.post("/api/rooms", json={"game": "tictactoe"}).json()
        room = created["room"]
        secret = created["invite"].split("invite=")[1]
        # the second process reads the room from the database
        joined = two.http.post(f"/api/rooms/{room}/join", json={"invite": secret})
        assert joined.status_code == 200
        a, b = one.ws(room), two.ws(room)
        a.hello(created["tokens"]["black"])
        b.hello(joined.json()["token"])
        a.send({"type": "move", "move": "b2", "seq": 1})
        a.ack(1)
        assert b.event("move_played")["event"]["move"] == "b2"  # process one -> Redis -> process two
        b.send({"type": "move", "move": "a1", "seq": 1})  # process two follows what process one stored
        b.ack(1)
        relayed = a.until(lambda f: f.get("type") == "event" and f["event"].get("color") == "white")
        assert relayed["event"]["move"] == "a1"
        a.send({"type": "move", "move": "c3", "seq": 2})
        a.ack(2)
        deadline = time.monotonic() + 10
        while state(two, room)["moves"] != ["b2", "a1", "c3"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert state(one, room)["moves"] == state(two, room)["moves"] == ["b2", "a1", "c3"]
        assert state(one, room)["version"] == state(two, room)["version"]
        assert state(one, room)["seats"]["white"]["taken"]  # the join on process two is known to process one
        a.close()
        b.close()
    finally:
        one.stop()
        two.stop()
