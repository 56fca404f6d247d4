"""Computer seats: when a computer must act, its move is searched off the event
loop (in the process pool) and played like anyone else's.

In a swap or swap2 opening the computer seat that acts decides the step from
the Gomoku engine's evaluation (:func:`tabletop.ai.gomoku.openings.decide_opening`,
in the pool as well): the opener's three stones, a colour, or swap2's
``"place"`` with two more stones.  Its answer is applied as the actions a
person would send (a ``choose``, then each stone), each stored on its own.

:class:`ComputerTurn` runs at most one search per room.  A search whose room
moved on meanwhile (an undo, a resignation, a flag fall) is dropped.  A worker
process that dies during a search is replaced and the search runs again
(:class:`~tabletop.server.workers.Pool`); an engine that keeps failing is
announced to the room as an ``engine_failed`` error and leaves the room as it
was.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections.abc import Coroutine
from typing import Any, Protocol

from tabletop.games.core import Color
from tabletop.match import Match
from tabletop.server.bus import Broadcast, Bus, frame
from tabletop.server.store import RoomRecord
from tabletop.server.workers import Pool, choose_job, opening_job

__all__ = ["ComputerRoom", "ComputerTurn"]

log = logging.getLogger("tabletop.server")


class _Hub(Protocol):
    @property
    def bus(self) -> Bus: ...

    @property
    def pool(self) -> Pool: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...


class ComputerRoom(Protocol):
    """What a computer seat needs of its room: the Match and record to search from, the
    seat that acts, the hub's bus, pool and tasks, and a way to play what it decided."""

    @property
    def id(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def match(self) -> Match: ...

    @property
    def record(self) -> RoomRecord: ...

    @property
    def hub(self) -> _Hub: ...

    def acting(self) -> Color: ...

    async def act_computer(self, color: Color, actions: list[tuple[str, str]], version: int) -> None: ...


class ComputerTurn:
    """The search of one room's computer seat, if one is running (the room is
    passed in, not kept: a released room is freed by reference counting)."""

    def __init__(self) -> None:
        self.thinking: Color | None = None  # the seat being searched for
        self.task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def schedule(self, room: ComputerRoom) -> None:
        """Start a search if a computer must act in ``room`` and none runs."""
        if room.closed or self.busy:
            return
        if room.match.computer_to_move():
            self.task = room.hub.spawn(self._think(room))

    async def _think(self, room: ComputerRoom) -> None:
        m = room.match
        color = room.acting()
        version = m.version
        spec = m.seats[color].kind
        self.thinking = color
        bus = room.hub.bus
        await bus.publish(
            room.id, Broadcast("thinking", [frame("event", event={"kind": "thinking", "color": color.label})])
        )
        try:
            actions = await self._decide(room, color, spec)
        except Exception as exc:  # noqa: BLE001 - a broken engine must not take the room down
            log.warning("room %s: computer %s failed: %s", room.id, spec, exc)
            self.thinking = None
            error = frame(
                "error", code="engine_failed", message=f"the computer ({spec}) failed: {exc}", seq=None
            )
            await bus.publish(room.id, Broadcast("error", [error]))
            return
        self.thinking = None
        await room.act_computer(color, actions, version)
        self.task = None
        self.schedule(room)

    async def _decide(self, room: ComputerRoom, color: Color, spec: str) -> list[tuple[str, str]]:
        """The actions of the computer seat that acts: its opening step, or its move (the pool
        runs it again if its worker process dies meanwhile)."""
        m, r = room.match, room.record
        moves = [str(x) for x in m.board.move_stack]
        label = f"room {room.id}: {color.label}'s move {len(moves) + 1} ({spec})"
        if m.opening is not None and not m.opening.done:
            seed = zlib.crc32(f"{room.id}/{len(moves)}".encode())  # rooms differ; a replayed room decides alike
            decision = await room.hub.pool.run(
                opening_job, r.game, r.options, r.position, moves, m.opening.to_dict(), seed, label=label
            )
            log.info("room %s: computer %s decides the opening step: %s", room.id, spec, decision)
            actions = [] if decision["choice"] is None else [("choose", str(decision["choice"]))]
            return actions + [("play", str(stone)) for stone in decision["stones"]]
        move = await room.hub.pool.run(
            choose_job, r.game, r.options, r.position, moves, spec, label=label
        )
        return [("play", str(move))]
