"""Tournaments over HTTP and their live socket (docs/wire.md "Tournaments").

A signed-in player creates a tournament and joins or leaves one (a bot with its bearer token too);
anyone lists them and reads one.  ``WS /api/tournaments/{id}/ws`` sends the tournament, then each
``tournament_event`` and ``tournament`` snapshot as it happens on any server process (the bus
channel :func:`~tabletop.server.tournaments.tournament_channel`).  The work is
:class:`~tabletop.server.tournaments.Tournaments`'s; this module reads requests.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field, field_validator

from tabletop.server.bus import encode_frame, frame
from tabletop.server.models import OptionValue
from tabletop.server.rooms import RoomHub
from tabletop.server.routers.accounts import SignedIn
from tabletop.server.routers.deps import Hub, tournaments_of
from tabletop.server.routers.feed import ChannelFeed
from tabletop.server.routers.responses import errors
from tabletop.server.tournaments import TournamentError, Tournaments, tournament_channel

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["tournaments"])
MAX_ID = 32


class TournamentClock(BaseModel):
    """A tournament's clock: ``initial`` seconds plus ``increment`` a move (no correspondence)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    initial: float = Field(gt=0, le=86400)
    increment: float = Field(0.0, ge=0, le=3600)


class NewTournament(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["arena", "swiss"]
    name: str | None = Field(None, min_length=1, max_length=40)
    game: Literal["reversi", "gomoku", "tictactoe"]
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=8)
    clock: TournamentClock
    rated: bool = False
    starts: float | None = Field(None, ge=0, le=1e11, description="Unix seconds (default: now)")
    minutes: float | None = Field(None, ge=0.25, le=1440, description="an arena's length")
    rounds: int | None = Field(None, ge=1, le=15, description="a swiss's rounds")

    @field_validator("rounds", mode="before")
    @classmethod
    def _whole_number(cls, value: object) -> object:
        """JSON's integers include 10.0 (the schema's "integer" admits it): read as 10; 10.5, "10" and
        true stay refused."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class Standing(BaseModel):
    rank: int
    name: str
    bot: bool
    rating: int = Field(description="the player's rating in the tournament's pool now, rounded")
    score: float
    games: int
    wins: int
    draws: int
    losses: int
    streak: int = Field(description="wins in a row now")
    fire: bool = Field(description="arena: on a streak, the next win or draw counts double")
    sheet: list[int | float | str] = Field(description="arena: each game's points; swiss: 1, ½, 0 or + (a bye)")
    active: bool = Field(description="false once the player left (paused or withdrawn)")
    playing: str | None = Field(description="the room of the player's game under way")
    tiebreak: float = Field(description="arena: performance; swiss: Buchholz")
    byes: int


class TournamentGame(BaseModel):
    id: int
    room: str | None = Field(description="null for a bye")
    round: int
    black: str | None
    white: str | None
    result: Literal["1-0", "0-1", "1/2-1/2", "aborted", "bye"] | None
    black_points: float | None
    white_points: float | None
    started: float
    ended: float | None


class TournamentSummary(BaseModel):
    id: str
    kind: Literal["arena", "swiss"]
    name: str
    creator: str | None
    game: str
    options: dict[str, OptionValue]
    clock: dict[str, float]
    pool: str
    rated: bool
    starts: float
    ends: float | None = Field(description="an arena's end; null for a swiss")
    minutes: float | None
    rounds: int | None
    round: int = Field(description="swiss: the round under way; arena: the games paired")
    status: Literal["upcoming", "running", "finishing", "finished", "cancelled"]
    players: int
    winner: str | None


class Tournament(TournamentSummary):
    version: int
    standings: list[Standing]
    games: list[TournamentGame] = Field(description="newest first")
    podium: list[str] = Field(description="the first three once finished")


class TournamentList(BaseModel):
    tournaments: list[TournamentSummary]


def get_tournaments(request: Request, hub: Hub) -> Tournaments:
    return tournaments_of(request.app, hub)


TournamentsDep = Annotated[Tournaments, Depends(get_tournaments)]

TOURNAMENT_LINKS = {
    name: {"operationId": operation, "parameters": {"tournament_id": "$response.body#/id"}}
    for name, operation in (("ViewTournament", "view_tournament"), ("JoinTournament", "join_tournament"),
                            ("LeaveTournament", "leave_tournament"), ("FinishTournament", "finish_tournament"))
}


def _known(tournament_id: str) -> str:
    if len(tournament_id) > MAX_ID:
        raise TournamentError("unknown_tournament", "there is no such tournament", 404)
    return tournament_id


@router.post("/tournaments", operation_id="create_tournament", status_code=201, response_model=Tournament,
             responses={201: {"links": TOURNAMENT_LINKS}, **errors(400, 401, 403, 422)})
async def create_tournament(body: NewTournament, player: SignedIn, tournaments: TournamentsDep) -> Tournament:
    """Create an arena (``minutes`` long) or a swiss (``rounds`` rounds) starting at ``starts``."""
    return Tournament(**await tournaments.create(
        player, kind=body.kind, name=body.name, game=body.game, options=dict(body.options),
        clock=body.clock.model_dump(), rated=body.rated, starts=body.starts, minutes=body.minutes,
        rounds=body.rounds))


@router.get("/tournaments", operation_id="list_tournaments", response_model=TournamentList)
async def list_tournaments(tournaments: TournamentsDep) -> TournamentList:
    """The upcoming and running tournaments (soonest first), then the last finished."""
    return TournamentList(tournaments=[TournamentSummary(**t) for t in await tournaments.listing()])


@router.get("/tournaments/{tournament_id}", operation_id="view_tournament", response_model=Tournament,
            responses=errors(404))
async def view_tournament(tournament_id: str, tournaments: TournamentsDep) -> Tournament:
    """A tournament: its standings, its games, and the podium once finished."""
    return Tournament(**await tournaments.view(_known(tournament_id)))


@router.post("/tournaments/{tournament_id}/join", operation_id="join_tournament", response_model=Tournament,
             responses=errors(401, 404, 409))
async def join_tournament(tournament_id: str, player: SignedIn, tournaments: TournamentsDep) -> Tournament:
    """Join a tournament, or come back to it after leaving."""
    return Tournament(**await tournaments.join(player, _known(tournament_id)))


@router.post("/tournaments/{tournament_id}/leave", operation_id="leave_tournament", response_model=Tournament,
             responses=errors(401, 404, 409))
async def leave_tournament(tournament_id: str, player: SignedIn, tournaments: TournamentsDep) -> Tournament:
    """Leave: an arena pauses the player (their score stays); a swiss withdraws them."""
    return Tournament(**await tournaments.leave(player, _known(tournament_id)))


@router.post("/tournaments/{tournament_id}/finish", operation_id="finish_tournament", response_model=Tournament,
             responses=errors(401, 403, 404, 409))
async def finish_tournament(tournament_id: str, player: SignedIn, tournaments: TournamentsDep) -> Tournament:
    """The creator ends the tournament now: no new pairing; it finishes when its last game ends
    (one not started yet is cancelled)."""
    return Tournament(**await tournaments.finish(player, _known(tournament_id)))


@router.websocket("/tournaments/{tournament_id}/ws")
async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """The tournament, then every change to it, live."""
    hub: RoomHub = websocket.app.state.hub
    tournaments = tournaments_of(websocket.app, hub)
    await websocket.accept()
    # subscribed before the first read: a change meanwhile comes as a snapshot of a higher version
    feed = ChannelFeed(hub.bus, tournament_channel(tournament_id[:MAX_ID]))
    try:
        first = await tournaments.view(_known(tournament_id))
    except TournamentError as exc:
        feed.close()
        await websocket.send_text(encode_frame(frame("error", code=exc.code, message=str(exc))))
        await websocket.close(4404)
        return

    async def opening() -> str:
        return encode_frame(frame("tournament", tournament=first))

    await feed.relay(websocket, opening)
