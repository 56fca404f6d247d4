"""The browser app: its page at ``/``, ``/play/{id}``, ``/lobby``, ``/@/{name}`` and
``/leaderboard/{pool}`` (one page; the script reads the path), its files under ``/web`` and
``/healthz`` for load balancers and tests.

None of these is part of the API, so none is in ``/openapi.json``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from tabletop.server.routers.deps import Hub

__all__ = ["WEB", "mount_web", "router"]

WEB = Path(__file__).resolve().parent.parent / "web"

router = APIRouter(include_in_schema=False)


class Health(BaseModel):
    ok: bool
    rooms: int


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/play/{room_id}")
async def play_page(room_id: str) -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/lobby")
async def lobby_page() -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/@/{name}")
async def player_page(name: str) -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/leaderboard/{pool}")
async def leaderboard_page(pool: str) -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/review/{room_id}")
async def review_page(room_id: str) -> FileResponse:
    """A game's read-only review (the same page; the script reads the path)."""
    return FileResponse(WEB / "index.html")


@router.get("/healthz")
async def health(hub: Hub) -> Health:
    """Up, with the number of rooms in memory."""
    return Health(ok=True, rooms=len(hub.rooms))


def mount_web(app: FastAPI) -> None:
    """Serve the app's scripts, styles and pictures under ``/web`` (a mount: routers cannot carry one)."""
    if WEB.is_dir():
        app.mount("/web", StaticFiles(directory=WEB), name="web")
