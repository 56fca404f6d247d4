"""Games being played that anyone may watch: the list on the start page and in the lobby.

A game is listed while it is played in public: an online room made from a seek or Play now (its
players signed in) or listed in the lobby, with every person's seat taken, not over, and with an
action (a move, a takeback...) in the last :data:`LIVE_WINDOW` seconds, so that games both players
walked away from leave the list.  An invite-only game between friends is never listed.  Rated games
come first, then the stronger pairings (the mean of the players' ratings in the game's pool), then
the newest.

This module reads the store; it writes nothing and knows no room in memory.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.ratings import MAX_DEVIATION, Rating
from tabletop.server.bots import is_bot_column
from tabletop.server.store import (
    actions_table,
    players_table,
    ratings_table,
    room_players_table,
    rooms_table,
    seats_table,
)

__all__ = ["LIVE_WINDOW", "live_games"]

LIVE_WINDOW = 1800.0  # seconds since a game's last action for it to count as being played
CANDIDATES = 500  # the most recent public games read before ordering (a busy server lists its best 50)


def live_games(conn: Connection, now: float, limit: int = 50) -> list[dict[str, Any]]:
    """The public games in progress at ``now``, best first (see the module's docstring)."""
    rooms, rp, seats, actions = rooms_table.c, room_players_table.c, seats_table.c, actions_table.c
    last_action = (
        sa.select(sa.func.max(actions.at)).where(actions.room_id == rooms.id).scalar_subquery().label("last")
    )
    free_seat = sa.exists().where(seats.room_id == rooms.id, seats.kind == "human", seats.token_hash.is_(None))
    query = (
        sa.select(rooms.id, rooms.game, rooms.options, rooms.clock, rooms.created, rp.black, rp.white, rp.pool,
                  rp.rated, last_action)
        .select_from(rooms_table.outerjoin(room_players_table, rp.room_id == rooms.id))
        .where(rooms.over.is_(False), rooms.mode == "online", sa.or_(rooms.listed.is_(True), rp.room_id.is_not(None)),
               ~free_seat)
        .order_by(rooms.created.desc())
        .limit(CANDIDATES)
    )
    games = []
    for row in conn.execute(query).mappings():
        if row["last"] is None or row["last"] < now - LIVE_WINDOW:
            continue
        black = None if row["black"] is None else _player(conn, row["black"], row["pool"])
        white = None if row["white"] is None else _player(conn, row["white"], row["pool"])
        games.append({
            "room": row["id"], "game": row["game"], "options": json.loads(row["options"]),
            "clock": None if row["clock"] is None else json.loads(row["clock"]),
            "rated": bool(row["rated"]), "pool": row["pool"], "black": black, "white": white,
            "created": row["created"], "last_action": row["last"], "watch": f"/play/{row['id']}",
        })
    games.sort(key=_order)
    return games[:limit]


def _order(game: dict[str, Any]) -> tuple[bool, float, float]:
    """Rated first, then by the mean of the players' ratings (guests last), then the newest."""
    players = [game["black"], game["white"]]
    strength = sum(p["rating"] for p in players) / 2 if all(players) else float("-inf")
    return (not game["rated"], -strength, -game["created"])


def _player(conn: Connection, player_id: str, pool: str) -> dict[str, Any]:
    """A player's name and rating in ``pool`` (a new rating when they have none there yet)."""
    row = conn.execute(
        sa.select(players_table.c.name, ratings_table.c.rating, ratings_table.c.deviation, is_bot_column())
        .select_from(players_table.outerjoin(ratings_table, sa.and_(
            ratings_table.c.player_id == players_table.c.id, ratings_table.c.pool == pool)))
        .where(players_table.c.id == player_id)
    ).mappings().one()
    rating = Rating() if row["rating"] is None else Rating(row["rating"], min(row["deviation"], MAX_DEVIATION))
    return {"name": row["name"], "bot": bool(row["bot"]), "rating": round(rating.rating), "display": rating.display()}
