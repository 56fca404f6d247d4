"""Catching up with what other server processes did to a shared room.

When server processes share a database and a Redis bus, any of them may commit
a room's next action, and each keeps its own copy of the room in memory.  A
broadcast newer than that copy, or a seat taken elsewhere, makes the process
read the room again from the store (:meth:`.room.Room.reload`).  An action that
was committed but never published (its process died in between) is found the
same way: by the next broadcast, by the next request that meets a conflict, or
when a client says hello (a shared room is read again then).

After every reload each connection in the room is sent, in order, the events of
the log it has not had (:func:`send_missed`); a connection leaves out the
events it already holds (:meth:`.seats.Client.send_events`), so an event that
comes both ways reaches it once.

This module decides when to catch up and what to send; the room reads the store.
It knows the room only as :class:`SharedRoom`, the few things a catch-up uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Protocol

from tabletop.match import Event, Match
from tabletop.server.bus import Broadcast
from tabletop.server.seats import Client, Seats

__all__ = ["CatchUp", "SharedRoom", "send_missed"]

ROUNDS = 5  # reloads in a row at most, while newer broadcasts keep arriving during them


class Spawner(Protocol):
    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...


class SharedRoom(Protocol):
    """What a catch-up needs of its room: its log and clients, its lock, a reload from the
    store (which sends the missed events), and the hub's tasks."""

    @property
    def closed(self) -> bool: ...

    @property
    def lock(self) -> asyncio.Lock: ...

    @property
    def match(self) -> Match: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def hub(self) -> Spawner: ...

    async def reload(self) -> None: ...

    def send_missed(self) -> None: ...


def send_missed(
    clients: Iterable[Client], events: Sequence[Event], event_frame: Callable[[Event], dict[str, Any]]
) -> None:
    """Send each greeted client the events of the log ``events`` after its version, in order
    (``event_frame`` makes an event's frame)."""
    version = len(events)  # the log's versions are 1, 2, ...: event i has version i + 1
    for client in clients:
        if client.greeted and client.version < version:
            frames = [event_frame(e) for e in events[client.version :]]
            client.send_events(Broadcast("events", frames, version))


class CatchUp:
    """The catch-up of one shared room: what the bus has told it, and whether a
    catch-up task runs (the room is passed in, not kept)."""

    def __init__(self) -> None:
        self.heard = 0  # the newest version a broadcast announced
        self.seats_changed = False  # a seat was taken through another process
        self.pending = False  # something to do that no running round has seen yet
        self.running = False

    def on_broadcast(self, room: SharedRoom, broadcast: Broadcast) -> None:
        """Bus handler of a shared room, called before its connections get ``broadcast``."""
        if broadcast.kind == "seat_joined":
            self.seats_changed = True
        if broadcast.version is not None:
            self.heard = max(self.heard, broadcast.version)
        if self.seats_changed or self.heard > room.match.version or _gap(room.seats.clients, broadcast):
            self.pending = True
            if not self.running and not room.closed:
                self.running = True
                room.hub.spawn(self._run(room))

    async def _run(self, room: SharedRoom) -> None:
        """Reload until the room holds what the bus announced (a broadcast that comes
        during a reload may be newer than what it read), then send what was missed."""
        try:
            for _ in range(ROUNDS):
                if not self.pending or room.closed:
                    break
                self.pending = False
                async with room.lock:
                    if self.seats_changed or self.heard > room.match.version:
                        self.seats_changed = False
                        await room.reload()  # sends the missed events too
                    else:
                        room.send_missed()
        finally:
            self.pending = False
            self.running = False


def _gap(clients: Iterable[Client], broadcast: Broadcast) -> bool:
    """True when one of ``clients`` would find events missing before ``broadcast``'s."""
    if broadcast.version is None or not broadcast.frames:
        return False
    first = broadcast.frames[0]["version"]
    return any(c.greeted and c.version < first - 1 for c in clients)
