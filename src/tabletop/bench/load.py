"""The load runner the server benchmarks share: a ``tabletop serve`` to measure, client processes
that play against a server, and the measured window.

:mod:`.server` (the game server's load), :mod:`.relay` (the bare relay it is compared with) and
:mod:`.soak` (the long run) each bring their own players and report; this module starts the
server and the players' processes, opens the window once every player is connected, samples the
server's memory and CPU through it and gathers the players' figures.  It imports none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tabletop.errors import UsageError as CliError

__all__ = ["client_process", "measure", "run_clients", "served", "start_clients"]


def client_process(clients: Callable[..., Any], where: Any, share: Any, think: float, window: Any, out: Any) -> None:
    """A client process: ``await clients(where, share, think, window, out)`` and put its figures on ``out``.
    It runs on uvloop, as the server does: the players share the cores with the server they measure."""
    import uvloop

    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            out.put(runner.run(clients(where, share, think, window, out)))
    except BaseException as exc:  # noqa: BLE001 - reported as an error of the run, never lost
        out.put("ready")
        out.put({"latencies": [], "moves": 0, "games": 0, "errors": 1, "messages": [repr(exc)]})


def run_clients(
    context: Any,
    clients: Callable[..., Any],
    where: Any,
    shares: list[Any],
    pid: int | None,
    duration: float,
    think: float,
    games: int,
    probe: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Start one client process per share, playing ``clients(where, share, think, window, out)``,
    wait until every player is connected, then :func:`measure` the run (and ``probe`` it)."""
    window = context.RawArray("d", [float("inf"), float("inf")])  # set once every player is connected
    workers, out = start_clients(context, clients, where, shares, think, window)
    result = measure(pid, window, duration, think, games, workers, out, probe)
    for w in workers:
        w.join(timeout=30)
    return result


def start_clients(
    context: Any, clients: Callable[..., Any], where: Any, shares: list[Any], think: float, window: Any
) -> tuple[list[Any], Any]:
    """One client process per share, each running ``clients(where, share, think, window, out)``;
    returns once every one has said it is ready: (the processes, the queue ``out`` they report on)."""
    out = context.Queue()
    workers = [
        context.Process(target=client_process, args=(clients, where, share, think, window, out), daemon=True)
        for share in shares
    ]
    for w in workers:
        w.start()
    for _ in workers:
        if out.get(timeout=600) != "ready":
            raise CliError("a client process did not start")
    return workers, out


def measure(
    pid: int | None,
    window: Any,
    duration: float,
    think: float,
    games: int,
    workers: list[Any],
    out: Any,
    probe: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Open the measuring ``window`` (after a warm-up), sample the server ``pid``
    (peak memory, CPU) through it while the client processes ``workers`` play,
    then gather their figures from ``out``.  ``probe()`` is called when the window
    opens and when it closes; the two answers are the result's ``"probes"``."""
    start = time.time() + max(1.0, min(3.0, games / 500))  # warm up: every player playing
    window[0], window[1] = start, start + duration
    proc = None
    if pid is not None:
        import psutil

        proc = psutil.Process(pid)
    peak = 0
    cpu_before = 0.0
    before_taken = False
    probes: list[Any] = []
    while time.time() < window[1]:
        if proc is not None:
            rss = proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True))
            peak = max(peak, rss)
        if not before_taken and time.time() >= window[0]:
            cpu_before, before_taken = _cpu_seconds(pid), True
            if probe is not None:
                probes.append(probe())
        time.sleep(0.1 if before_taken else min(0.1, max(0.0, window[0] - time.time())))
    cpu_after = _cpu_seconds(pid)
    if probe is not None:
        probes.append(probe())
    elapsed = duration
    parts = [out.get(timeout=120) for _ in workers]
    lat = sorted(x for part in parts for x in part["latencies"])
    moves = sum(int(part["moves"]) for part in parts)
    server_cpu = cpu_after - cpu_before

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else float("nan")

    return {
        "games": games,
        "think": think,
        "client_processes": len(workers),
        "seconds": round(elapsed, 2),
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1),
        "games_finished": sum(int(part["games"]) for part in parts),
        "latency_ms": {
            "p50": round(pct(50), 2),
            "p95": round(pct(95), 2),
            "p99": round(pct(99), 2),
            "max": round(1000 * lat[-1], 2) if lat else None,
        },
        "errors": sum(int(part["errors"]) for part in parts),
        "error_samples": [m for part in parts for m in part["messages"]][:8],
        "server_peak_mb": round(peak / 2**20, 1) if pid is not None else None,
        # the server's own CPU use: on a shared machine the clients compete with it
        "server_cpu_percent": round(100 * server_cpu / elapsed, 1) if pid is not None else None,
        "server_cpu_ms_per_move": round(1000 * server_cpu / moves, 3) if pid is not None and moves else None,
        "probes": probes,
    }


def _cpu_seconds(pid: int | None) -> float:
    """CPU time of the server process and its children (the store's writer process)."""
    if pid is None:
        return 0.0
    import psutil

    server = psutil.Process(pid)
    total = 0.0
    for proc in [server, *server.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue  # ended between listing and reading
        total += times.user + times.system
    return total


@contextlib.contextmanager
def served(extra: list[str], log: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """A ``tabletop serve`` on a free port with a fresh SQLite file in a temporary
    folder: yields its base URL, its process and the folder (removed afterwards).
    Its output goes to ``log`` (discarded without one)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="tabletop-bench-") as name:
        folder = Path(name)
        command = [
            str(Path(sys.executable).with_name("tabletop")),
            "serve",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{folder / 'bench.db'}",
            *extra,
        ]
        with contextlib.ExitStack() as stack:
            out: Any = subprocess.DEVNULL if log is None else stack.enter_context(log.open("wb"))
            server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
            try:
                _wait(f"http://127.0.0.1:{port}/healthz", server)
                yield f"http://127.0.0.1:{port}", server, folder
            finally:
                server.terminate()
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


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
