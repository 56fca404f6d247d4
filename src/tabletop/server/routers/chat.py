"""A room's chat over REST, ``GET /api/rooms/{id}/chat``: the whole chat, for the review page and other clients.

Chat is written on the room socket (a ``chat`` frame, :mod:`.socket`); what it allows
and keeps is :mod:`tabletop.server.chat`.  This route shows both channels to anyone,
as a spectator reads them; only the socket keeps the spectators' chat from the players
while they play.
"""

from __future__ import annotations

from fastapi import APIRouter

from tabletop.server.models import ChatLog, ChatMessage
from tabletop.server.routers.deps import Hub, KnownRoom
from tabletop.server.routers.responses import errors

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["rooms"])


@router.get(
    "/rooms/{room_id}/chat", operation_id="room_chat", response_model=ChatLog, responses=errors(404, 422)
)
async def room_chat(room: KnownRoom, hub: Hub) -> ChatLog:
    """The room's chat, oldest first: the players' and the spectators' messages."""
    messages = await room.chat.load(hub.store, again=hub.shared)
    return ChatLog(messages=[ChatMessage.model_validate(m) for m in messages])
