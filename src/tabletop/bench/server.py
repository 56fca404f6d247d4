"""Load benchmark of the game server: concurrent Tic-tac-toe games between websocket clients.

Starts ``tabletop serve`` on a free port with a fresh SQLite file (every move
durable, as in production), plays ``--games`` games at once for ``--duration``
seconds, each player waiting ``--think`` seconds before its move, and prints
moves per second, the relay latency (a move sent until the opponent receives
it) at p50/p95/p99/max, errors and the server's peak memory.  When a game
ends the two players take a rematch in a new room and go on.  It only
measures; it changes no server code path.  The players run in ``--clients``
processes (both players of a game in the same one, which times the relay), and
each player keeps one connection for the whole run: it asks for batched frames
(``?batch=1``) and follows each rematch into its new room (``?follow=1``).
The players connect with aiohttp's websocket client
(:mod:`.wsclient`, the same options for the reference relay); the server and
the players' processes are started and measured by :mod:`.load`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from tabletop.bench.load import run_clients, served
from tabletop.errors import UsageError as CliError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=None, help="concurrent games (default 50; 200 with --soak)")
    parser.add_argument(
        "--duration", type=float, default=10.0, help="seconds of play to measure (default 10)"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=None,
        help="seconds each player waits before moving (default 0; 0.2 with --soak)",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=None,
        help="client processes, each playing a share of the games (default: the CPU count, at most --games)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    # extra options for the server this benchmark starts (--serve-arg=--starlette-websocket: the reference)
    parser.add_argument("--serve-arg", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--url", default=None, help="measure a server already running at this URL instead")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="then run the same load through a bare relay on the same web stack (no work per move)"
        " and print the server's figures as a share of it",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also print the server's CPU a move by part (socket read, parse, room, Match, store and"
        " its writer, bus, frames out, the loop), timed inside the server (serve --profile)",
    )
    parser.add_argument(
        "--soak",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a soak run instead: 200 games (or --games) at 0.2 s think (or --think) for SECONDS, with"
        " computer seats and reconnects; the server's memory each minute, errors, lost or duplicated moves",
    )


class Stats:
    def __init__(self, window: Any) -> None:
        self.window = window  # shared [start, end] of the measured part (time.time), set by the runner
        self.latencies: list[float] = []
        self.moves = 0
        self.errors = 0
        self.games = 0
        self.sent: dict[tuple[str, int], float] = {}
        self.messages: list[str] = []
        self.sockets: set[Any] = set()

    def measuring(self) -> bool:
        return bool(self.window[0] <= time.time() < self.window[1])


async def _player(
    base: str,
    room: str,
    token: str,
    me: str,
    think: float,
    stats: Stats,
    stop: asyncio.Event,
    handshakes: asyncio.Semaphore,
    connected: Callable[[], None],
) -> None:
    from tabletop.bench.wsclient import Closed, connect

    ws_base = base.replace("http://", "ws://")
    url = f"{ws_base}/api/rooms/{room}/ws?batch=1&follow=1"
    try:
        async with handshakes:  # a few at a time: thousands of handshakes at once time out
            ws = await connect(url)
        stats.sockets.add(ws)  # closed by the runner at the end, which ends the loop in _play
        connected()
        try:
            await _play(ws, room, token, me, think, stats, stop)
        finally:
            stats.sockets.discard(ws)
            await ws.close()
        if not stop.is_set():
            raise ConnectionError("the server closed the connection in the middle of the run")
    except Closed:
        if not stop.is_set():
            raise  # a drop in the middle of the run is an error; at the end it is the runner closing


async def _play(
    ws: Any, room: str, token: str, me: str, think: float, stats: Stats, stop: asyncio.Event
) -> None:
    """One player for the whole run: one connection that asks for batched frames
    (``?batch=1``) and follows each rematch into its new room (``?follow=1``)."""
    rng = random.Random()
    loads = orjson.loads
    await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
    seq = 0
    async for raw in ws:
        if stop.is_set():
            break
        now = time.perf_counter()
        data = loads(raw)
        frames = data["frames"] if data.get("type") == "batch" else (data,)
        turn = None
        legal: list[str] = []
        last: dict[str, Any] = data
        for frame in frames:
            kind = frame.get("type")
            if kind == "state":
                turn, legal, last = frame.get("turn"), frame.get("legal", []), frame
                room, seq = frame["id"], 0
                me = frame["you"][0] if frame.get("you") else me
            elif kind == "event":
                event = frame["event"]
                ev = event["kind"]
                if ev == "move_played":
                    if event["color"] != me:
                        sent = stats.sent.pop((room, event["ply"]), None)
                        if sent is not None and stats.measuring():
                            stats.latencies.append(now - sent)
                            stats.moves += 1
                elif ev == "turn_changed":
                    turn, legal, last = event.get("turn"), event.get("legal", []), frame
                elif ev == "game_ended":
                    turn = None
                    if me == "black" and stats.measuring():
                        stats.games += 1
                    await ws.send('{"type":"rematch"}')
                elif ev == "rematch_started":
                    turn = None  # the server moves this connection to the new room: a state frame follows
            elif kind == "error" and frame.get("code") not in ("rematch_exists",):
                stats.errors += 1
                if len(stats.messages) < 5:
                    stats.messages.append(json.dumps(frame))
        if turn == me and legal:
            if think > 0:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            seq += 1
            ply = frame_ply(last)
            stats.sent[(room, ply + 1)] = time.perf_counter()
            await ws.send(orjson.dumps({"type": "move", "move": rng.choice(legal), "seq": seq}).decode())


def frame_ply(frame: dict[str, Any]) -> int:
    """Plies played so far, from a state frame or a turn_changed event (its version)."""
    if frame.get("type") == "state":
        return len(frame.get("moves", []))
    # tictactoe events: game_started, turn_changed, then two per move: version 2 + 2 * plies
    return (int(frame["version"]) - 2) // 2


Seat = tuple[str, str, str]  # room, token, colour


async def _clients(base: str, seats: list[Seat], think: float, window: Any, out: Any) -> dict[str, Any]:
    """Play ``seats`` (both players of each game) until the window ends; this process's figures.
    Puts ``"ready"`` on ``out`` once every player is connected."""
    stats = Stats(window)
    stop = asyncio.Event()
    handshakes = asyncio.Semaphore(32)
    count = [0]

    def connected() -> None:
        count[0] += 1
        if count[0] == len(seats):
            out.put("ready")

    tasks = [
        asyncio.create_task(_player(base, room, token, me, think, stats, stop, handshakes, connected))
        for room, token, me in seats
    ]
    while time.time() < window[1]:
        if all(t.done() for t in tasks):
            if count[0] < len(seats):
                out.put("ready")  # every player failed to connect: the errors say so
            break
        await asyncio.sleep(0.1)
    stop.set()
    await asyncio.gather(*(ws.close() for ws in list(stats.sockets)), return_exceptions=True)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    return {
        "latencies": stats.latencies,
        "moves": stats.moves,
        "games": stats.games,
        "errors": stats.errors + len(failures),
        "messages": stats.messages + [repr(f) for f in failures[:3]],
    }


def _create_rooms(base: str, games: int, seats: list[list[Seat]]) -> None:
    processes = len(seats)
    import httpx

    with httpx.Client(base_url=base, timeout=60) as http:
        # every room first, then every player at once, so the measured part is pure play
        for i in range(games):
            created = http.post("/api/rooms", json={"game": "tictactoe"}).json()
            secret = created["invite"].split("invite=")[1]
            joined = http.post(f"/api/rooms/{created['room']}/join", json={"invite": secret}).json()
            share = seats[i % processes]  # both players of a game in one process: it times the relay
            share.append((created["room"], created["tokens"]["black"], "black"))
            share.append((created["room"], joined["token"], "white"))


def _run(
    base: str, games: int, duration: float, think: float, pid: int | None, processes: int, profile: bool = False
) -> dict[str, Any]:
    import multiprocessing

    import httpx

    seats: list[list[Seat]] = [[] for _ in range(processes)]
    try:
        _create_rooms(base, games, seats)
    except httpx.HTTPError as exc:
        raise CliError(f"cannot reach the server at {base}: {exc}") from None
    # fork on Linux (quick to start); spawn elsewhere
    context: Any = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    shares = [share for share in seats if share]
    probe = None
    if profile:
        _profile_sample(base)  # a server without --profile is named before the run

        def probe() -> dict[str, Any]:
            return _profile_sample(base)

    result = run_clients(context, _clients, base, shares, pid, duration, think, games, probe)
    probes = result.pop("probes")
    if profile and len(probes) == 2:
        result["cpu_ms_per_move_by_part"] = split_by_part(probes[0], probes[1], result["moves"])
    return result


def _profile_sample(base: str) -> dict[str, Any]:
    import httpx

    answer = httpx.get(f"{base}/api/profile", timeout=30)
    if answer.status_code == 404:
        raise CliError(f"the server at {base} does not profile: start it with tabletop serve --profile")
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    return found


PART_NAMES = {
    "read": "socket read (uvicorn's protocol: websocket framing, the frame queued)",
    "parse": "frame checks and parsing (size, rate, pydantic)",
    "room": "the room (requests, seats, lock, rematches, greetings)",
    "match": "the Match (rules, events)",
    "store": "the store in the loop (batches to the writer process, answers)",
    "writer": "the store's writer process (SQL, commit, fsync)",
    "bus": "the bus (event frames, delivery to each connection)",
    "frames": "frames out (JSON text, websocket framing, socket writes)",
    "loop": "the event loop and the web stack around our code (asyncio, Starlette, uvicorn)",
    "threads": "the server's other threads (store reads)",
    "workers": "the worker pool (computer seats)",
}


def split_by_part(before: dict[str, Any], after: dict[str, Any], moves: int) -> dict[str, float]:
    """The server's CPU a move (ms) by part between two ``GET /api/profile`` answers: the loop
    thread's parts, the process's other threads, the writer process, the other children."""
    if moves <= 0:
        return {}
    ns = {part: after["parts_ns"][part] - before["parts_ns"][part] for part in after["parts_ns"]}
    thread = after["thread_ns"] - before["thread_ns"]
    ns["threads"] = after["process_ns"] - before["process_ns"] - thread
    ns["writer"] = after["writer_ns"] - before["writer_ns"]
    ns["workers"] = after["children_ns"] - before["children_ns"] - ns["writer"]
    split = {part: round(ns[part] / moves / 1e6, 4) for part in PART_NAMES if part in ns}
    split["total"] = round(sum(ns.values()) / moves / 1e6, 4)
    return split


def run(args: argparse.Namespace) -> int:
    if args.soak is not None:
        from tabletop.bench import soak

        return soak.run(args)
    args.games = 50 if args.games is None else args.games
    args.think = 0.0 if args.think is None else args.think
    if args.games < 1 or args.duration <= 0 or args.think < 0:
        raise CliError("--games must be at least 1, --duration positive and --think not negative")
    if args.clients is not None and args.clients < 1:
        raise CliError("--clients must be at least 1")
    processes = min(args.games, args.clients or os.cpu_count() or 1)
    if args.url:
        result = _run(args.url.rstrip("/"), args.games, args.duration, args.think, None, processes, args.profile)
        return _report(_with_reference(result, args, processes), args.json)
    # a stress run (--think 0) sends far more than the 20 frames a second a
    # person could; the flood limit is lifted for it and the report says so
    unlimited = args.think < 0.05
    extra = args.serve_arg + (["--frame-rate", "0"] if unlimited else []) + (["--profile"] if args.profile else [])
    # the games are between people: the worker pool never runs an engine, so its processes start
    # without loading the engines (the server starts in seconds, and its memory is the games')
    extra.append("--cold-workers")
    with served(extra) as (base, server, _folder):
        result = _run(base, args.games, args.duration, args.think, server.pid, processes, args.profile)
        result["flood_limit"] = "off" if unlimited else "20 frames/s"
    return _report(_with_reference(result, args, processes), args.json)


def _with_reference(result: dict[str, Any], args: argparse.Namespace, processes: int) -> dict[str, Any]:
    """With ``--reference``: the same games, duration, think time and client
    processes through :mod:`tabletop.bench.relay`, and the server's share of its rate."""
    if not args.reference:
        return result
    from tabletop.bench import relay

    try:
        reference = relay.run(args.games, args.duration, args.think, processes)
    except RuntimeError as exc:
        raise CliError(str(exc)) from None
    reference.pop("probes", None)
    result["reference"] = reference
    rate = reference["moves_per_second"]
    result["share_of_reference"] = round(result["moves_per_second"] / rate, 3) if rate else None
    return result


def _report(result: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result))
        return 0
    lat = result["latency_ms"]
    print(
        f"games {result['games']}  think {result['think']} s  measured {result['seconds']} s"
        f"  client processes {result['client_processes']}"
    )
    print(
        f"moves/s {result['moves_per_second']}  ({result['moves']} moves, {result['games_finished']} games finished)"
    )
    print(f"relay latency ms  p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}")
    print(
        f"server CPU (with its child processes) {result['server_cpu_percent']} % of one core, {result['server_cpu_ms_per_move']} ms per move"
    )
    print(
        f"errors {result['errors']}  server peak memory {result['server_peak_mb']} MB  flood limit {result.get('flood_limit')}"
    )
    for sample in result["error_samples"]:
        print(f"  error: {sample}")
    split = result.get("cpu_ms_per_move_by_part")
    if split:
        print(f"server CPU a move by part, timed in the server (--profile): {split['total']:.3f} ms")
        for part, name in PART_NAMES.items():
            if part in split:
                print(f"  {split[part]:7.4f} ms  {100 * split[part] / split['total']:5.1f} %  {name}")
    ref = result.get("reference")
    if ref is not None:
        rl = ref["latency_ms"]
        print(
            f"reference (a bare relay on the same stack, no work per move): moves/s {ref['moves_per_second']}"
            f"  p50 {rl['p50']}  p99 {rl['p99']} ms  server CPU {ref['server_cpu_ms_per_move']} ms per move"
            f"  errors {ref['errors']}"
        )
        share = result["share_of_reference"]
        print(
            "the reference played no move: no share to print"
            if share is None
            else f"the server's rate is {share:.2f}x the reference's"
        )
    return 0
