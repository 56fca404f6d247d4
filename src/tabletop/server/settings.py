"""Settings of one game-server process: where it stores games, how it fans out
events, and the limits it enforces on every connection.

This module only holds values and their defaults; it opens nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Settings", "database_url", "default_database_url"]


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created if missing)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("tabletop", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'tabletop.db'}"


def database_url(url: str) -> str:
    """``url`` with the SQLAlchemy driver this project installs: a plain
    ``postgresql://`` (or ``postgres://``) URL means psycopg 3, whose dialect
    SQLAlchemy calls ``postgresql+psycopg`` (its bare default, psycopg2, is not
    installed).  Other URLs are returned unchanged."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@dataclass
class Settings:
    """``database``: a SQLAlchemy URL; ``redis``: a Redis URL for the event bus
    (None: in-process).  ``frame_rate``: frames a second a connection may send
    (0: no limit); ``frame_bytes``: the largest frame accepted.  ``public_url``:
    the base of invite links (None: taken from each request).
    ``allow_engines``: let rooms name external engines (``gomocup:CMD``,
    ``nboard:CMD``), which run a command on this machine: off unless the operator
    turns it on.  ``profile``: time the event loop's CPU by part of the server and
    answer ``GET /api/profile`` (``tabletop bench server --profile``).  ``warm_workers``: start
    the worker pool with the engines loaded before the server takes its first request, so that the
    first computer move costs no more than the next (``tabletop serve`` turns it on; an app made
    for a test leaves it off and loads an engine in the worker on first use).  Moves are committed
    by the store's writer process (see :class:`~tabletop.server.store.SqlStore`), which has no setting.
    ``away_timeout``: seconds a player of an online game may be gone (no connection holds their
    seat) before the other player may claim the win or call the game off.  ``tournament_tick``:
    seconds between this process's rounds of tournament work (starting, pairing, finishing; 0: none,
    a test ticks by hand); ``tournament_first_move``: seconds a paired tournament player has to make
    their first move, else the game is called off and they are paused."""

    database: str = "sqlite:///:memory:"
    redis: str | None = None
    frame_rate: float = 20.0
    frame_bytes: int = 4096
    replay_limit: int = 500
    workers: int = 2
    public_url: str | None = None
    sqlite_synchronous: str = "FULL"
    allow_engines: bool = False
    profile: bool = False
    warm_workers: bool = False
    away_timeout: float = 60.0
    tournament_tick: float = 0.5
    tournament_first_move: float = 30.0
