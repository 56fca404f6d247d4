"""The load benchmarks' websocket client: the ``websockets`` library's asyncio client.

One place for the options every benchmark player connects with (no compression,
as the server offers none; no keepalive pings, which a run of seconds does not
need; a short closing handshake), so the game server and the reference relay are
measured with the same client.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as _connect
from websockets.exceptions import ConnectionClosed

__all__ = ["Closed", "ClientConnection", "connect"]

Closed = ConnectionClosed  # what sending on, or reading from, an ended connection raises


async def connect(url: str, timeout: float = 60.0) -> ClientConnection:
    """Open ``url`` (``ws://host:port/path?query``) and complete the handshake."""
    return await _connect(
        url,
        compression=None,
        ping_interval=None,
        open_timeout=timeout,
        close_timeout=2,
        max_size=2**20,
    )
