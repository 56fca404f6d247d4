"""Event fan-out: carries a room's frames to every server process that has sockets in it.

:class:`LocalBus` (the default) delivers in-process.  :class:`RedisBus` publishes
on Redis pub/sub (``redis.asyncio``), so several server processes sharing one
database can each deliver a room's events to their own sockets.  A payload is
one JSON frame, or several joined by newlines (JSON text has no raw newline);
the bus never looks inside them and never touches a database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Bus", "LocalBus", "RedisBus", "make_bus"]

Handler = Callable[[str], None]


class Bus(Protocol):
    """Publish a room's payloads; subscribers get them in publication order."""

    async def publish(self, room_id: str, payload: str) -> None: ...

    def subscribe(self, room_id: str, handler: Handler) -> Callable[[], None]: ...

    async def close(self) -> None: ...


class _Subscribers:
    def __init__(self) -> None:
        self.by_room: dict[str, list[Handler]] = {}

    def add(self, room_id: str, handler: Handler) -> Callable[[], None]:
        self.by_room.setdefault(room_id, []).append(handler)

        def remove() -> None:
            handlers = self.by_room.get(room_id, [])
            if handler in handlers:
                handlers.remove(handler)
            if not handlers:
                self.by_room.pop(room_id, None)

        return remove

    def deliver(self, room_id: str, payload: str) -> None:
        for handler in list(self.by_room.get(room_id, ())):
            handler(payload)


class LocalBus:
    """In-process delivery: ``publish`` calls each handler at once, in order."""

    def __init__(self) -> None:
        self._subs = _Subscribers()
        self.published = 0

    async def publish(self, room_id: str, payload: str) -> None:
        self.published += 1
        self._subs.deliver(room_id, payload)

    def subscribe(self, room_id: str, handler: Handler) -> Callable[[], None]:
        return self._subs.add(room_id, handler)

    async def close(self) -> None:
        return None


class RedisBus:
    """Redis pub/sub: one channel per room (``tabletop:room:ID``), one reader task
    per process on the pattern ``tabletop:room:*``.  ``client`` may be given
    (tests pass a fake with the same asyncio API)."""

    prefix = "tabletop:room:"

    def __init__(self, url: str | None = None, client: Any = None) -> None:
        if client is None:
            import redis.asyncio as redis

            client = redis.from_url(url or "redis://localhost:6379/0", decode_responses=True)
        self.client = client
        self._subs = _Subscribers()
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._pubsub = self.client.pubsub()
        await self._pubsub.psubscribe(self.prefix + "*")
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self._pubsub is not None
        async for message in self._pubsub.listen():
            if message.get("type") not in ("pmessage", "message"):
                continue
            channel = message["channel"]
            data = message["data"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            if isinstance(data, bytes):
                data = data.decode()
            self._subs.deliver(channel[len(self.prefix) :], data)

    async def publish(self, room_id: str, payload: str) -> None:
        await self.client.publish(self.prefix + room_id, payload)

    def subscribe(self, room_id: str, handler: Handler) -> Callable[[], None]:
        return self._subs.add(room_id, handler)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.client.aclose()


async def make_bus(redis_url: str | None) -> Bus:
    """The in-process bus, or a started Redis bus for ``redis_url``."""
    if not redis_url:
        return LocalBus()
    bus = RedisBus(redis_url)
    await bus.start()
    return bus
