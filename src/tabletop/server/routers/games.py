"""A signed-in player's games in progress, and their seat in one of them.

``GET /api/me/games`` lists the games of the player's seeks and challenges that go on, those where
it is their move first, each with the time the side to move has left (the start page's "Your move"
list).  ``POST /api/rooms/{id}/seat`` gives the player a new token for their seat in such a room,
for a game played over days from another browser (the token held before opens the seat no more).
The work is :mod:`~tabletop.server.correspondence`'s.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tabletop.server.correspondence import my_games, reseat
from tabletop.server.errors import RoomError
from tabletop.server.models import Joined, OptionValue
from tabletop.server.routers.accounts import SignedIn
from tabletop.server.routers.bots import PlayerName
from tabletop.server.routers.deps import MAX_ROOM_ID, Hub
from tabletop.server.routers.responses import errors

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["games"])


class GameInProgress(BaseModel):
    room: str
    game: str
    options: dict[str, OptionValue]
    pool: str
    rated: bool
    clock: dict[str, Any] | None
    correspondence: bool = Field(description="a clock of days a move")
    color: str = Field(description="the colour you play")
    opponent: PlayerName
    turn: str | None
    your_move: bool
    moves: int
    time_left: float | None = Field(description="seconds the side to move has left (null: no clock)")
    claimable: bool = Field(description="correspondence: your opponent, to move, ran out of time: claim the win")


class MyGames(BaseModel):
    games: list[GameInProgress]


@router.get("/me/games", operation_id="my_games", response_model=MyGames, responses=errors(401))
async def games_in_progress(player: SignedIn, hub: Hub) -> MyGames:
    """Your games in progress: those where it is your move (or your opponent's time ran out) first,
    the least time left first."""
    return MyGames(games=[GameInProgress(**g.to_dict()) for g in await my_games(hub, player.id)])


@router.post("/rooms/{room_id}/seat", operation_id="take_my_seat", response_model=Joined,
             responses=errors(401, 404))
async def take_my_seat(room_id: str, player: SignedIn, hub: Hub) -> Joined:
    """A new token for your seat in a game you play (from a seek or a challenge); the token held
    before, in another browser, opens the seat no more."""
    if len(room_id) > MAX_ROOM_ID:
        raise RoomError("unknown_room", f"there is no room {room_id!r}", 404)
    seat, token = await reseat(hub, player.id, room_id)
    return Joined(seat=seat, token=token)
