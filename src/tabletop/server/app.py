"""The FastAPI application: REST routes for rooms, records and analysis, the room
websocket and the web app's files, each concern a router of :mod:`.routers`.

:func:`create_app` only assembles: the settings on ``app.state``, a lifespan
that opens a :class:`~.rooms.RoomHub` on a store, a bus and a process pool,
the security headers, one error body for every refusal, and the routers.  It
holds no route, no game rule and no SQL.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from tabletop.server.analyses import Analyses
from tabletop.server.bus import make_bus
from tabletop.server.lobby import Lobby
from tabletop.server.profile import NO_CLOCK, PartClock
from tabletop.server.rooms import RoomHub
from tabletop.server.routers import accounts, analysis, imports, lobby, pages, profile, rooms
from tabletop.server.routers import bots as bot_routes
from tabletop.server.routers import chat as chat_routes
from tabletop.server.routers import games as game_routes
from tabletop.server.routers import live as live_routes
from tabletop.server.routers import tournaments as tournament_routes
from tabletop.server.routers.responses import add_error_handlers
from tabletop.server.routers.socket import router as socket_router
from tabletop.server.security import secure
from tabletop.server.settings import Settings
from tabletop.server.store import SqlStore
from tabletop.server.tournaments import Tournaments
from tabletop.server.workers import Pool

__all__ = ["create_app"]


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the store, the bus and the pool, start the lobby's seek heartbeat, resume unfinished
    rooms; close all at shutdown."""
    settings: Settings = app.state.settings
    clock = app.state.clock
    store = SqlStore(settings.database, sqlite_synchronous=settings.sqlite_synchronous, clock=clock)
    bus = await make_bus(settings.redis)
    pool = Pool(settings.workers, warm=settings.warm_workers)
    if settings.warm_workers:
        await pool.warm()
    hub = RoomHub(
        store, bus, pool, replay_limit=settings.replay_limit, shared=settings.redis is not None, clock=clock,
        now=app.state.now, away_timeout=settings.away_timeout,
    )
    app.state.hub = hub
    app.state.lobby = Lobby(hub)
    hub.spawn(app.state.lobby.keep_seeks_fresh())  # the seeks of players who left go (lobby.py)
    app.state.tournaments = Tournaments(hub, period=settings.tournament_tick,
                                        first_move=settings.tournament_first_move)
    if settings.tournament_tick > 0:
        hub.spawn(app.state.tournaments.run())  # tournaments start, pair and finish (tournaments.py)
    await hub.resume()
    try:
        yield
    finally:
        await hub.close()
        pool.close()
        await bus.close()
        await store.close()


def create_app(settings: Settings | None = None, *, now: Callable[[], float] = time.time) -> FastAPI:
    """The server application for ``settings`` (an in-memory SQLite database by default); ``now``:
    the wall clock its games run on (a test of correspondence games hands in one it moves by days)."""
    app = FastAPI(
        title="tabletop",
        summary="Reversi, Gomoku/Renju and Tic-tac-toe rooms over REST and websockets",
        lifespan=lifespan,
    )
    app.state.settings = settings = settings or Settings()
    app.state.now = now
    # the event loop's CPU by part, read at GET /api/profile (tabletop bench server --profile)
    app.state.clock = PartClock() if settings.profile else NO_CLOCK
    app.state.evaluations = analysis.Evaluations()
    app.state.analyses = Analyses()
    secure(app)  # security headers on every answer; no secret in the logs
    add_error_handlers(app)
    app.include_router(rooms.router)
    app.include_router(chat_routes.router)
    app.include_router(accounts.router)
    app.include_router(lobby.router)
    app.include_router(bot_routes.router)
    app.include_router(tournament_routes.router)
    app.include_router(game_routes.router)
    app.include_router(live_routes.router)
    app.include_router(analysis.router)
    app.include_router(imports.router)
    app.include_router(socket_router)
    app.include_router(profile.router)
    app.include_router(pages.router)
    pages.mount_web(app)
    return app
