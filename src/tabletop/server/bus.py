"""Event fan-out: carries a room's frames to every server process that has sockets in it.

What travels is a :class:`Broadcast`: the server frames of one change, as data,
with the kind and version a subscriber needs to decide what to do with it.
:class:`LocalBus` (the default) hands the object itself to each subscriber.
:class:`RedisBus` publishes it as JSON on Redis pub/sub (``redis.asyncio``), so
several server processes sharing one database can each deliver a room's events
to their own sockets.  The bus never changes a broadcast and never touches a database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

__all__ = ["Broadcast", "Bus", "LocalBus", "RedisBus", "encode_frame", "frame", "make_bus"]


def frame(kind: str, **data: Any) -> dict[str, Any]:
    """A server frame as data: ``{"type": kind, ...}``."""
    return {"type": kind, **data}


def encode_frame(data: dict[str, Any]) -> str:
    """A frame's JSON text, compact (orjson: one C call; keys may be any scalar)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass(eq=False)
class Broadcast:
    """The frames of one change of a room, sent to every socket in it.

    ``kind`` names what happened (``"events"`` for the action log's events,
    ``"watchers"``, ``"thinking"``, ``"seat_joined"``, ``"rematch_started"``...);
    ``version``: the newest event version among ``frames`` (``None`` when they
    carry no event of the log).  Every socket sends the same text, so it is
    encoded once (:attr:`texts`)."""

    kind: str
    frames: list[dict[str, Any]]
    version: int | None = None
    _texts: list[str] | None = field(default=None, repr=False)

    @property
    def texts(self) -> list[str]:
        """Each frame's JSON text, encoded on first use."""
        if self._texts is None:
            self._texts = [encode_frame(f) for f in self.frames]
        return self._texts

    def to_json(self) -> str:
        return encode_frame({"kind": self.kind, "version": self.version, "frames": self.frames})

    @classmethod
    def from_json(cls, text: str | bytes) -> Broadcast:
        data = orjson.loads(text)
        return cls(str(data["kind"]), list(data["frames"]), data.get("version"))


Handler = Callable[[Broadcast], None]


class Bus(Protocol):
    """Publish a room's broadcasts; subscribers get them in publication order."""

    async def publish(self, room_id: str, broadcast: Broadcast) -> None: ...

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

    def deliver(self, room_id: str, broadcast: Broadcast) -> None:
        for handler in list(self.by_room.get(room_id, ())):
            handler(broadcast)


class LocalBus:
    """In-process delivery: ``publish`` calls each handler at once, in order."""

    def __init__(self) -> None:
        self._subs = _Subscribers()
        self.published = 0

    async def publish(self, room_id: str, broadcast: Broadcast) -> None:
        self.published += 1
        self._subs.deliver(room_id, broadcast)

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
            if isinstance(channel, bytes):
                channel = channel.decode()
            self._subs.deliver(channel[len(self.prefix) :], Broadcast.from_json(message["data"]))

    async def publish(self, room_id: str, broadcast: Broadcast) -> None:
        await self.client.publish(self.prefix + room_id, broadcast.to_json())

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
