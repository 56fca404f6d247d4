"""The Bot API over HTTP: turning an account into a bot, its event stream, and challenges.

A bot names itself with ``Authorization: Bearer TOKEN`` (the token :func:`become_bot` answers),
as any signed-in route accepts; a browser's session cookie works as well.  ``GET /api/bot/stream``
is the bot's events, one JSON object a line (``application/x-ndjson``, docs/wire.md "Bots");
the bot plays each game on the room's socket with the seat token of its ``game_started`` line.
Challenges are for every player, a bot or a person.  The work is :mod:`~tabletop.server.bots`'s.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from tabletop.server.bots import BotError, Bots, Challenges, EventStream
from tabletop.server.lobby import LOBBY_CHANNEL
from tabletop.server.models import OptionValue
from tabletop.server.rooms import RoomHub
from tabletop.server.routers.accounts import SignedIn
from tabletop.server.routers.deps import Hub, service_of
from tabletop.server.routers.lobby import Seated, SeekClock
from tabletop.server.routers.responses import errors
from tabletop.server.store import SqlStore

__all__ = ["bots_of", "router"]

router = APIRouter(prefix="/api", tags=["bots"])


def bots_of(app: Any, hub: RoomHub) -> Bots:
    """The server's :class:`Bots` (made on first use, kept on ``app.state``)."""
    store = hub.store
    if not isinstance(store, SqlStore):
        raise BotError("no_accounts", "this server keeps no players", 400)
    return service_of(app, "bots", lambda: Bots(store))


def challenges_of(app: Any, hub: RoomHub) -> Challenges:
    return service_of(app, "challenges", lambda: Challenges(hub))


def get_bots(request: Request, hub: Hub) -> Bots:
    return bots_of(request.app, hub)


def get_challenges(request: Request, hub: Hub) -> Challenges:
    return challenges_of(request.app, hub)


BotsDep = Annotated[Bots, Depends(get_bots)]
ChallengesDep = Annotated[Challenges, Depends(get_challenges)]


class BotAccount(BaseModel):
    """The account, now a bot, and its API token (shown once: only its hash is kept)."""

    name: str
    bot: bool
    token: str = Field(description="send it as 'Authorization: Bearer TOKEN'; valid for a year")


class PlayerName(BaseModel):
    name: str
    bot: bool = Field(description="a bot account, played by a program")


class Challenge(BaseModel):
    id: str
    status: Literal["open", "accepted", "declined", "cancelled"]
    room: str | None = Field(description="the game's room once accepted")
    challenger: PlayerName
    challenged: PlayerName
    game: str
    options: dict[str, OptionValue]
    clock: dict[str, float | None] | None
    color: str = Field(description="the challenger's colour: black, white or random")
    rated: bool
    pool: str
    created: float


class ChallengeList(BaseModel):
    challenges: list[Challenge]


class NewChallenge(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    to: str = Field(min_length=1, max_length=40, description="the challenged player's name")
    game: Literal["reversi", "gomoku", "tictactoe"]
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    clock: SeekClock | None = None
    color: Literal["black", "white", "random"] = "random"
    rated: bool = False


@router.post("/account/bot", operation_id="become_bot", response_model=BotAccount,
             responses=errors(401, 409))
async def become_bot(player: SignedIn, bots: BotsDep) -> BotAccount:
    """Turn the signed-in account into a bot, for good; only an account that has played no game
    may.  The answer holds the bot's API token."""
    token = await bots.upgrade(player)
    return BotAccount(name=player.name, bot=True, token=token)


@router.get("/bot/stream", operation_id="bot_stream", responses={
    200: {"description": "one JSON object a line: challenge, challenge_cancelled, challenge_declined, "
                         "game_started (with a seat token), game_state, game_ended; a blank line every 10 s",
          "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
    **errors(401, 403)})
async def bot_stream(player: SignedIn, bots: BotsDep, challenges: ChallengesDep, hub: Hub) -> StreamingResponse:
    """The bot's events as they happen; on each connection, first its open challenges and a
    ``game_started`` for each of its games in progress (so a bot that reconnects goes on with them)."""
    if not await bots.is_bot(player):
        raise BotError("not_a_bot", "the event stream is for bot accounts (POST /api/account/bot)", 403)
    stream = EventStream(hub, challenges, player, LOBBY_CHANNEL)
    return StreamingResponse(stream.lines(), media_type="application/x-ndjson")


@router.post("/challenges", operation_id="challenge", status_code=201, response_model=Challenge,
             responses=errors(400, 401, 404, 409, 422))
async def challenge(body: NewChallenge, player: SignedIn, challenges: ChallengesDep) -> Challenge:
    """Offer a game to a player (a bot or a person); it waits for their answer."""
    clock = None if body.clock is None else body.clock.model_dump()
    return Challenge(**await challenges.create(player, body.to, body.game, dict(body.options), clock, body.color,
                                               body.rated))


@router.get("/challenges", operation_id="my_challenges", response_model=ChallengeList, responses=errors(401))
async def my_challenges(player: SignedIn, challenges: ChallengesDep) -> ChallengeList:
    """The challenges you made or received, newest first (every status)."""
    return ChallengeList(challenges=[Challenge(**c) for c in await challenges.list(player_id=player.id)])


@router.get("/challenges/{challenge_id}", operation_id="view_challenge", response_model=Challenge,
            responses=errors(401, 404))
async def view_challenge(challenge_id: str, player: SignedIn, challenges: ChallengesDep) -> Challenge:
    """One of your challenges: its status, and its room once accepted."""
    return Challenge(**await challenges.view(challenge_id[:32], player))


@router.post("/challenges/{challenge_id}/accept", operation_id="accept_challenge", response_model=Seated,
             responses=errors(401, 404, 409))
async def accept_challenge(challenge_id: str, player: SignedIn, challenges: ChallengesDep) -> Seated:
    """Accept a challenge made to you: the game starts; the answer holds your seat's token."""
    return Seated(**await challenges.accept(player, challenge_id[:32]))


@router.post("/challenges/{challenge_id}/decline", operation_id="decline_challenge", status_code=204,
             responses=errors(401, 404, 409))
async def decline_challenge(challenge_id: str, player: SignedIn, challenges: ChallengesDep) -> None:
    """Decline a challenge made to you."""
    await challenges.decline(player, challenge_id[:32])


@router.delete("/challenges/{challenge_id}", operation_id="cancel_challenge", status_code=204,
               responses=errors(401, 404, 409))
async def cancel_challenge(challenge_id: str, player: SignedIn, challenges: ChallengesDep) -> None:
    """Cancel a challenge you made that waits for its answer."""
    await challenges.cancel(player, challenge_id[:32])
