"""Soak run of the game server: ``tabletop bench server --soak SECONDS``.

Starts ``tabletop serve`` on a fresh SQLite file, as the load benchmark does,
and plays ``--games`` Tic-tac-toe games (200 by default) for SECONDS, each
player waiting ``--think`` seconds (0.2 by default, 0.5x to 1.5x at random)
before a move; every tenth game has a computer seat (``level:1``).  Finished
games go on as rematches.  Each minute 1 % of the players drop their connection
and come back a moment later with ``since`` (the last version they saw) and
resend a move that was not yet acknowledged, as a browser does.

Each minute it prints the server's memory (its process and its children: the
store's writer and the computer's worker pool); at the end, the slope of the
memory over the run after its first minute, the errors (error frames, failed
clients, error lines in the server's log), and, read back from the database
once the server has stopped, the acknowledged moves that are not stored (lost),
the stored moves no acknowledgement accounts for (duplicated), and the moves a
player was shown that differ from the stored game.  It changes no server code
path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tabletop.errors import UsageError

COMPUTER_EVERY = 10  # every tenth game: a human against the computer
COMPUTER = "level:1"
DROP_SHARE = 0.01  # of the players, each minute
MINUTE = 60.0
SAMPLE = 5.0  # seconds between memory samples
WARM_UP = 60.0  # the memory slope is taken after this (imports, caches, the pool's first jobs)
# refusals a correct player can meet: a rematch both players asked for, a move racing a reconnect
EXPECTED_ERRORS = {"rematch_exists"}

Seat = tuple[str, str, str]  # room, token, colour


@dataclass
class Ledger:
    """What the players of one client process saw, for the check against the store."""

    # (room, colour) -> {seq: move}: every acknowledged move (a duplicate ack included)
    acked: dict[tuple[str, str], dict[int, str]] = field(default_factory=dict)
    # (room, colour) -> (seq, move) sent and not acknowledged when the run stopped
    pending: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    # (room, player index) -> {ply: move}: what the player was shown (events and states)
    shown: dict[tuple[str, int], dict[int, str]] = field(default_factory=dict)
    moves = 0
    errors = 0
    drops = 0
    reconnects = 0
    messages: list[str] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.messages) < 8:
            self.messages.append(what)


class Player:
    """One human seat for the whole run: plays, follows rematches, drops and comes back."""

    def __init__(self, index: int, base: str, seat: Seat, think: float, ledger: Ledger) -> None:
        self.index = index
        self.ws_base = base.replace("http://", "ws://")
        self.room, self.token, self.me = seat
        self.think = think
        self.ledger = ledger
        self.rng = random.Random()
        self.version = 0
        self.turn: str | None = None
        self.legal: list[str] = []
        self.over = False
        self.seq = 0
        self.pending: tuple[int, str] | None = None
        self.drop = asyncio.Event()
        self.mover: asyncio.Task[None] | None = None

    async def run(self, stop: asyncio.Event, handshakes: asyncio.Semaphore) -> None:
        from tabletop.bench.wsclient import Closed, connect

        resume = False
        while not stop.is_set():
            async with handshakes:
                ws = await connect(f"{self.ws_base}/api/rooms/{self.room}/ws?batch=1&follow=1")
            hello: dict[str, Any] = {"type": "hello", "token": self.token}
            if resume and not self.over:
                hello["since"] = self.version  # only the events missed while away
            room_before = self.room
            try:
                await ws.send(orjson.dumps(hello).decode())
                if resume and self.pending is not None:
                    await self._send_move(ws, *self.pending)  # it may have landed: the server acks it again
                elif resume and not self.over:
                    self._maybe_move(ws)
                reader = asyncio.ensure_future(self._read(ws))
                dropped = asyncio.ensure_future(self.drop.wait())
                stopped = asyncio.ensure_future(stop.wait())
                await asyncio.wait({reader, dropped, stopped}, return_when=asyncio.FIRST_COMPLETED)
                dropped.cancel()
                stopped.cancel()
                if stop.is_set() or not reader.done():
                    reader.cancel()  # the run is over, or the player drops on purpose
                    self._cancel_move()
                    if stop.is_set():
                        return
                else:
                    reader.result()  # raises what ended it
                    if self.room != room_before:
                        continue  # the player moves to its rematch room
                    raise ConnectionError("the server closed the connection in the middle of the run")
            except Closed:
                if stop.is_set():
                    return
                raise
            finally:
                await ws.close()
            # dropped on purpose: away for a moment, then back with since
            self.drop.clear()
            self.ledger.drops += 1
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            self.ledger.reconnects += 1
            resume = True

    def _cancel_move(self) -> None:
        if self.mover is not None and not self.mover.done():
            self.mover.cancel()
        self.mover = None

    async def _read(self, ws: Any) -> None:
        async for raw in ws:
            data = orjson.loads(raw)
            for frame in data["frames"] if data.get("type") == "batch" else (data,):
                if await self._frame(ws, frame):
                    return  # the player leaves this connection (its room's rematch is elsewhere)
            self._maybe_move(ws)

    async def _frame(self, ws: Any, frame: dict[str, Any]) -> bool:
        kind = frame.get("type")
        if "version" in frame and isinstance(frame["version"], int):
            self.version = max(self.version, frame["version"])
        if kind == "state":
            if frame["id"] != self.room:  # followed into the rematch room: new seat numbering
                self.room, self.seq, self.pending = frame["id"], 0, None
            self.me = frame["you"][0] if frame.get("you") else self.me
            self.version = int(frame["version"])
            self.turn, self.legal = frame.get("turn"), list(frame.get("legal") or [])
            shown = self.ledger.shown.setdefault((self.room, self.index), {})
            shown.update({ply: move for ply, move in enumerate(frame.get("moves") or [], 1)})
            self.over = frame.get("outcome") is not None
            if self.over:
                if frame.get("rematch"):
                    self.room, self.seq, self.pending = frame["rematch"], 0, None
                    return True  # reconnect there
                await ws.send('{"type":"rematch"}')
        elif kind == "ack":
            if self.pending is not None and frame.get("seq") == self.pending[0]:
                seq, move = self.pending
                self.ledger.acked.setdefault((self.room, self.me), {})[seq] = move
                self.pending = None
                self.ledger.moves += 1
        elif kind == "event":
            event = frame["event"]
            ev = event["kind"]
            if ev == "move_played":
                self.ledger.shown.setdefault((self.room, self.index), {})[int(event["ply"])] = event["move"]
            elif ev == "turn_changed":
                self.turn, self.legal = event.get("turn"), list(event.get("legal") or [])
            elif ev == "game_ended":
                self.turn, self.over = None, True
                await ws.send('{"type":"rematch"}')
        elif kind == "error":
            code = frame.get("code")
            if self.pending is not None and frame.get("seq") == self.pending[0]:
                self.pending = None
            if code not in EXPECTED_ERRORS:
                self.ledger.error(json.dumps(frame))
        return False

    def _maybe_move(self, ws: Any) -> None:
        ready = self.turn == self.me and self.legal and self.pending is None and not self.over
        if ready and (self.mover is None or self.mover.done()):
            self.mover = asyncio.ensure_future(self._move_later(ws))

    async def _move_later(self, ws: Any) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if self.turn != self.me or not self.legal or self.pending is not None or self.over:
            return
        self.seq += 1
        await self._send_move(ws, self.seq, self.rng.choice(self.legal))

    async def _send_move(self, ws: Any, seq: int, move: str) -> None:
        self.pending = (seq, move)
        await ws.send(orjson.dumps({"type": "move", "move": move, "seq": seq}).decode())


async def _clients(base: str, seats: list[Seat], think: float, window: Any, out: Any) -> dict[str, Any]:
    """The players of one client process; each minute 1 % of them (a fraction carried over) drop."""
    ledger = Ledger()
    stop = asyncio.Event()
    handshakes = asyncio.Semaphore(32)
    players = [Player(i, base, seat, think, ledger) for i, seat in enumerate(seats)]
    tasks = [asyncio.ensure_future(p.run(stop, handshakes)) for p in players]
    out.put("ready")
    rng = random.Random()
    owed = 0.0
    next_drop = time.time() + MINUTE
    while time.time() < window[1] and not all(t.done() for t in tasks):
        if time.time() >= next_drop:
            owed += DROP_SHARE * len(players)
            for player in rng.sample(players, min(len(players), int(owed))):
                player.drop.set()
            owed -= int(owed)
            next_drop += MINUTE
        await asyncio.sleep(0.2)
    stop.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
    for player in players:
        if player.pending is not None:
            ledger.pending[(player.room, player.me)] = player.pending
    for failure in [r for r in results if isinstance(r, BaseException)]:
        ledger.error(f"a player failed: {failure!r}")
    return {
        "acked": [[room, color, sorted(moves.items())] for (room, color), moves in ledger.acked.items()],
        "pending": [[room, color, seq, move] for (room, color), (seq, move) in ledger.pending.items()],
        "shown": [[room, sorted(plies.items())] for (room, _), plies in ledger.shown.items()],
        "moves": ledger.moves,
        "errors": ledger.errors,
        "messages": ledger.messages,
        "drops": ledger.drops,
        "reconnects": ledger.reconnects,
    }


def _create_rooms(base: str, games: int, processes: int) -> list[list[Seat]]:
    import httpx

    shares: list[list[Seat]] = [[] for _ in range(processes)]
    with httpx.Client(base_url=base, timeout=60) as http:
        for i in range(games):
            share = shares[i % processes]
            if i % COMPUTER_EVERY == 0:
                created = http.post("/api/rooms", json={"game": "tictactoe", "seats": {"white": COMPUTER}}).json()
                share.append((created["room"], created["tokens"]["black"], "black"))
                continue
            created = http.post("/api/rooms", json={"game": "tictactoe"}).json()
            secret = created["invite"].split("invite=")[1]
            joined = http.post(f"/api/rooms/{created['room']}/join", json={"invite": secret}).json()
            share.append((created["room"], created["tokens"]["black"], "black"))
            share.append((created["room"], joined["token"], "white"))
    return shares


def _memory(pid: int) -> int:
    """Resident memory of the server process and its children, in bytes."""
    import psutil

    server = psutil.Process(pid)
    total = 0
    for proc in [server, *server.children(recursive=True)]:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


def _slope(samples: list[tuple[float, int]]) -> float:
    """Least-squares slope of (seconds, bytes) samples, in bytes a second."""
    n = len(samples)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in samples) / n
    my = sum(m for _, m in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    return sum((t - mx) * (m - my) for t, m in samples) / var if var else 0.0


def check_against_store(url: str, parts: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Read every room the players saw from the store: lost, duplicated and mis-shown moves."""
    from tabletop.server.store import SqlStore

    acked: dict[tuple[str, str], dict[int, str]] = {}
    pending: dict[tuple[str, str], tuple[int, str]] = {}
    shown: list[tuple[str, list[tuple[int, str]]]] = []
    for part in parts:
        for room, color, moves in part["acked"]:
            acked.setdefault((room, color), {}).update({int(s): m for s, m in moves})
        for room, color, seq, move in part["pending"]:
            pending[(room, color)] = (int(seq), move)
        shown += [(room, [(int(p), m) for p, m in plies]) for room, plies in part["shown"]]
    rooms = sorted({room for room, _ in acked} | {room for room, _ in shown})
    store = SqlStore(url)
    found: dict[str, list[tuple[str, str]]] = {}

    async def load_all() -> None:
        for room in rooms:
            stored = await store.load(room)
            found[room] = (
                []
                if stored is None
                else [(str(a.color), str(a.arg)) for a in stored.actions if a.kind == "play"]
            )
        await store.close()

    asyncio.run(load_all())
    lost = duplicated = mis_shown = 0
    for (room, color), by_seq in acked.items():
        mine = [move for c, move in found.get(room, []) if c == color]
        sent = [move for _, move in sorted(by_seq.items())]
        lost += sum(1 for i, move in enumerate(sent) if i >= len(mine) or mine[i] != move)
        in_flight = 1 if (room, color) in pending else 0
        duplicated += max(0, len(mine) - len(sent) - in_flight)
    for room, plies in shown:
        moves = [move for _, move in found.get(room, [])]
        mis_shown += sum(1 for ply, move in plies if ply > len(moves) or moves[ply - 1] != move)
    return {"rooms_checked": len(rooms), "lost": lost, "duplicated": duplicated, "mis_shown": mis_shown}


def run(args: argparse.Namespace) -> int:
    """``tabletop bench server --soak SECONDS``: play, print the memory each minute, check, report."""
    import multiprocessing

    from tabletop.bench.load import served, start_clients

    games = 200 if args.games is None else args.games
    think = 0.2 if args.think is None else args.think
    seconds = float(args.soak)
    if games < 1 or seconds <= 0 or think < 0.05:
        raise UsageError("--soak needs positive SECONDS, --games at least 1 and --think at least 0.05")
    if args.url:
        raise UsageError("--soak starts its own server (it reads the games back from its database)")
    processes = max(1, min(games, args.clients or os.cpu_count() or 1))
    context: Any = multiprocessing.get_context("fork")
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"tabletop-soak-{os.getpid()}.log"
    with served(args.serve_arg, log=log) as (base, server, folder):
        shares = [s for s in _create_rooms(base, games, processes) if s]
        window = context.RawArray("d", [time.time(), time.time() + seconds])
        workers, out = start_clients(context, _clients, base, shares, think, window)
        start = time.time()
        window[0], window[1] = start, start + seconds
        players = sum(len(s) for s in shares)
        print(
            f"soak: {games} games ({players} human players, {len(range(0, games, COMPUTER_EVERY))} against"
            f" {COMPUTER}), think {think} s, {seconds:.0f} s, {len(workers)} client processes,"
            f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
            flush=True,
        )
        samples: list[tuple[float, int]] = []
        minute: list[int] = []
        next_sample, next_print = start, start + MINUTE
        while time.time() < window[1]:
            now = time.time()
            if now >= next_sample:
                rss = _memory(server.pid)
                samples.append((now - start, rss))
                minute.append(rss)
                next_sample += SAMPLE
            if now >= next_print:
                print(
                    f"minute {round((now - start) / MINUTE):>3}: server memory {sum(minute) / len(minute) / 2**20:7.1f} MB"
                    f" (max {max(minute) / 2**20:.1f})  load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                minute = []
                next_print += MINUTE
            time.sleep(min(0.5, max(0.0, min(next_sample, next_print, window[1]) - time.time())))
        parts = [out.get(timeout=180) for _ in workers]
        for w in workers:
            w.join(timeout=30)
        url = f"sqlite:///{folder / 'bench.db'}"
        server.terminate()
        server.wait(timeout=30)
        checked = check_against_store(url, parts)
    text = log.read_text(errors="replace")
    log.unlink()
    server_errors = [line for line in text.splitlines() if "ERROR" in line or "Traceback" in line]
    after = [(t, m) for t, m in samples if t >= min(WARM_UP, seconds / 2)]
    slope = _slope(after)
    mean = sum(m for _, m in after) / len(after) if after else 0.0
    span = (after[-1][0] - after[0][0]) if len(after) > 1 else 0.0
    drift = 100 * slope * span / mean if mean else 0.0
    result: dict[str, Any] = {
        "games": games,
        "think": think,
        "seconds": seconds,
        "client_processes": len(workers),
        "moves": sum(int(p["moves"]) for p in parts),
        "drops": sum(int(p["drops"]) for p in parts),
        "reconnects": sum(int(p["reconnects"]) for p in parts),
        "errors": sum(int(p["errors"]) for p in parts) + len(server_errors),
        "error_samples": [m for p in parts for m in p["messages"]][:8] + server_errors[:4],
        "memory_mb": [round(m / 2**20, 1) for _, m in samples[:: max(1, int(MINUTE / SAMPLE))]],
        "memory_slope_mb_per_minute": round(slope * MINUTE / 2**20, 3),
        "memory_drift_percent": round(drift, 2),
        **checked,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"moves {result['moves']} ({result['moves'] / seconds:.0f}/s)  drops {result['drops']}"
            f"  reconnects {result['reconnects']}  rooms checked {result['rooms_checked']}"
        )
        print(
            f"memory slope {result['memory_slope_mb_per_minute']} MB/min after the first minute:"
            f" {result['memory_drift_percent']:+.2f} % over the run"
            f" ({'flat' if abs(drift) <= 5 else 'NOT flat'} within 5 %)"
        )
        print(
            f"errors {result['errors']}  lost moves {result['lost']}  duplicated moves {result['duplicated']}"
            f"  moves shown differently from the store {result['mis_shown']}"
        )
        for sample in result["error_samples"]:
            print(f"  error: {sample}")
    return 0
