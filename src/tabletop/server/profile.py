"""The event loop's CPU time by part of the server, for ``tabletop bench server --profile``.

A :class:`PartClock` charges the CPU time of the loop's thread (``time.thread_time_ns``) to the
part that is running: the code of each part says when it starts (:meth:`PartClock.enter`
returns the part it interrupts, which it enters again when done), and every place where our
code waits for the loop (a socket's next frame, a commit, the sending task's wake-up) enters
``"loop"``, so the time the loop spends elsewhere meanwhile is never charged to a part.  What
the loop does outside our code (asyncio's own work, Starlette's and uvicorn's wrappers around
a frame) stays with ``"loop"``.  Reading the socket is timed in uvicorn's protocol
(:func:`timed_protocol`, a subclass that wraps ``data_received``).

Only a server started with ``--profile`` has a clock; every other server has
:data:`NO_CLOCK`, whose ``enter`` does nothing.  This module reads clocks; it changes nothing.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["NO_CLOCK", "PARTS", "NoClock", "PartClock", "timed_protocol"]

PARTS = ("read", "parse", "room", "match", "store", "bus", "frames", "loop")
"""The parts: the socket read (uvicorn and the websocket framing), the frame's checks and
parsing, the room's own work (requests, locks, seats, rematches), the Match (the rules), the
store's work in the loop (batches handed to the writer process and its answers), the bus (event
frames and their delivery to the connections), the frames out (JSON text, framing, the socket
writes), and the loop with everything else."""


class PartClock:
    """CPU time of the loop's thread by part since the clock started."""

    def __init__(self) -> None:
        self.ns = dict.fromkeys(PARTS, 0)
        self.part = "loop"
        self._mark = time.thread_time_ns()

    def enter(self, part: str) -> str:
        """``part`` runs from now on; returns the part that ran until now."""
        now = time.thread_time_ns()
        self.ns[self.part] += now - self._mark
        self._mark = now
        previous, self.part = self.part, part
        return previous

    def snapshot(self) -> dict[str, Any]:
        """The CPU time so far by part, the loop thread's and the whole process's (nanoseconds);
        called on the loop's thread."""
        self.enter(self.part)
        return {
            "parts_ns": dict(self.ns),
            "thread_ns": time.thread_time_ns(),
            "process_ns": time.process_time_ns(),
        }


class NoClock:
    """The clock of a server without ``--profile``: nothing is timed.

    ``enter`` is asked about seventeen times a move; here it is the builtin ``str``, which gives
    the part's name back as it is (what :meth:`PartClock.enter`'s callers hand back to it later)
    in a C call, with no Python frame."""

    enter = staticmethod(str)


NO_CLOCK = NoClock()

Clock = PartClock | NoClock


def timed_protocol(clock: PartClock) -> type:
    """uvicorn's websocket protocol (the websockets library's sans-I/O one) with each
    ``data_received`` charged to ``"read"``: pass it to uvicorn as ``ws``."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class TimedProtocol(WebSocketsSansIOProtocol):
        def data_received(self, data: bytes) -> None:
            previous = clock.enter("read")
            try:
                super().data_received(data)
            finally:
                clock.enter(previous)

    return TimedProtocol
