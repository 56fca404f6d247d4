"""uvicorn's websocket protocol with a direct path for the room socket.

uvicorn speaks ASGI: each frame sent is a ``websocket.send`` message through
an awaited ``send`` coroutine, and each frame received is queued, after which
the connection stops reading until the application takes it.  Both are right
for a general application and cost a room socket, which sends two or three
frames per move, most of its time in Python.  :class:`DirectProtocol` is the
same protocol (the ``websockets`` sans-I/O connection, uvicorn's handshake,
keepalive and close handling) with these changes:

- the ASGI scope carries ``scope["extensions"]["tabletop.direct"]``, a
  :class:`DirectSend` with which the application writes a text frame at once,
  from plain code, when the transport takes more data (and learns when it does
  again after a pause);
- whole text frames are read by :func:`text_frame`; every other frame, and any
  frame split across reads, goes to the ``websockets`` parser;
- received messages wait in a deque with one waiter (the application's one
  reading task) instead of an ``asyncio.Queue``, and reading pauses only when
  several wait, not after each one.

Any application that ignores the extension sees uvicorn's behaviour (measured
in ``benchmarks/RESULTS.md``, "third session").
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

try:
    from websockets.speedups import apply_mask  # websockets' C unmasking
except ImportError:  # pragma: no cover - a build without it
    from websockets.utils import apply_mask

__all__ = ["EXTENSION", "DirectProtocol", "DirectSend", "read_text_frames", "text_frame"]

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

    def data_received(self, data: bytes) -> None:
        """Whole masked text frames, the usual case, are read here; anything else
        (a partial frame, control frames, fragments, bad UTF-8, a frame over the
        size limit) goes to the ``websockets`` parser from that byte on.  The
        parser is only bypassed at a frame boundary with nothing buffered, where it
        waits for a frame header, so it sees a consistent stream."""
        conn = self.conn
        if (
            conn.state is not State.OPEN
            or conn.current_size is not None
            or conn.reader.buffer
            or conn.extensions
            or self.close_sent
        ):
            super().data_received(data)
            return
        at = read_text_frames(data, conn.max_message_size, True, self._received)
        if at < len(data):
            super().data_received(data[at:] if at else data)

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
        self._received(text)

    def _received(self, text: str) -> None:
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused and self.queue.qsize() >= READ_AHEAD:
            self.read_paused = True
            self.transport.pause_reading()


def read_text_frames(data: bytes, limit: int | None, masked: bool, take: Callable[[str], None]) -> int:
    """Hand the text of each whole text frame at the start of ``data`` to ``take``
    (see :func:`text_frame`); the offset of the first byte left for the parser."""
    at, size = 0, len(data)
    while at < size:
        text, end = text_frame(data, at, size, limit, masked)
        if text is None:
            break
        take(text)
        at = end
    return at


def text_frame(data: bytes, at: int, size: int, limit: int | None, masked: bool = True) -> tuple[str | None, int]:
    """The text of the whole text frame (FIN, no RSV bits) at ``data[at:size]``,
    masked as a client's frames are (``masked``) or not as a server's, and the
    offset after it; ``(None, at)`` for anything else, left to the parser."""
    if size - at < 2 or data[at] != 0x81:
        return None, at
    length = data[at + 1]
    if bool(length & 0x80) is not masked:
        return None, at  # masked the wrong way for its side: a protocol error, which the parser reports
    length &= 0x7F
    key = 4 if masked else 0
    if length < 126:
        start = at + 2 + key
    elif length == 126 and size - at >= 4:
        length = (data[at + 2] << 8) | data[at + 3]
        start = at + 4 + key
    else:
        return None, at  # a 64-bit length: rare, and the parser checks it against the limit
    end = start + length
    if end > size or (limit is not None and length > limit):
        return None, at
    payload = data[start:end]
    try:
        return (apply_mask(payload, data[start - 4 : start]) if masked else payload).decode(), end
    except UnicodeDecodeError:
        return None, at
