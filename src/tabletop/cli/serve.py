"""``tabletop serve``: run the game server (FastAPI on uvicorn) and print its URL.

Parses options and starts uvicorn; the server itself lives in
:mod:`tabletop.server`.  Bad options give a one-line error (exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import threading
import time
import webbrowser
from typing import Any

from tabletop.cli import CliError


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the game server and the web app")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--database", default=None, help="SQLAlchemy URL (default: a SQLite file in the user data dir)"
    )
    p.add_argument("--redis", default=None, help="Redis URL for the event bus between server processes")
    p.add_argument("--open", action="store_true", help="open the web app in a browser")
    p.add_argument(
        "--workers", type=int, default=2, help="processes for computer seats and analysis (default 2)"
    )
    p.add_argument(
        "--cold-workers",
        action="store_true",
        help="start without loading the engines into the worker processes first (faster start; "
        "the first computer move then waits for them)",
    )
    p.add_argument(
        "--frame-rate", type=float, default=20.0, help="frames a second per connection (0: no limit)"
    )
    p.add_argument(
        "--allow-engines", action="store_true", help="let rooms run external engines (gomocup:, nboard:)"
    )
    p.add_argument(
        "--away-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long a player of an online game may be gone before the other may claim the win "
        "or call the game off (default 60)",
    )
    p.add_argument(
        "--tournament-first-move",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a paired tournament player has for their first move before the game is called off "
        "and they are paused (default 30)",
    )
    # time the event loop's CPU by part and answer GET /api/profile (tabletop bench server --profile)
    p.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--sqlite-synchronous",
        default="FULL",
        choices=["OFF", "NORMAL", "FULL", "EXTRA"],
        help=argparse.SUPPRESS,
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tabletop.server.app import create_app
    from tabletop.server.settings import Settings, database_url, default_database_url

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port} is not a port number (0..65535)")
    if args.workers < 1:
        raise CliError("--workers must be at least 1")
    if not 0 < args.away_timeout <= 86400:
        raise CliError(f"--away-timeout {args.away_timeout:g} is not a number of seconds from 0 to 86400 (a day)")
    if not 0 < args.tournament_first_move <= 86400:
        raise CliError(f"--tournament-first-move {args.tournament_first_move:g} is not a number of seconds "
                       "from 0 to 86400 (a day)")
    database = args.database or default_database_url()
    if "://" not in database:
        raise CliError(
            f"--database {database!r} is not a database URL (sqlite:////path.db, postgresql://...)"
        )
    try:
        import sqlalchemy

        sqlalchemy.engine.make_url(database)
        sqlalchemy.create_engine(database_url(database)).dispose()  # loads the driver: a missing one is named now
    except Exception as exc:  # noqa: BLE001 - reported as one line
        raise CliError(f"--database {database!r}: {exc}") from None
    settings = Settings(
        database=database,
        redis=args.redis,
        frame_rate=args.frame_rate,
        workers=args.workers,
        allow_engines=args.allow_engines,
        sqlite_synchronous=args.sqlite_synchronous,
        profile=args.profile,
        warm_workers=not args.cold_workers,
        away_timeout=args.away_timeout,
        tournament_first_move=args.tournament_first_move,
    )
    app = create_app(settings)
    ws: Any = "websockets-sansio"  # the websockets library's sans-I/O protocol
    if args.profile:
        from tabletop.server.profile import timed_protocol

        ws = timed_protocol(app.state.clock)  # the same protocol, its socket reads timed
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=65536,
        ws_per_message_deflate=False,
        ws=ws,
        # a bot's event stream never ends by itself: at shutdown it is cut after a few seconds
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    url_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host

    def announce() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if not server.started:
            return
        port = args.port
        for s in server.servers:
            for sock in s.sockets:
                port = sock.getsockname()[1]
        url = f"http://{url_host}:{port}/"
        print(f"tabletop serving on {url} (database {database})", flush=True)
        if args.open:
            with contextlib.suppress(webbrowser.Error):
                webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    _tune_gc()
    server.run()
    return 0 if server.started else 1


# Young-generation size for the cycle collector in the server process.
GC_YOUNG = 50_000


def _tune_gc() -> None:
    """A server with thousands of sockets and rooms keeps a large heap: by default the cycle
    collector scans it every few seconds (0.1-0.8 s pauses that stall every room). Rooms
    break their own cycles when released, so most garbage goes by reference counting; the
    collector runs less often and leaves the start-up objects (modules, classes) alone."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 100)
