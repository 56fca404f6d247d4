"""Correspondence games (days a move) and a signed-in player's games in progress.

A correspondence clock gives each move 1, 2, 3, 5, 7 or 14 days (:data:`DAYS`); its games are
posted as seeks like any other, rated in the pool ``GAME-VARIANT-correspondence`` and stored like
every room, so they outlive restarts (the days since the last move count whether or not the server
was up).  When the side to move runs out of time nothing happens by itself: the other side may claim
the win (:func:`check_claim`, then the room's ``check_time`` action, which ends the game on time),
and a move the late side makes first ends the game on time as well.

:func:`my_games` lists a player's games in progress (rooms made from a seek or a challenge), each
with whose move it is and the time the side to move has left, for the start page's "Your move"
list and for bots.  :func:`reseat` gives a player of a room a new token for their seat (the old one
stops opening it): a game played over days is resumed from another browser, and a bot takes its
seat after a reconnection.

This module reads rooms through the hub it is handed and the tables of :mod:`.store`; it never
imports a room.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from tabletop.games.core import Color
from tabletop.match import Match
from tabletop.server.errors import RoomError
from tabletop.server.seats import COLORS, Seats, hash_secret, new_secret
from tabletop.server.store import (
    SqlStore,
    bots_table,
    players_table,
    room_players_table,
    rooms_table,
    seats_table,
)

__all__ = ["DAYS", "GameInProgress", "check_claim", "is_correspondence", "my_games", "reseat", "seat_of_player"]

DAYS = (1, 2, 3, 5, 7, 14)
"""The correspondence time controls: days a move."""


def is_correspondence(clock: dict[str, Any] | None) -> bool:
    """Whether a room record's or seek's ``clock`` gives days a move."""
    return clock is not None and clock.get("days") is not None


def check_claim(match: Match, claimer: Color) -> None:
    """Refuse (:class:`RoomError`) a claim of the win on time by ``claimer`` unless the game has a
    correspondence clock, goes on, and its side to move, the other side, has no time left."""
    clock = match.clock
    if clock is None or clock.settings.per_move is None:
        raise RoomError("no_claim", "only a correspondence game (days a move) is won by a claim on time")
    if match.is_over():
        raise RoomError("game_over", "the game is over")
    running = clock.running
    if running is None or running is claimer:
        raise RoomError("no_claim", "it is your move: a win on time is claimed while the other side is late")
    left = clock.left(running)
    if left > 0:
        hours = left / 3600
        raise RoomError("no_claim", f"your opponent still has {hours:.1f} hours for this move")


class Rooms(Protocol):
    """What this module needs of the server's rooms (:class:`~.rooms.RoomHub` is one)."""

    @property
    def store(self) -> Any: ...

    async def get(self, room_id: str) -> Any: ...


@dataclass(frozen=True)
class GameInProgress:
    """One of a player's games that goes on, as the start page and a bot's stream show it."""

    room: str
    game: str
    options: dict[str, Any]
    pool: str
    rated: bool
    clock: dict[str, Any] | None
    color: str
    opponent: str
    opponent_bot: bool
    turn: str | None
    moves: int
    time_left: float | None  # the side to move's, in seconds (None: no clock)
    claimable: bool  # correspondence: the opponent, to move, ran out of time

    @property
    def your_move(self) -> bool:
        return self.turn == self.color

    def to_dict(self) -> dict[str, Any]:
        return {
            "room": self.room, "game": self.game, "options": self.options, "pool": self.pool,
            "rated": self.rated, "clock": self.clock, "color": self.color,
            "opponent": {"name": self.opponent, "bot": self.opponent_bot}, "turn": self.turn,
            "your_move": self.your_move, "moves": self.moves,
            "time_left": None if self.time_left is None else round(self.time_left, 1),
            "claimable": self.claimable, "correspondence": is_correspondence(self.clock),
        }


def seat_of_player(seats: Seats, row_label: str) -> str:
    """The colour the player of stored seat row ``row_label`` plays now (an opening may have swapped)."""
    return next(label for label in COLORS if seats.row_label(label) == row_label)


def _rows_in_progress(conn: Connection, player_id: str) -> list[dict[str, Any]]:
    rp = room_players_table.c
    black, white = players_table.alias("black_player"), players_table.alias("white_player")
    query = (
        sa.select(rp.room_id, rp.black, rp.white, rp.pool, rp.rated, rooms_table.c.clock,
                  black.c.name.label("black_name"), white.c.name.label("white_name"))
        .join(rooms_table, rooms_table.c.id == rp.room_id)
        .join(black, black.c.id == rp.black)
        .join(white, white.c.id == rp.white)
        .where(sa.or_(rp.black == player_id, rp.white == player_id), rp.ended.is_(None),
               rooms_table.c.over.is_(False))
        .order_by(rp.room_id)
        .limit(200)
    )
    rows = [dict(r) for r in conn.execute(query).mappings()]
    opponents = {r["white"] if r["black"] == player_id else r["black"] for r in rows}
    bots = {b for (b,) in conn.execute(sa.select(bots_table.c.player_id).where(bots_table.c.player_id.in_(opponents)))}
    for r in rows:
        r["opponent_bot"] = (r["white"] if r["black"] == player_id else r["black"]) in bots
    return rows


async def my_games(hub: Rooms, player_id: str) -> list[GameInProgress]:
    """The player's games in progress: those where it is their move first, least time left first."""
    store: SqlStore = hub.store

    def read() -> list[dict[str, Any]]:
        with store.engine.connect() as conn:
            return _rows_in_progress(conn, player_id)

    found = []
    for row in await store.read(read):
        room = await hub.get(row["room_id"])
        if room is None or room.match.is_over():
            continue
        row_label = "black" if row["black"] == player_id else "white"
        color = seat_of_player(room.seats, row_label)
        match: Match = room.match
        turn = match.turn
        clock = match.clock
        left = None if clock is None or turn is None else max(0.0, clock.left(turn))
        claimable = (clock is not None and clock.settings.per_move is not None and turn is not None
                     and turn.label != color and left is not None and left <= 0)
        found.append(GameInProgress(
            room=room.id, game=room.record.game, options=room.record.options, pool=row["pool"],
            rated=bool(row["rated"]), clock=None if row["clock"] is None else json.loads(row["clock"]),
            color=color, opponent=row["white_name"] if row_label == "black" else row["black_name"],
            opponent_bot=row["opponent_bot"], turn=None if turn is None else turn.label,
            moves=len(match.board.move_stack), time_left=left, claimable=claimable,
        ))
    found.sort(key=lambda g: (not (g.your_move or g.claimable), g.time_left if g.time_left is not None else 1e18))
    return found


def _set_token(conn: Connection, room_id: str, row_label: str, token_hash: str) -> None:
    conn.execute(seats_table.update().where(seats_table.c.room_id == room_id, seats_table.c.color == row_label)
                 .values(token_hash=token_hash))


async def reseat(hub: Rooms, player_id: str, room_id: str) -> tuple[str, str]:
    """A new token for ``player_id``'s seat in ``room_id`` (the old one opens it no more): the colour
    and the token.  404 when the room has no such player."""
    store = hub.store
    if not isinstance(store, SqlStore):
        raise RoomError("unknown_room", "this server keeps no players", 404)

    def read() -> Any:
        with store.engine.connect() as conn:
            return conn.execute(room_players_table.select().where(
                room_players_table.c.room_id == room_id)).mappings().first()

    row = await store.read(read)
    room = await hub.get(room_id) if row is not None else None
    if room is None or player_id not in (row["black"], row["white"]):
        raise RoomError("unknown_room", f"you play no game in the room {room_id!r}", 404)
    row_label = "black" if row["black"] == player_id else "white"
    token = new_secret()
    digest = hash_secret(token)
    async with room.lock:
        await store.call(_set_token, room_id, row_label, digest)
        color = seat_of_player(room.seats, row_label)
        room.seats[color].token_hash = digest
    return color, token
