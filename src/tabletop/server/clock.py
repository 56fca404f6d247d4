"""A room's flag timer: the running clock's time running out is a change of the room.

A flag falls on the next action, and also when nobody acts: :class:`FlagTimer`
wakes the room at the moment the side to move runs out of time.  It only
schedules; the room checks the clock under its lock (``check_time``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tabletop.match import Clock

__all__ = ["FlagTimer"]

MARGIN = 0.005  # seconds after the flag time, so the check finds the time gone


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
        left = clock.left(clock.running)
        self._handle = asyncio.get_running_loop().call_later(max(0.0, left) + MARGIN, on_flag)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
