"""uvicorn's websocket protocol with a direct path for the room socket.

uvicorn speaks ASGI: each frame sent is a ``websocket.send`` message through
an awaited ``send`` coroutine, and each frame received is queued, after which
the connection stops reading until the application takes it.  Both are right
for a general application and cost a room socket, which sends two or three
frames per move, most of its time in Python.  :class:`DirectProtocol` is the
same protocol (the ``websockets`` sans-I/O connection, uvicorn's handshake,
keepalive and close handling) with two changes:

- the ASGI scope carries ``scope["extensions"]["tabletop.direct"]``, a
  :class:`DirectSend` with which the application writes a text frame at once,
  from plain code, when the transport takes more data (and learns when it does
  again after a pause);
- reading pauses only when several received frames wait, not after each one.

Everything else, and any application that ignores the extension, sees plain
uvicorn.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame
from websockets.protocol import State

__all__ = ["EXTENSION", "DirectProtocol", "DirectSend"]

EXTENSION = "tabletop.direct"
READ_AHEAD = 16  # received frames that may wait for the application before reading pauses


class DirectSend:
    """Write text frames on one connection from synchronous code."""

    def __init__(self, protocol: DirectProtocol) -> None:
        self._protocol = protocol
        self.on_writable: Callable[[], None] | None = None

    def open(self) -> bool:
        """True until the connection closes (or the application closed it)."""
        p = self._protocol
        return p.handshake_complete and not p.close_sent and not p.disconnected and p.conn.state is State.OPEN

    def ready(self) -> bool:
        """True when a frame written now goes out: the socket is open and its buffer not full."""
        return self.open() and self._protocol.writable.is_set()

    def write(self, text: str) -> None:
        """Send one text frame (call only when :meth:`ready`).

        A server's frame is unmasked and this one is whole (FIN), so without an
        extension (the server turns per-message deflate off) it is the RFC 6455
        header and the payload; the connection's state does not change for such
        a frame, so ``websockets`` need not build it."""
        data = text.encode()
        p = self._protocol
        if p.conn.extensions:  # an extension would change the frame: let websockets build it
            p.conn.send_text(data)
            p.transport.write(b"".join(p.conn.data_to_send()))
            return
        n = len(data)
        if n < 126:
            header = bytes((0x81, n))
        elif n < 65536:
            header = _HEADER_16.pack(0x81, 126, n)
        else:
            header = _HEADER_64.pack(0x81, 127, n)
        p.transport.write(header + data)


_HEADER_16 = struct.Struct("!BBH")
_HEADER_64 = struct.Struct("!BBQ")


class _Inbox:
    """uvicorn's receive queue, lighter: a deque and one waiting reader (the
    application's one receiving task) instead of an ``asyncio.Queue``.  Taking the
    last message resumes reading if it was paused, as uvicorn's ``receive`` does."""

    def __init__(self, protocol: DirectProtocol) -> None:
        self._protocol = protocol
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        items = self._items
        while not items:
            self._waiter = self._protocol.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item = items.popleft()
        p = self._protocol
        if p.read_paused and not items:
            p.read_paused = False
            p.transport.resume_reading()
        return item


class DirectProtocol(WebSocketsSansIOProtocol):
    """:class:`WebSocketsSansIOProtocol` with :class:`DirectSend` in the scope's extensions."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.direct = DirectSend(self)
        self.queue = _Inbox(self)  # type: ignore[assignment]
        self.receive = self.queue.get  # type: ignore[method-assign]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake was accepted: the application task starts later
            scope["extensions"][EXTENSION] = self.direct

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.direct.on_writable is not None:
            self.direct.on_writable()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.direct.on_writable is not None:
            self.direct.on_writable()

    def handle_text(self, event: Frame) -> None:
        if not event.fin:
            super().handle_text(event)
            return
        if self.close_sent:
            return  # past the application's close: read on until the peer's close reply
        try:
            text = bytes(event.data).decode()
        except UnicodeDecodeError:
            super().handle_text(event)  # uvicorn's own answer to a bad frame
            return
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused and self.queue.qsize() >= READ_AHEAD:
            self.read_paused = True
            self.transport.pause_reading()
