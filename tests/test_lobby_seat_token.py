# ruff: noqa: F811  (the fixtures imported from test_lobby are parameters of the tests below)
"""The poster's seat token of a taken seek: it leaves the seek's row when collected, and it expires
(server/lobby.py, ``SEAT_TOKEN_TTL``), so a token nobody came for does not sit in the database."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from tabletop.server.lobby import SEAT_TOKEN_TTL
from tabletop.server.store import rooms_table, seeks_table
from test_lobby import Players, app_client, players, post_seek  # noqa: F401  (fixtures are found by name)


def _seek_row(tmp_path: Path, seek_id: str) -> dict[str, object]:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'l.db'}")
    try:
        with engine.connect() as conn:
            return dict(conn.execute(seeks_table.select().where(seeks_table.c.id == seek_id)).mappings().one())
    finally:
        engine.dispose()


def _age_room(tmp_path: Path, room_id: str, seconds: float) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'l.db'}")
    try:
        with engine.begin() as conn:
            conn.execute(rooms_table.update().where(rooms_table.c.id == room_id)
                         .values(created=rooms_table.c.created - seconds))
    finally:
        engine.dispose()


def test_collecting_the_seat_clears_the_token_from_the_seeks_row(players: Players, tmp_path: Path) -> None:
    seek = post_seek(players, "alice")
    room = players.as_("bob").post(f"/api/seeks/{seek['id']}/accept").json()["room"]
    assert _seek_row(tmp_path, seek["id"])["poster_token"]  # waiting for alice
    collected = players.as_("alice").post(f"/api/seeks/{seek['id']}/seat")
    assert collected.status_code == 200 and collected.json()["room"] == room
    assert _seek_row(tmp_path, seek["id"])["poster_token"] is None
    again = players.as_("alice").post(f"/api/seeks/{seek['id']}/seat")
    assert again.status_code == 404 and again.json()["code"] == "unknown_seek"


def test_a_seat_token_not_collected_in_time_expires_and_is_cleared(players: Players, tmp_path: Path) -> None:
    late = post_seek(players, "alice")
    room = players.as_("bob").post(f"/api/seeks/{late['id']}/accept").json()["room"]
    _age_room(tmp_path, room, SEAT_TOKEN_TTL + 1)
    # another game's accept sweeps the expired token out of its row, before alice ever asks
    fresh = post_seek(players, "carol")
    players.as_("bob").post(f"/api/seeks/{fresh['id']}/accept")
    assert _seek_row(tmp_path, late["id"])["poster_token"] is None
    assert _seek_row(tmp_path, fresh["id"])["poster_token"]  # a token within its time stays
    refused = players.as_("alice").post(f"/api/seeks/{late['id']}/seat")
    assert refused.status_code == 404 and refused.json()["code"] == "unknown_seek"
    assert players.as_("carol").post(f"/api/seeks/{fresh['id']}/seat").status_code == 200
