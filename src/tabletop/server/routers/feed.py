"""A read-only live socket on one bus channel: the lobby's and each tournament's.

:class:`ChannelFeed` subscribes first, so a change that happens while the socket's opening frame
is being read is queued rather than lost (it arrives after the opening, as a newer version).
:meth:`ChannelFeed.relay` sends the opening frame, then every broadcast on the channel, until the
client leaves.  A client that stops reading is closed with 1013 once :data:`MAX_QUEUED`
broadcasts wait for it, after what came before was sent: the server never holds an unbounded
queue for it, and the client learns it missed something instead of silently falling behind.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect

from tabletop.server.bus import Broadcast, Bus

__all__ = ["MAX_QUEUED", "ChannelFeed"]

MAX_QUEUED = 1000  # broadcasts waiting for a socket that does not read; past it the socket is closed


class ChannelFeed:
    """The broadcasts of ``channel`` on ``bus``, queued from the moment it is made."""

    def __init__(self, bus: Bus, channel: str) -> None:
        self.queue: asyncio.Queue[Broadcast | None] = asyncio.Queue()
        self.overflowed = False
        self._stop = bus.subscribe(channel, self._deliver)

    def _deliver(self, broadcast: Broadcast) -> None:
        if self.overflowed:
            return
        if self.queue.qsize() >= MAX_QUEUED:
            self.overflowed = True
            self.queue.put_nowait(None)  # the sender stops here and closes the socket
            return
        self.queue.put_nowait(broadcast)

    def close(self) -> None:
        """Stop taking the channel's broadcasts (a socket that ends before :meth:`relay`)."""
        self._stop()

    async def _send(self, websocket: WebSocket, opening: Callable[[], Awaitable[str]]) -> None:
        await websocket.send_text(await opening())
        while (item := await self.queue.get()) is not None:
            for text in item.texts:
                await websocket.send_text(text)
        await websocket.close(1013)

    async def relay(self, websocket: WebSocket, opening: Callable[[], Awaitable[str]]) -> None:
        """Send ``opening()``'s frame, then the channel's broadcasts, until the client leaves
        (what it sends is read and dropped: reading is how its leaving is noticed)."""
        sender = asyncio.create_task(self._send(websocket, opening))
        try:
            while True:
                await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.close()
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
