"""Seeks, quick pairing, the live lobby socket, player pages and leaderboards.

Every route that acts names the signed-in player (``SignedIn``): a player posts, cancels, accepts
and collects only as themselves.  ``WS /api/lobby/ws`` sends the open seeks, then each
``{"type": "lobby", "event": "seek_posted"|"seek_taken"|"seek_cancelled", ...}`` as it happens on any
server process; when a signed-in player's last lobby socket here closes, their open seeks are
cancelled.  The work is :class:`~tabletop.server.lobby.Lobby`'s; this module reads requests.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field

from tabletop.server.bus import encode_frame, frame
from tabletop.server.lobby import LOBBY_CHANNEL, Lobby
from tabletop.server.models import ClockRequest, Joined, OptionValue
from tabletop.server.rooms import RoomHub
from tabletop.server.routers.accounts import COOKIE, SignedIn, accounts_of
from tabletop.server.routers.deps import Hub, lobby_of
from tabletop.server.routers.feed import ChannelFeed
from tabletop.server.routers.responses import errors

__all__ = ["get_lobby", "router"]

router = APIRouter(prefix="/api", tags=["lobby"])
Game = Literal["reversi", "gomoku", "tictactoe"]
POOL_KEY = r"^(reversi|gomoku|tictactoe)(-[a-z0-9]{1,12}){0,2}-(ultrabullet|bullet|blitz|rapid|classical|correspondence|untimed)$"


class SeekClock(ClockRequest):
    """A seek's clock, as a room's, with no coercion (``false`` is no number of seconds)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class PostSeek(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    game: Game
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    clock: SeekClock | None = None
    color: Literal["black", "white", "random"] = "random"
    rated: bool = False


class PlayNow(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    game: Game
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    clock: SeekClock


class Seek(BaseModel):
    id: str
    player: str
    bot: bool = Field(False, description="the poster is a bot")
    rating: int = Field(description="the poster's rating in the seek's pool")
    display: str = Field(description='the rating as shown: "1500?" while provisional')
    game: str
    options: dict[str, OptionValue]
    clock: dict[str, float | None] | None
    color: str
    rated: bool
    pool: str
    created: float


class Seeks(BaseModel):
    seeks: list[Seek]


class Seated(Joined):
    """The room a seek started and this player's seat in it."""

    room: str


class Paired(BaseModel):
    """Quick pairing: the room when paired at once, else the seek that waits and a computer to offer."""

    room: str | None = None
    seat: str | None = None
    token: str | None = None
    seek: Seek | None = None
    computer: str | None = Field(None, description="the computer player of similar strength (a SPEC)")


class Leaderboard(BaseModel):
    pool: str
    players: list[dict[str, Any]]


def get_lobby(request: Request, hub: Hub) -> Lobby:
    return lobby_of(request.app, hub)


LobbyDep = Annotated[Lobby, Depends(get_lobby)]


def _clock(body: PostSeek | PlayNow) -> dict[str, Any] | None:
    return None if body.clock is None else body.clock.model_dump()


@router.get("/seeks", operation_id="open_seeks", response_model=Seeks)
async def open_seeks(lobby: LobbyDep) -> Seeks:
    """The open seeks, oldest first."""
    return Seeks(seeks=[Seek(**s) for s in await lobby.seeks()])


# the posted seek's id is what the seek's other routes take (OpenAPI links, for clients and fuzzers)
SEEK_LINKS = {
    name: {"operationId": operation, "parameters": {"seek_id": "$response.body#/id"}}
    for name, operation in (("AcceptSeek", "accept_seek"), ("CollectSeat", "collect_seat"),
                            ("CancelSeek", "cancel_seek"))
}


@router.post("/seeks", operation_id="post_seek", status_code=201, response_model=Seek,
             responses={201: {"links": SEEK_LINKS}, **errors(400, 401, 403, 409, 422)})
async def post_seek(body: PostSeek, player: SignedIn, lobby: LobbyDep) -> Seek:
    """Post a seek (a rated one needs a clock); at most three open seeks a player; never by a bot (403)."""
    return Seek(**await lobby.post(player, body.game, dict(body.options), _clock(body), body.color, body.rated))


@router.delete("/seeks/{seek_id}", operation_id="cancel_seek", status_code=204,
               responses=errors(401, 404))
async def cancel_seek(seek_id: str, player: SignedIn, lobby: LobbyDep) -> None:
    """Cancel one of your open seeks."""
    await lobby.cancel(player, seek_id[:32])


@router.post("/seeks/{seek_id}/accept", operation_id="accept_seek", response_model=Seated,
             responses=errors(400, 401, 403, 404, 409))
async def accept_seek(seek_id: str, player: SignedIn, lobby: LobbyDep) -> Seated:
    """Accept a seek: its game starts, and the answer holds your seat's token.  Of two players
    accepting at once exactly one gets the game; the other gets 409 ``seek_taken``."""
    return Seated(**await lobby.accept(player, seek_id[:32]))


@router.post("/seeks/{seek_id}/seat", operation_id="collect_seat", response_model=Seated,
             responses=errors(401, 404, 409))
async def collect_seat(seek_id: str, player: SignedIn, lobby: LobbyDep) -> Seated:
    """The poster's seat once their seek was accepted (the token is given once); 409 while it waits."""
    return Seated(**await lobby.collect(player, seek_id[:32]))


@router.post("/play-now", operation_id="play_now", response_model=Paired, responses=errors(400, 401, 403, 409, 422))
async def play_now(body: PlayNow, player: SignedIn, lobby: LobbyDep) -> Paired:
    """Quick pairing in the pool of this game and clock: the waiting player of the nearest rating
    (the window widens while they wait), or a rated seek that waits, with a computer to offer."""
    return Paired(**await lobby.play_now(player, body.game, dict(body.options), body.clock.model_dump()))


@router.get("/players/{name}", operation_id="player_page", responses=errors(404))
async def player_page(name: str, lobby: LobbyDep) -> dict[str, Any]:
    """A player's ratings (with history), wins/draws/losses and recent games."""
    return await lobby.player_page(name[:40])


@router.get("/leaderboard/{pool}", operation_id="leaderboard", response_model=Leaderboard, responses=errors(404))
async def leaderboard(pool: Annotated[str, Path(pattern=POOL_KEY, max_length=60)], lobby: LobbyDep) -> Leaderboard:
    """The top players of a pool (``reversi-8-blitz``...) with at least 10 rated games there."""
    return Leaderboard(pool=pool, players=await lobby.leaderboard(pool))


@router.websocket("/lobby/ws")
async def lobby_socket(websocket: WebSocket) -> None:
    """The open seeks, then every change to them, live."""
    hub: RoomHub = websocket.app.state.hub
    await websocket.accept()
    lobby = lobby_of(websocket.app, hub)
    accounts = accounts_of(websocket.app, hub)
    player = await accounts.session(websocket.cookies.get(COOKIE))
    feed = ChannelFeed(hub.bus, LOBBY_CHANNEL)
    if player is not None:
        lobby.arrived(player)

    async def opening() -> str:
        return encode_frame(frame("seeks", seeks=await lobby.seeks()))

    try:
        await feed.relay(websocket, opening)
    finally:
        if player is not None:
            hub.spawn(lobby.left(player))  # a task of its own: the connection's may be cancelled here
