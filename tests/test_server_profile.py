"""The server's CPU by part (``tabletop serve --profile``, ``tabletop bench server --profile``)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tabletop.bench.server import PART_NAMES, split_by_part
from tabletop.server.profile import NO_CLOCK, PARTS, PartClock


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_the_clock_charges_each_stretch_of_cpu_to_the_part_that_ran_it() -> None:
    clock = PartClock()
    outer = clock.enter("room")
    _spin(0.02)
    inner = clock.enter("match")  # the room hands over to the Match, which hands back
    _spin(0.03)
    clock.enter(inner)
    _spin(0.01)
    clock.enter(outer)
    taken = clock.snapshot()
    ns = taken["parts_ns"]
    assert (outer, inner) == ("loop", "room")
    assert 0.025e9 <= ns["match"] < 0.05e9
    assert 0.025e9 <= ns["room"] < 0.05e9
    assert sum(ns.values()) <= taken["thread_ns"] and set(ns) == set(PARTS)


def test_a_server_without_the_profile_option_times_nothing() -> None:
    assert NO_CLOCK.enter("match") == "match"


def test_the_split_is_the_difference_of_two_samples_over_the_moves() -> None:
    def sample(scale: int) -> dict[str, Any]:
        parts = {part: scale * 1_000_000 for part in PARTS}  # 1 ms a part a step
        thread = scale * 1_000_000 * len(PARTS)
        return {
            "parts_ns": parts, "thread_ns": thread, "process_ns": thread + scale * 2_000_000,
            "writer_ns": scale * 3_000_000, "children_ns": scale * 3_500_000,
        }

    split = split_by_part(sample(1), sample(5), moves=4)  # four steps over four moves: 1 ms a part a move
    assert {split[p] for p in PARTS} == {1.0}
    assert (split["threads"], split["writer"], split["workers"]) == (2.0, 3.0, 0.5)
    assert split["total"] == pytest.approx(len(PARTS) + 5.5)
    assert set(split) == set(PART_NAMES) | {"total"}
    assert split_by_part(sample(1), sample(2), moves=0) == {}


def test_a_profiling_server_answers_its_cpu_by_part_after_moves() -> None:
    from fastapi.testclient import TestClient

    from tabletop.server.app import create_app
    from tabletop.server.settings import Settings

    with TestClient(create_app(Settings(workers=1, profile=True))) as client:
        before = client.get("/api/profile").json()
        created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
        with client.websocket_connect(f"/api/rooms/{created['room']}/ws") as ws:
            ws.send_json({"type": "hello", "tokens": list(created["tokens"].values())})
            assert ws.receive_json()["type"] == "state"
            for seq, move in enumerate(["b2", "a1", "c3"], 1):
                ws.send_json({"type": "move", "move": move, "seq": seq})
                while ws.receive_json() != {"type": "ack", "seq": seq}:
                    pass
        after = client.get("/api/profile").json()
    grew = {part for part in PARTS if after["parts_ns"][part] > before["parts_ns"][part]}
    # the socket read is timed in uvicorn's protocol, which the test client does not use
    assert grew >= {"parse", "room", "match", "store", "bus", "frames", "loop"}
    assert after["process_ns"] >= after["thread_ns"] > before["thread_ns"]


def test_a_server_started_without_profile_refuses_the_profile_request() -> None:
    from fastapi.testclient import TestClient

    from tabletop.server.app import create_app
    from tabletop.server.settings import Settings

    with TestClient(create_app(Settings(workers=1))) as client:
        answer = client.get("/api/profile")
    assert answer.status_code == 404 and "--profile" in answer.text
