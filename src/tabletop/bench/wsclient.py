"""A lean websocket client for the load benchmarks: the ``websockets`` sans-I/O
protocol on a plain asyncio transport.

The benchmark's players run on the same cores as the server they measure, so
each frame they read or write takes CPU from it.  ``websockets``' own asyncio
client is general (keepalive pings, fragmented messages, flow control, locks
around each send); a player needs less: text frames in, text frames out, and
an error when the connection ends.  The handshake, masking and every frame
but a whole text frame (read here, as the server reads its clients' frames:
:func:`tabletop.server.wsdirect.read_text_frames`) are still the library's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from tabletop.server.wsdirect import read_text_frames

__all__ = ["Closed", "LeanSocket", "connect"]


class Closed(ConnectionError):
    """The connection ended (or never opened)."""


class LeanSocket(asyncio.Protocol):
    """One client connection: :meth:`send` a text frame, ``async for`` the text frames received."""

    def __init__(self, protocol: ClientProtocol) -> None:
        self.protocol = protocol
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.frames: list[str] = []
        self.closed = False
        self._waiter: asyncio.Future[None] | None = None

    # -- asyncio.Protocol ---------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        p = self.protocol
        if p.state is State.OPEN and p.current_size is None and not p.reader.buffer:
            # whole text frames are read here, as the server reads its clients' frames
            at = read_text_frames(data, p.max_message_size, False, self.frames.append)
            if at == len(data):
                self._wake()
                return
            data = data[at:]
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if not self.opened.done():
                    if self.protocol.state is State.OPEN:
                        self.opened.set_result(None)
                    else:
                        self.opened.set_exception(Closed(f"the handshake failed: {event.status_code}"))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.frames.append(bytes(event.data).decode())
        self._flush()  # pongs and close frames the protocol answers by itself
        if self.protocol.state is State.CLOSED:
            self._end()
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()
        self._end()

    # -- use -----------------------------------------------------------------------------
    def send(self, text: str) -> None:
        if self.closed:
            raise Closed("the connection is closed")
        self.protocol.send_text(text.encode())
        self._flush()

    def __aiter__(self) -> LeanSocket:
        return self

    async def __anext__(self) -> str:
        while not self.frames:
            if self.closed:
                raise StopAsyncIteration
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.frames.pop(0)

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.protocol.send_close(1000)
            self._flush()
            self.transport.close()
        self._end()

    # -- inside ------------------------------------------------------------------------------
    def _flush(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            data = self.protocol.data_to_send()
            if data:
                self.transport.write(b"".join(data))

    def _end(self) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(Closed("the connection ended before the handshake"))
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


async def connect(url: str, timeout: float = 60.0) -> LeanSocket:
    """Open ``url`` (``ws://host:port/path?query``) and complete the handshake."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    _, sock = await asyncio.wait_for(
        loop.create_connection(lambda: LeanSocket(ClientProtocol(uri)), uri.host, uri.port), timeout
    )
    await asyncio.wait_for(asyncio.shield(sock.opened), timeout)
    return sock
