"""Rooms over REST: create one, join a seat, the lobby of listed rooms, a room's state.

Playing happens on the room socket (:mod:`.socket`); these routes only check
their input and hand it to the :class:`~tabletop.server.rooms.RoomHub`.  A
refusal is a :class:`~tabletop.server.rooms.RoomError` with a code
(:mod:`.responses` answers it).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from tabletop.server.models import CreatedRoom, CreateRoom, Joined, JoinRoom, Lobby, LobbyRoom, RoomState
from tabletop.server.rooms import RoomError
from tabletop.server.routers.deps import Hub, KnownRoom, ServerSettings
from tabletop.server.routers.responses import errors

__all__ = ["EXTERNAL_ENGINES", "router"]

router = APIRouter(prefix="/api", tags=["rooms"])

EXTERNAL_ENGINES = ("gomocup:", "nboard:")  # seats that run a command on this machine

# The created room's id is what the room's other routes take (OpenAPI links, for clients and fuzzers)
ROOM_LINKS = {
    name: {"operationId": operation, "parameters": {"room_id": "$response.body#/room"}}
    for name, operation in (
        ("RoomState", "room_state"),
        ("JoinRoom", "join_room"),
        ("RoomRecord", "room_record"),
        ("RoomEvaluation", "room_evaluation"),
        ("RoomAnalysis", "room_analysis"),
        ("StartRoomAnalysis", "start_room_analysis"),
        ("CancelRoomAnalysis", "cancel_room_analysis"),
        ("RoomChat", "room_chat"),
    )
}


def check_seats(body: CreateRoom, allow_engines: bool) -> None:
    """Refuse a seat whose SPEC names no player (or an external engine this server does not run)."""
    from tabletop.players import SpecError, player

    for label, spec in body.seats.items():
        if spec == "human":
            continue
        if spec.lower().startswith(EXTERNAL_ENGINES) and not allow_engines:
            raise RoomError("bad_seat", f"{label}: external engines are off on this server", 400)
        try:
            player(spec, game=body.game)
        except (SpecError, ValueError) as exc:
            raise RoomError("bad_seat", f"{label}: {exc}", 400) from None


@router.post(
    "/rooms",
    operation_id="create_room",
    status_code=201,
    response_model=CreatedRoom,
    responses={201: {"links": ROOM_LINKS}, **errors(400, 422)},
)
async def create_room(body: CreateRoom, request: Request, hub: Hub, settings: ServerSettings) -> CreatedRoom:
    """Create a room; the reply holds the creator's seat tokens and the invite link."""
    check_seats(body, settings.allow_engines)
    try:
        room, tokens, invite = await hub.create(
            game=body.game,
            options=body.options,
            position=body.position,
            seats={str(k): v for k, v in body.seats.items()},
            clock=None if body.clock is None else body.clock.model_dump(),
            mode=body.mode,
            as_=body.as_,
            listed=body.listed,
            moves=body.moves,
        )
    except RoomError:
        raise
    except (ValueError, TypeError) as exc:
        raise RoomError("bad_room", str(exc), 400) from None
    base = (settings.public_url or str(request.base_url)).rstrip("/")
    link = None if invite is None else f"{base}/play/{room.id}?invite={invite}"
    return CreatedRoom(room=room.id, tokens=tokens, invite=link)


@router.post(
    "/rooms/{room_id}/join",
    operation_id="join_room",
    response_model=Joined,
    responses=errors(400, 403, 404, 409, 422),
)
async def join_room(room_id: str, body: JoinRoom, hub: Hub) -> Joined:
    """Take the free seat with the invite secret (or of a listed room)."""
    seat, token = await hub.join(room_id, body.invite)
    return Joined(seat=seat, token=token)


@router.get("/rooms", operation_id="lobby", response_model=Lobby)
async def lobby(hub: Hub) -> Lobby:
    """Listed rooms waiting for a player."""
    rooms = await hub.store.lobby()
    return Lobby(
        rooms=[
            LobbyRoom(
                id=r.id, game=r.game, options=r.options, seats=r.seats, clock=r.clock, created=r.created
            )
            for r in rooms
        ]
    )


@router.get(
    "/rooms/{room_id}", operation_id="room_state", response_model=RoomState, responses=errors(404, 422)
)
async def room_state(room: KnownRoom) -> dict[str, Any]:
    """The room's state (never a token)."""
    await room.ensure_players()
    return room.state()
