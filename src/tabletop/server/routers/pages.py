"""The browser app: its page at ``/``, ``/play/{id}``, ``/lobby``, ``/@/{name}``,
``/leaderboard/{pool}``, ``/tournaments`` and ``/tournament/{id}`` (one page; the script reads
the path), its files under ``/web`` and ``/healthz`` for load balancers and tests.  A room,
player, pool or tournament that does not exist gets the same page with status 404 (its script
says what is missing), so that a link checker or a search engine sees the page is not there.

None of these is part of the API, so none is in ``/openapi.json``.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.middleware.gzip import GZipMiddleware

from tabletop.ratings import Pool
from tabletop.server.accounts import Accounts
from tabletop.server.routers.deps import Hub, tournaments_of
from tabletop.server.store import SqlStore
from tabletop.server.tournaments import TournamentError

__all__ = ["WEB", "mount_web", "router"]

WEB = Path(__file__).resolve().parent.parent / "web"

router = APIRouter(include_in_schema=False)
# the pools a game makes (ratings.pool_for): a Reversi board size, a Gomoku rule and maybe a size
POOL_NAME = r"(reversi-\d{1,2}|gomoku-(freestyle|standard|renju|caro)(-\d{1,2})?|tictactoe)-[a-z]+"


class Health(BaseModel):
    ok: bool
    rooms: int


def _page(found: bool = True) -> FileResponse:
    return FileResponse(WEB / "index.html", status_code=200 if found else 404)


async def _room_exists(hub: Hub, room_id: str) -> bool:
    return len(room_id) <= 100 and await hub.get(room_id) is not None


@router.get("/")
async def index() -> FileResponse:
    return _page()


@router.get("/play/{room_id}")
async def play_page(room_id: str, hub: Hub) -> FileResponse:
    return _page(await _room_exists(hub, room_id))


@router.get("/lobby")
async def lobby_page() -> FileResponse:
    return _page()


@router.get("/@/{name}")
async def player_page(name: str, hub: Hub) -> FileResponse:
    # a server that keeps no accounts (no SQL store) has no players
    found = isinstance(hub.store, SqlStore) and await Accounts(hub.store).find(name) is not None
    return _page(found)


@router.get("/leaderboard/{pool}")
async def leaderboard_page(pool: str) -> FileResponse:
    try:
        found = re.fullmatch(POOL_NAME, pool) is not None and Pool.from_key(pool).key == pool
    except ValueError:
        found = False
    return _page(found)


@router.get("/review/{room_id}")
async def review_page(room_id: str, hub: Hub) -> FileResponse:
    """A game's read-only review (the same page; the script reads the path)."""
    return _page(await _room_exists(hub, room_id))


@router.get("/tournaments")
async def tournaments_page() -> FileResponse:
    return _page()


@router.get("/tournament/{tournament_id}")
async def tournament_page(tournament_id: str, request: Request, hub: Hub) -> FileResponse:
    """One tournament's page; 404 for an id no tournament has (or on a server that keeps no players)."""
    try:
        found = len(tournament_id) <= 40 and await tournaments_of(request.app, hub).exists(tournament_id)
    except TournamentError:  # a server without accounts keeps no tournaments
        found = False
    return _page(found)


@router.get("/healthz")
async def health(hub: Hub) -> Health:
    """Up, with the number of rooms in memory."""
    return Health(ok=True, rooms=len(hub.rooms))


def mount_web(app: FastAPI) -> None:
    """Serve the app's scripts, styles and pictures under ``/web`` (a mount: routers cannot carry one),
    gzip-compressed for browsers that accept it (a third of the bytes a player downloads)."""
    if WEB.is_dir():
        app.mount("/web", GZipMiddleware(StaticFiles(directory=WEB), minimum_size=500), name="web")
