"""``GET /api/live``: the games being played that anyone may watch (:mod:`tabletop.server.live`).

The start page and the lobby list them with a link to watch; a spectator's page is the game's
own (``/play/ID`` without a seat), which shows the moves, the clocks and the number watching live.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tabletop.server.live import live_games
from tabletop.server.models import OptionValue
from tabletop.server.routers.deps import Hub
from tabletop.server.store import SqlStore

__all__ = ["LiveGames", "router"]

router = APIRouter(prefix="/api", tags=["lobby"])


class LivePlayer(BaseModel):
    name: str
    bot: bool = Field(False, description="a bot account, played by a program")
    rating: int = Field(description="the player's rating in the game's pool now, rounded")
    display: str = Field(description='the rating as shown: "1500?" while provisional')


class LiveGame(BaseModel):
    room: str
    game: str
    options: dict[str, OptionValue]
    clock: dict[str, float | bool | None] | None
    rated: bool
    pool: str | None = Field(description="the rating pool of a game between signed-in players")
    black: LivePlayer | None = Field(description="null for a guest")
    white: LivePlayer | None = Field(description="null for a guest")
    created: float
    last_action: float = Field(description="when the game last changed (a move, a takeback...)")
    watch: str = Field(description="the page that shows the game live", examples=["/play/ROOM"])


class LiveGames(BaseModel):
    """Public games in progress: rated first, then by the players' ratings, then the newest."""

    games: list[LiveGame]


@router.get("/live", operation_id="live_games", response_model=LiveGames)
async def live(hub: Hub) -> LiveGames:
    """Games in progress to watch: those made from seeks or Play now and those listed in the lobby,
    not invite-only games; rated first, by the players' ratings."""
    store = hub.store
    if not isinstance(store, SqlStore):
        return LiveGames(games=[])
    now = hub.now()

    def read() -> list[dict[str, Any]]:
        with store.engine.connect() as conn:
            return live_games(conn, now)

    games: list[dict[str, Any]] = await store.read(read)
    return LiveGames(games=[LiveGame(**g) for g in games])
