"""The soak run's check against the store counts what it claims: a lost, a duplicated
and a mis-shown move are each found (a soak that reports 0 of each means something)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tabletop.bench.soak import check_against_store
from tabletop.server.store import ActionRecord, RoomRecord, SeatRecord, SqlStore


def _stored(url: str, moves: list[tuple[str, str]]) -> None:
    store = SqlStore(url)
    record = RoomRecord("r1", "tictactoe", {}, None, {"black": "human", "white": "human"}, None, "online", False, None, 1.0)

    async def write() -> None:
        await store.create_room(record, [SeatRecord("black", "human"), SeatRecord("white", "human")], [
            ActionRecord(0, "start", None, None, 1.0)
        ])
        for n, (color, move) in enumerate(moves, 1):
            await store.append("r1", [ActionRecord(n, "play", color, move, 1.0 + n)])
        await store.close()

    asyncio.run(write())


def _part(
    acked: dict[str, list[str]], shown: list[str], pending: tuple[tuple[str, int, str], ...] = ()
) -> dict[str, Any]:
    return {
        "acked": [["r1", color, [[i + 1, m] for i, m in enumerate(moves)]] for color, moves in acked.items()],
        "pending": [["r1", color, seq, move] for color, seq, move in pending],
        "shown": [["r1", [[ply, move] for ply, move in enumerate(shown, 1)]]],
    }


def test_a_sound_game_counts_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    _stored(url, [("black", "b2"), ("white", "a1"), ("black", "c3")])
    part = _part({"black": ["b2", "c3"], "white": ["a1"]}, ["b2", "a1", "c3"])
    assert check_against_store(url, [part]) == {"rooms_checked": 1, "lost": 0, "duplicated": 0, "mis_shown": 0}


def test_lost_duplicated_and_mis_shown_moves_are_counted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    # Black's c3 was acknowledged but is not stored; White's a1 is stored twice (a3 after it)
    _stored(url, [("black", "b2"), ("white", "a1"), ("black", "a2"), ("white", "a3")])
    part = _part({"black": ["b2", "c3"], "white": ["a1"]}, ["b2", "a1", "c1"])
    assert check_against_store(url, [part]) == {"rooms_checked": 1, "lost": 1, "duplicated": 1, "mis_shown": 1}
    # a move in flight when the run stopped is not a duplicate
    in_flight = _part({"black": ["b2", "a2"], "white": ["a1"]}, [], pending=(("white", 2, "a3"),))
    assert check_against_store(url, [in_flight])["duplicated"] == 0
