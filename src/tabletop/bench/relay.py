"""The reference run of ``tabletop bench server --reference``: the same web stack with no work per move.

A plain Starlette websocket app on uvicorn, started with the options of
``tabletop serve`` (uvloop, the websockets library's sans-I/O protocol, no
per-message deflate, the same frame size limit), relays each frame of a player
to the other player of its game and answers the sender with an acknowledgement:
one frame in and two out per move, as in the game server, of about the same
sizes.  The server does nothing else: no rules, no storage, no JSON.  The
players are the benchmark's kind of client (:mod:`.wsclient`, the same number
of processes, both players of a game in one process, a JSON frame read and a
move frame written per turn, ``--think`` seconds before each move).

What it measures is the ceiling of this machine and stack for the load: moves
per second and relay latency when the server's own work per move is nil.  The
game server's figures are printed as a share of it.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

# the frames the game server sends for a move are about this long: keep the bytes comparable
_PAD = "x" * 160


def relay_app() -> Starlette:
    """Game ``g`` has seats 0 and 1 at ``/relay/g/0`` and ``/relay/g/1``; ``/`` answers the readiness probe."""
    seats: dict[str, list[WebSocket | None]] = {}

    async def ready(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    async def relay(websocket: WebSocket) -> None:
        game = websocket.path_params["game"]
        seat = int(websocket.path_params["seat"]) & 1
        await websocket.accept()
        pair = seats.setdefault(game, [None, None])
        pair[seat] = websocket
        try:
            while True:
                text = await websocket.receive_text()
                await websocket.send_text('{"type":"ack","of":' + text + "}")
                other = pair[1 - seat]
                if other is not None:
                    await other.send_text('{"type":"moved","of":' + text + ',"pad":"' + _PAD + '"}')
        except WebSocketDisconnect:
            pass
        finally:
            pair[seat] = None

    return Starlette(routes=[Route("/", ready), WebSocketRoute("/relay/{game}/{seat:int}", relay)])


def serve(port: int) -> None:
    """Run the relay (in a child process) until terminated."""
    import uvicorn

    uvicorn.run(
        relay_app(),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_max_size=65536,
        ws_per_message_deflate=False,
        ws="websockets-sansio",
        lifespan="off",
    )


async def _player(
    url: str, first: bool, think: float, stats: dict[str, Any], start: asyncio.Event, stop: asyncio.Event
) -> None:
    from tabletop.bench.wsclient import connect

    rng = random.Random()
    key = url.rsplit("/", 2)[1]
    ws = await connect(url)
    stats["connected"] += 1
    try:
        await start.wait()
        seq = 0
        if first:
            seq += 1
            stats["sent"][key] = time.perf_counter()
            await ws.send(orjson.dumps({"type": "move", "move": "b2", "seq": seq}).decode())
        async for raw in ws:
            if stop.is_set():
                break
            now = time.perf_counter()
            data = orjson.loads(raw)
            if data.get("type") != "moved":
                continue  # the acknowledgement of this player's own move
            sent = stats["sent"].pop(key, None)
            window = stats["window"]
            if sent is not None and window[0] <= time.time() < window[1]:
                stats["latencies"].append(now - sent)
                stats["moves"] += 1
            if think > 0:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            seq += 1
            stats["sent"][key] = time.perf_counter()
            await ws.send(orjson.dumps({"type": "move", "move": rng.choice(["a1", "b2", "c3"]), "seq": seq}).decode())
    finally:
        await ws.close()


async def _clients(port: int, games: list[int], think: float, window: Any, out: Any) -> dict[str, Any]:
    stats: dict[str, Any] = {"connected": 0, "sent": {}, "latencies": [], "moves": 0, "window": window}
    start, stop = asyncio.Event(), asyncio.Event()
    tasks = [
        asyncio.create_task(
            _player(f"ws://127.0.0.1:{port}/relay/g{g}/{seat}", seat == 0, think, stats, start, stop)
        )
        for g in games
        for seat in (0, 1)
    ]
    while stats["connected"] < len(tasks) and not any(t.done() for t in tasks):
        await asyncio.sleep(0.01)
    out.put("ready")
    while window[0] == float("inf"):
        await asyncio.sleep(0.01)
    start.set()
    while time.time() < window[1]:
        await asyncio.sleep(0.05)
    stop.set()
    for t in tasks:
        t.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
    return {
        "latencies": stats["latencies"],
        "moves": stats["moves"],
        "games": 0,
        "errors": len(failures),
        "messages": [repr(f) for f in failures[:3]],
    }


def run(games: int, duration: float, think: float, processes: int) -> dict[str, Any]:
    """Start the relay, play ``games`` games through it for ``duration`` seconds; the figures."""
    import multiprocessing

    import httpx

    from tabletop.bench.load import run_clients

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    context: Any = multiprocessing.get_context("fork")
    server = context.Process(target=serve, args=(port,), daemon=True)
    server.start()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline or not server.is_alive():
                    raise RuntimeError("the reference relay did not start") from None
                time.sleep(0.05)
        shares = [[g for g in range(games) if g % processes == k] for k in range(processes)]
        return run_clients(
            context, _clients, port, [s for s in shares if s], server.pid, duration, think, games
        )
    finally:
        server.terminate()
        server.join(timeout=10)
