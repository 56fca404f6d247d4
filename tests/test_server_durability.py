"""Durability: kill -9 the server, restart it on the same database, find every acknowledged move.

Also: clocks resume from the stored times, and a computer seat that was
thinking when the server died thinks again after the restart.
"""

from __future__ import annotations

import time
from pathlib import Path

from test_server import Server, state


def test_kill_9_keeps_every_acknowledged_move_clocks_and_computer_seats(tmp_path: Path) -> None:
    database = tmp_path / "durable.db"
    first = Server(database)
    try:
        # an online game with a clock: moves are acknowledged, then the process dies
        created = first.http.post(
            "/api/rooms", json={"game": "gomoku", "clock": {"initial": 120, "increment": 0}}
        )
        room = created.json()["room"]
        black = created.json()["tokens"]["black"]
        secret = created.json()["invite"].split("invite=")[1]
        white = first.http.post(f"/api/rooms/{room}/join", json={"invite": secret}).json()["token"]
        a, b = first.ws(room), first.ws(room)
        a.hello(black)
        b.hello(white)
        acknowledged: list[str] = []
        for i, (sock, move) in enumerate(zip([a, b] * 3, ["h8", "h9", "i8", "i9", "j8", "j9"], strict=True)):
            sock.send({"type": "move", "move": move, "seq": i + 1})
            sock.ack(i + 1)
            acknowledged.append(move)
        time.sleep(0.3)
        clocks_before = state(first, room)["clocks"]
        # two computers playing each other: one is thinking when the server dies
        bots = first.http.post(
            "/api/rooms", json={"game": "gomoku", "seats": {"black": "minimax:0.2", "white": "minimax:0.2"}}
        ).json()["room"]
        watcher = first.ws(bots)
        watcher.hello()
        watcher.until(lambda f: f["type"] == "event" and f["event"]["kind"] == "move_played", timeout=30)
        bot_moves = state(first, bots)["moves"]
        assert bot_moves
        first.kill()
    finally:
        first.stop()

    time.sleep(1.5)  # down time, which must not be charged to anyone's clock
    restarted = time.monotonic()
    second = Server(database)
    try:
        after = state(second, room)
        up = time.monotonic() - restarted  # start-up and the first request: Black's clock runs again meanwhile
        assert after["moves"][: len(acknowledged)] == acknowledged == after["moves"]
        assert after["turn"] == "black"
        # the stored times come back: White's as stored; Black's, which was running,
        # from the time stored with the last move (0.3 s before the snapshot above)
        assert abs(after["clocks"]["white"] - clocks_before["white"]) < 0.05
        assert clocks_before["black"] - up - 0.3 < after["clocks"]["black"] <= clocks_before["black"] + 0.4
        time.sleep(0.5)
        assert state(second, room)["clocks"]["black"] < after["clocks"]["black"]  # and it runs again
        # a resent move of the dead connection is known, the game goes on
        c = second.ws(room)
        c.hello(black)
        c.send({"type": "move", "move": "j8", "seq": 5})
        assert c.until(lambda f: f["type"] == "ack")["duplicate"] is True
        c.send({"type": "move", "move": "k8", "seq": 7})
        assert c.until(lambda f: f["type"] == "ack")["seq"] == 7
        c.close()
        # the computers think again without anyone asking
        resumed = state(second, bots)["moves"]
        assert resumed[: len(bot_moves)] == bot_moves
        deadline = time.monotonic() + 30
        while len(state(second, bots)["moves"]) <= len(resumed) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(state(second, bots)["moves"]) > len(resumed)
    finally:
        second.stop()
    assert second.leftovers == 0  # a stopped server ends its worker processes, thinking or not
