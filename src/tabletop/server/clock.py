"""A room's time: the clock source of its Match, the clock settings of its record,
and the flag timer (the running clock's time running out is a change of the room).

A correspondence clock (days per move) has no flag timer: when its time runs out the
game goes on until the other side claims the win (:mod:`.correspondence`) or the late
side's next action finds the time gone.

A flag falls on the next action, and also when nobody acts: :class:`FlagTimer`
calls back at the moment the side to move runs out of time, and the room then
checks the clock under its lock (``check_time``).  :class:`RoomTime` lets an
action be applied, or replayed from the store, at exactly its stored time.

This module is handed a Match's clock and a callback; it knows no room.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tabletop.match import Clock, ClockSettings

__all__ = ["FlagTimer", "RoomTime", "clock_settings"]

MARGIN = 0.005  # seconds after the flag time, so the check finds the time gone


class RoomTime:
    """The clock source of a room's Match: wall time (``wall``, the server's clock: a test
    hands in its own), or a fixed time while an action is applied or replayed (so the
    stored time is exactly the one used)."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self.wall = wall
        self.fixed: float | None = None

    def __call__(self) -> float:
        return self.wall() if self.fixed is None else self.fixed


def clock_settings(stored: dict[str, Any] | None) -> ClockSettings | None:
    """The Match's clock for a room record's ``clock`` (``initial``/``increment``
    seconds, or ``days`` per move; ``from_first_move``: each side's clock waits for that side's
    first move, set on every online room made since that rule); ``None`` for a game without a clock."""
    if stored is None:
        return None
    days = stored.get("days")
    return ClockSettings(
        initial=float(stored.get("initial", 300.0)),
        increment=float(stored.get("increment", 0.0)),
        per_move=None if days is None else float(days) * 86400.0,
        from_first_move=bool(stored.get("from_first_move", False)),
    )


class FlagTimer:
    """One pending wake-up at the running clock's flag time (re-armed after every change).

    It keeps no reference to its room beyond the pending call, so a released
    room (whose timer is cancelled) is freed by reference counting."""

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None

    def arm(self, clock: Clock | None, live: bool, on_flag: Callable[[], None]) -> None:
        """Call ``on_flag`` at the running side's flag time; ``live``: the game goes on."""
        self.cancel()
        if clock is None or clock.running is None or not live:
            return
        if clock.settings.per_move is not None:
            return  # correspondence: the time running out ends nothing until the other side claims the win
        left = clock.left(clock.running)
        self._handle = asyncio.get_running_loop().call_later(max(0.0, left) + MARGIN, on_flag)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

