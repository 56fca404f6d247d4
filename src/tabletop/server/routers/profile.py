"""``GET /api/profile``: the CPU the server has used so far, by part, for ``tabletop bench server
--profile``; only a server started with ``--profile`` answers it (404 otherwise).

The event loop's thread by part (:mod:`tabletop.server.profile`), the whole process (with the
store's reader threads), the store's writer process and every child process (the writer and the
worker pool).  The benchmark takes it at the start and the end of its measured window and divides
the differences by the moves played in between.  Not part of the API (not in ``/openapi.json``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from tabletop.server.errors import RoomError
from tabletop.server.profile import PartClock

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/api/profile")
async def profile(request: Request) -> dict[str, Any]:
    """Runs on the loop's thread (an ``async`` route), so the loop thread's clock is read there."""
    clock = request.app.state.clock
    if not isinstance(clock, PartClock):
        raise RoomError("not_profiling", "this server was not started with --profile", 404)
    import psutil

    found = clock.snapshot()
    writer = request.app.state.hub.store.writer_pid
    found["writer_ns"] = found["children_ns"] = 0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue  # ended between listing and reading
        ns = int((times.user + times.system) * 1e9)
        found["children_ns"] += ns
        if child.pid == writer:
            found["writer_ns"] = ns
    return found
