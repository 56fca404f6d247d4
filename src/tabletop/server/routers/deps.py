"""What the HTTP routes take from the running server, as FastAPI dependencies.

:func:`~tabletop.server.app.create_app` puts the settings on ``app.state`` and
its lifespan adds the room hub; a route names what it uses in its signature
(``hub: Hub``, ``room: KnownRoom``) instead of closing over the factory's
locals, so each router is a plain module that tests can read on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from tabletop.server.lobby import Lobby
from tabletop.server.rooms import Room, RoomError, RoomHub
from tabletop.server.settings import Settings
from tabletop.server.tournaments import Tournaments

__all__ = ["Hub", "KnownRoom", "ServerSettings", "get_hub", "get_room", "get_settings", "lobby_of", "service_of",
           "tournaments_of"]

MAX_ROOM_ID = 32  # longer ids are no room (ids are 19 characters); the store is not asked

_Service = TypeVar("_Service")


def service_of(app: Any, name: str, make: Callable[[], _Service]) -> _Service:
    """The server's one ``name`` service (the lobby, the accounts...): ``app.state.<name>``, which
    the app's start-up makes where the service runs tasks of its own, else ``make()`` on first use."""
    found: _Service | None = getattr(app.state, name, None)
    if found is None:
        found = make()
        setattr(app.state, name, found)
    return found


def lobby_of(app: Any, hub: RoomHub) -> Lobby:
    return service_of(app, "lobby", lambda: Lobby(hub))


def tournaments_of(app: Any, hub: RoomHub) -> Tournaments:
    return service_of(app, "tournaments", lambda: Tournaments(hub))


def get_hub(request: Request) -> RoomHub:
    hub: RoomHub = request.app.state.hub
    return hub


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


Hub = Annotated[RoomHub, Depends(get_hub)]
ServerSettings = Annotated[Settings, Depends(get_settings)]


async def get_room(room_id: str, hub: Hub) -> Room:
    """The room ``room_id`` names (loaded from the store if need be); 404 when there is none."""
    room = await hub.get(room_id) if len(room_id) <= MAX_ROOM_ID else None
    if room is None:
        raise RoomError("unknown_room", f"there is no room {room_id!r}", 404)
    return room


KnownRoom = Annotated[Room, Depends(get_room)]
