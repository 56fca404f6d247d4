"""A ``tabletop serve`` whose worker process dies while the computer thinks (a real SIGKILL, a
real SIGSEGV): a new worker computes the move again, the player gets it with no error, the
game goes on, and the server's log names the death, the room and the move.  A game analysis
whose worker dies likewise finishes every position."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tabletop.games.reversi import Board
from tabletop.server.workers import ATTEMPTS
from test_server import Server, state

COMPUTER = "mcts:1s"  # thinks its full second: time to find its worker and kill it meanwhile


class ServerWithLog(Server):
    """A server with one pool worker whose output (its log) is read while it runs."""

    def __init__(self, database: Path) -> None:
        super().__init__(database, "--workers", "1")
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        self.output = ""

    def log(self) -> str:
        """What the server wrote so far."""
        assert self.process.stdout is not None
        while True:
            try:
                chunk = os.read(self.process.stdout.fileno(), 65536)
            except BlockingIOError:
                return self.output
            if not chunk:
                return self.output
            self.output += chunk.decode(errors="replace")

    def wait_log(self, text: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log():
            assert time.monotonic() < deadline, f"{text!r} not in the server's log:\n{self.output[-3000:]}"
            time.sleep(0.05)

    def thinking_worker(self, timeout: float = 20, killed: frozenset[int] = frozenset()) -> int:
        """The pid of the pool worker running a job: of the processes the server started through
        its forkserver (the store's writer among them), the one whose note on the pool's desk
        (``tabletop-pool-*/PID`` in the temporary directory) holds a job's token."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for child in psutil.Process(self.process.pid).children(recursive=True):
                if child.pid in killed:
                    continue
                for note in Path(tempfile.gettempdir()).glob(f"tabletop-pool-*/{child.pid}"):
                    with contextlib.suppress(OSError):
                        if note.read_text().strip():
                            return child.pid
            time.sleep(0.05)
        raise AssertionError("no pool worker ran a job")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerWithLog]:
    s = ServerWithLog(tmp_path_factory.mktemp("server") / "rooms.db")
    try:
        yield s
    finally:
        s.stop()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV], ids=["SIGKILL", "SIGSEGV"])
def test_the_computers_move_comes_after_its_worker_dies_and_the_log_names_the_death(
    server: ServerWithLog, sig: signal.Signals
) -> None:
    data = server.http.post(
        "/api/rooms", json={"game": "reversi", "mode": "local", "seats": {"white": COMPUTER}}
    ).json()
    room = data["room"]
    board = Board()
    sock = server.ws(room)
    try:
        sock.hello(data["tokens"]["black"])

        def black_moves(seq: int) -> None:
            """Black plays its first legal move, and the computer starts thinking."""
            move = str(board.legal_moves[0])
            board.push(move)
            sock.send({"type": "move", "move": move, "seq": seq})
            sock.ack(seq)
            sock.event("thinking")

        def white_moves() -> None:
            """The computer's move arrives (Black's own move event passes before it)."""
            played = sock.until(
                lambda f: (
                    f["type"] == "event"
                    and f["event"]["kind"] == "move_played"
                    and f["event"]["color"] == "white"
                )
            )
            board.push(played["event"]["move"])

        black_moves(1)
        worker = server.thinking_worker()
        os.kill(worker, sig)
        white_moves()
        assert [f for f in sock.seen if f["type"] == "error"] == []

        label = f"room {room}: white's move 2 ({COMPUTER})"
        server.wait_log(f"process pool worker {worker} was killed by {sig.name} while running {label}")
        server.wait_log(f"{label} runs again in a new worker (attempt 2 of 3)")

        black_moves(2)  # the game goes on: the computer answers from its new worker
        white_moves()
        assert [f for f in sock.seen if f["type"] == "error"] == []
        final = state(server, room)
        assert final["moves"] == [str(m) for m in board.move_stack] and final["turn"] == "black"
    finally:
        sock.close()


def test_a_game_analysis_whose_worker_dies_still_covers_every_position(server: ServerWithLog) -> None:
    data = server.http.post("/api/rooms", json={"game": "reversi", "mode": "local"}).json()
    room = data["room"]
    board = Board()
    sock = server.ws(room)
    try:
        sock.hello(data["tokens"]["black"], data["tokens"]["white"])
        for seq in range(1, 17):  # both seats from one screen: sixteen moves (no pass) to analyse
            move = str(board.legal_moves[0])
            board.push(move)
            sock.send({"type": "move", "move": move, "seq": seq})
            sock.ack(seq)
    finally:
        sock.close()
    started = server.http.post(f"/api/rooms/{room}/analysis")
    assert started.status_code == 202, started.text
    worker = server.thinking_worker()
    os.kill(worker, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while (analysis := server.http.get(f"/api/rooms/{room}/analysis").json())["status"] == "running":
        assert time.monotonic() < deadline, "the analysis did not end"
        time.sleep(0.2)
    assert analysis["status"] == "done" and analysis["done"] == 17
    assert [p["ply"] for p in analysis["positions"]] == list(range(17))
    assert all(p["best"] for p in analysis["positions"][:-1])
    label = f"room {room}: the game's analysis"
    server.wait_log(f"process pool worker {worker} was killed by SIGKILL while running {label}")


def test_a_computer_whose_worker_dies_every_time_fails_with_a_clear_error_not_a_hang(
    server: ServerWithLog,
) -> None:
    data = server.http.post(
        "/api/rooms", json={"game": "reversi", "mode": "local", "seats": {"white": COMPUTER}}
    ).json()
    room = data["room"]
    sock = server.ws(room)
    try:
        sock.hello(data["tokens"]["black"])
        sock.send({"type": "move", "move": "f5", "seq": 1})
        sock.event("thinking")
        killed: set[int] = set()
        for _ in range(ATTEMPTS):  # each new worker dies as soon as it starts the move
            worker = server.thinking_worker(killed=frozenset(killed))
            os.kill(worker, signal.SIGKILL)
            killed.add(worker)
        error = sock.error("engine_failed")
        died = f"the worker process died {ATTEMPTS} times (the last was killed by SIGKILL)"
        assert error["message"] == f"the computer ({COMPUTER}) failed: {died}"
        assert state(server, room)["moves"] == ["f5"]  # the room stays as it was, White to move
        assert state(server, room)["turn"] == "white"
    finally:
        sock.close()
    label = f"room {room}: white's move 2 ({COMPUTER})"
    server.wait_log(f"{label} failed: a worker process died {ATTEMPTS} times")
