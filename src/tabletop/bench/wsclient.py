"""The load benchmarks' websocket client: aiohttp's, whose frame reader and
masking are compiled, so the players take less of the cores they share with the
server they measure.

One place for the options every benchmark player connects with (no compression,
as the server offers none; no keepalive pings, which a run of seconds does not
need; a short closing handshake), so the game server and the reference relay are
measured with the same client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp

__all__ = ["Closed", "Socket", "connect"]


class Closed(ConnectionError):
    """Sending on, or reading from, a connection that has ended."""


class Socket:
    """One client connection: send text frames, iterate over the text frames
    received (the iteration ends when the connection does), close."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._ws = ws

    async def send(self, text: str) -> None:
        if self._ws.closed:
            raise Closed("the connection has ended")
        try:
            await self._ws.send_str(text)
        except (ConnectionError, aiohttp.ClientError) as exc:
            raise Closed(str(exc)) from exc

    async def __aiter__(self) -> AsyncIterator[str]:
        text = aiohttp.WSMsgType.TEXT
        async for message in self._ws:
            if message.type is text:
                yield message.data

    async def close(self) -> None:
        try:
            await self._ws.close()
        finally:
            await self._session.close()


async def connect(url: str, timeout: float = 60.0) -> Socket:
    """Open ``url`` (``ws://host:port/path?query``) and complete the handshake."""
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=timeout))
    try:
        ws = await session.ws_connect(
            url,
            compress=0,
            autoping=True,
            heartbeat=None,
            max_msg_size=2**20,
            timeout=aiohttp.ClientWSTimeout(ws_close=2),
        )
    except BaseException:
        await session.close()
        raise
    return Socket(session, ws)
