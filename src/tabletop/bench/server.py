"""Load benchmark of the game server: concurrent Tic-tac-toe games between websocket clients.

Starts ``tabletop serve`` on a free port with a fresh SQLite file (every move
durable, as in production), plays ``--games`` games at once for ``--duration``
seconds, each player waiting ``--think`` seconds before its move, and prints
moves per second, the relay latency (a move sent until the opponent receives
it) at p50/p95/p99/max, errors and the server's peak memory.  When a game
ends the two players take a rematch in a new room and go on.  It only
measures; it changes no server code path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tabletop.cli import CliError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument(
        "--duration", type=float, default=10.0, help="seconds of play to measure (default 10)"
    )
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds each player waits before moving (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--url", default=None, help="measure a server already running at this URL instead")


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.errors = 0
        self.games = 0
        self.sent: dict[tuple[str, int], float] = {}
        self.measuring = False
        self.messages: list[str] = []
        self.sockets: set[Any] = set()


async def _player(
    base: str,
    room: str,
    token: str,
    me: str,
    think: float,
    stats: Stats,
    stop: asyncio.Event,
) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        await _play(base, room, token, me, think, stats, stop)
    except ConnectionClosed:
        if not stop.is_set():
            raise  # a drop in the middle of the run is an error; at the end it is the runner closing


async def _play(
    base: str, room: str, token: str, me: str, think: float, stats: Stats, stop: asyncio.Event
) -> None:
    from websockets.asyncio.client import connect

    ws_base = base.replace("http://", "ws://")
    rng = random.Random()
    while not stop.is_set():
        async with connect(f"{ws_base}/api/rooms/{room}/ws", max_queue=None, compression=None) as ws:
            stats.sockets.add(ws)  # closed by the runner at the end, which ends the loop below
            await ws.send(json.dumps({"type": "hello", "token": token}))
            seq = 0
            next_room: str | None = None
            async for raw in ws:
                if stop.is_set():
                    break
                now = time.perf_counter()
                frame = json.loads(raw)
                kind = frame.get("type")
                turn = None
                legal: list[str] = []
                if kind == "state":
                    turn, legal = frame.get("turn"), frame.get("legal", [])
                elif kind == "event":
                    event = frame["event"]
                    if event["kind"] == "move_played" and event["color"] != me:
                        sent = stats.sent.pop((room, event["ply"]), None)
                        if sent is not None and stats.measuring:
                            stats.latencies.append(now - sent)
                            stats.moves += 1
                    elif event["kind"] == "turn_changed":
                        turn, legal = event.get("turn"), event.get("legal", [])
                    elif event["kind"] == "game_ended":
                        if me == "black" and stats.measuring:
                            stats.games += 1
                        await ws.send(json.dumps({"type": "rematch"}))
                    elif event["kind"] == "rematch_started":
                        next_room = event["room"]
                        token = event["tokens"][{"black": "white", "white": "black"}[me]]
                        me = "white" if me == "black" else "black"
                        break
                elif kind == "error" and frame.get("code") not in ("rematch_exists",):
                    stats.errors += 1
                    if len(stats.messages) < 5:
                        stats.messages.append(json.dumps(frame))
                if turn == me and legal:
                    if think > 0:
                        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    seq += 1
                    ply = frame_ply(frame)
                    stats.sent[(room, ply + 1)] = time.perf_counter()
                    await ws.send(json.dumps({"type": "move", "move": rng.choice(legal), "seq": seq}))
            stats.sockets.discard(ws)
            if next_room is None:
                return
            room = next_room


def frame_ply(frame: dict[str, Any]) -> int:
    """Plies played so far, from a state frame or a turn_changed event (its version)."""
    if frame.get("type") == "state":
        return len(frame.get("moves", []))
    # tictactoe events: game_started, turn_changed, then two per move: version 2 + 2 * plies
    return (int(frame["version"]) - 2) // 2


async def _run(base: str, games: int, duration: float, think: float, pid: int | None) -> dict[str, Any]:
    import httpx

    stats = Stats()
    stop = asyncio.Event()
    peak = [0]

    async def sample_memory() -> None:
        if pid is None:
            return
        import psutil

        proc = psutil.Process(pid)
        while not stop.is_set():
            rss = proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True))
            peak[0] = max(peak[0], rss)
            await asyncio.sleep(0.2)

    seats: list[tuple[str, str, str]] = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        # every room first, then every player at once, so the measured part is pure play
        for _ in range(games):
            created = (await http.post("/api/rooms", json={"game": "tictactoe"})).json()
            secret = created["invite"].split("invite=")[1]
            joined = (await http.post(f"/api/rooms/{created['room']}/join", json={"invite": secret})).json()
            seats.append((created["room"], created["tokens"]["black"], "black"))
            seats.append((created["room"], joined["token"], "white"))
    tasks = [
        asyncio.create_task(_player(base, room, token, me, think, stats, stop)) for room, token, me in seats
    ]
    memory = asyncio.create_task(sample_memory())
    await asyncio.sleep(max(2.0, min(5.0, games / 200)))  # warm up: every connection open and playing
    cpu_before = _cpu_seconds(pid)
    stats.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(duration)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    server_cpu = _cpu_seconds(pid) - cpu_before
    stop.set()
    await asyncio.gather(*(ws.close() for ws in list(stats.sockets)), return_exceptions=True)
    results = await asyncio.gather(*tasks, memory, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else float("nan")

    return {
        "games": games,
        "think": think,
        "seconds": round(elapsed, 2),
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / elapsed, 1),
        "games_finished": stats.games,
        "latency_ms": {
            "p50": round(pct(50), 2),
            "p95": round(pct(95), 2),
            "p99": round(pct(99), 2),
            "max": round(1000 * lat[-1], 2) if lat else None,
        },
        "errors": stats.errors + len(failures),
        "error_samples": stats.messages + [repr(f) for f in failures[:3]],
        "server_peak_mb": round(peak[0] / 2**20, 1) if pid is not None else None,
        # the server's own CPU use: on a shared machine the clients compete with it
        "server_cpu_percent": round(100 * server_cpu / elapsed, 1) if pid is not None else None,
        "server_cpu_ms_per_move": round(1000 * server_cpu / stats.moves, 3)
        if pid is not None and stats.moves
        else None,
    }


def _cpu_seconds(pid: int | None) -> float:
    if pid is None:
        return 0.0
    import psutil

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.duration <= 0 or args.think < 0:
        raise CliError("--games must be at least 1, --duration positive and --think not negative")
    if args.url:
        result = asyncio.run(_run(args.url.rstrip("/"), args.games, args.duration, args.think, None))
        return _report(result, args.json)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="tabletop-bench-") as folder:
        command = [
            str(Path(sys.executable).with_name("tabletop")),
            "serve",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{Path(folder) / 'bench.db'}",
        ]
        # a stress run (--think 0) sends far more than the 20 frames a second a
        # person could; the flood limit is lifted for it and the report says so
        unlimited = args.think < 0.05
        if unlimited:
            command += ["--frame-rate", "0"]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait(f"http://127.0.0.1:{port}/healthz", server)
            result = asyncio.run(
                _run(f"http://127.0.0.1:{port}", args.games, args.duration, args.think, server.pid)
            )
            result["flood_limit"] = "off" if unlimited else "20 frames/s"
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    return _report(result, args.json)


def _wait(url: str, server: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise CliError(f"the server exited with status {server.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise CliError("the server did not start within 60 s")


def _report(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result))
        return 0
    lat = result["latency_ms"]
    print(f"games {result['games']}  think {result['think']} s  measured {result['seconds']} s")
    print(
        f"moves/s {result['moves_per_second']}  ({result['moves']} moves, {result['games_finished']} games finished)"
    )
    print(f"relay latency ms  p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}")
    print(
        f"server CPU {result['server_cpu_percent']} % of one core, {result['server_cpu_ms_per_move']} ms per move"
    )
    print(
        f"errors {result['errors']}  server peak memory {result['server_peak_mb']} MB  flood limit {result.get('flood_limit')}"
    )
    for sample in result["error_samples"]:
        print(f"  error: {sample}")
    return 0
