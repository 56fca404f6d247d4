"""The process pool where computer seats think and positions are analysed.

Searching is CPU work; done on the event loop it would freeze every room of
the server.  Each job gets plain values (game, options, start position, moves)
and rebuilds its own board, so nothing but text crosses the process boundary.
A worker that dies (a crash in native code, a kill) is replaced and its jobs
run again (:class:`Pool`).  This module must not touch the store, the bus or
any socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import itertools
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from multiprocessing.queues import SimpleQueue
from typing import Any, cast

import psutil

__all__ = [
    "ATTEMPTS",
    "AnalysisUnavailable",
    "Death",
    "Pool",
    "WorkerDied",
    "analyse_job",
    "choose_job",
    "evaluate_job",
    "opening_job",
]

log = logging.getLogger("tabletop.server")


class AnalysisUnavailable(ValueError):
    """The engine cannot analyse this position (a board size it does not play, say).

    Distinct from a bad position (a plain ``ValueError``) so the server can say
    which of the two went wrong; defined here so it crosses the process pool."""


def _analyse(board: Any, seconds: float) -> Any:
    from tabletop.ai import Limit, analyse

    try:
        return analyse(board, Limit(seconds=seconds))
    except (ValueError, NotImplementedError) as exc:
        raise AnalysisUnavailable(f"no analysis for this position: {exc}") from None


def _board(game: str, options: dict[str, Any], position: str | None, moves: list[str]) -> Any:
    from tabletop.games import new_board

    board_options = {k: v for k, v in options.items() if k != "opening"}
    board = new_board(game, board_options, position)
    for text in moves:
        board.push(board.parse_move(text))
    return board


def choose_job(game: str, options: dict[str, Any], position: str | None, moves: list[str], spec: str) -> str:
    """The move the player ``spec`` chooses after ``moves``."""
    from tabletop.players import player

    board = _board(game, options, position, moves)
    return str(player(spec, game=game).choose(board, None))


def opening_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], opening: dict[str, Any], seed: int
) -> dict[str, object]:
    """A computer seat's answer to the pending step of a swap/swap2 opening (``opening``: the phase
    as :meth:`OpeningPhase.to_dict` gives it): ``{"choice", "stones", "score", "options"}``, the
    choice ``None`` when the seat only places stones."""
    from tabletop.ai.gomoku.openings import decide_opening
    from tabletop.games.core import BLACK, WHITE
    from tabletop.games.openings import OpeningPhase

    board = _board(game, options, position, moves)
    phase = OpeningPhase(
        str(opening["rule"]),
        stage=str(opening["stage"]),
        actor=BLACK if opening["actor"] == "black" else WHITE,
        stones_left=int(opening["stones_left"]),
        options=tuple(opening["options"]),
        stones_placed=int(opening["stones_placed"]),
    )
    decision = decide_opening(board, phase, seed=seed)
    return {
        "choice": decision.choice,
        "stones": [str(m) for m in decision.stones],
        "score": decision.score,
        "options": decision.options,
    }


def analyse_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], seconds: float
) -> dict[str, object]:
    """The engine's analysis of the position after ``moves``: ``ValueError`` for a
    bad position or move, :class:`AnalysisUnavailable` when no engine can analyse it."""
    board = _board(game, options, position, moves)
    if board.is_game_over():
        return {"scores": [], "pv": [], "depth": 0, "nodes": 0, "seconds": 0.0, "forced_win": None}
    result: dict[str, object] = _analyse(board, seconds).to_dict()
    return result


def evaluate_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], seconds: float
) -> list[float | None]:
    """A score for every ply (0 = start) from Black's side: the best move's score
    for the side to move, or the result once the game is over; ``None`` where the
    engine gave none (or cannot analyse the board at all)."""
    from tabletop.games.core import BLACK

    board = _board(game, options, position, [])
    scores: list[float | None] = []
    for i in range(len(moves) + 1):
        if board.is_game_over():
            outcome = board.outcome()
            black, white = outcome.score if outcome is not None else (0, 0)
            scores.append(
                float(black - white) if game == "reversi" else float((black > white) - (white > black))
            )
        else:
            try:
                analysis = _analyse(board, seconds)
                best = analysis.scores[0].score if analysis.scores else None
            except AnalysisUnavailable:
                best = None
            scores.append(None if best is None else (best if board.turn is BLACK else -best))
        if i < len(moves):
            board.push(board.parse_move(moves[i]))
    return scores


# A job whose worker process dies under it runs this many times in all before it fails; a job
# caught in pool breaks that other jobs caused gives up after BREAKS of them (never a hang).
ATTEMPTS = 3
BREAKS = 10


class WorkerDied(BrokenProcessPool):
    """A job failed because worker processes died under it too often (a crash in native code
    each time it runs, say); the message says how the last one ended."""


def _how(exitcode: int | None) -> str:
    """How a process ended, in words, from its exit code (``-N``: killed by signal N)."""
    if exitcode is None:
        return "died (its exit code is unknown)"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"was killed by {name}"
    return f"exited with code {exitcode}"


def _note(path: str, text: str) -> None:
    """Write ``text`` to ``path``; a failure only loses the note, never the job."""
    with contextlib.suppress(OSError), open(path, "w", encoding="ascii") as f:
        f.write(text)


def _start_worker(started: SimpleQueue[int], desk: str, warm: bool = False) -> None:
    """A worker's initializer: tell the pool which process it is (so that :meth:`Pool.close` can
    end it), open its note on the desk, and have a crash in native code print the Python stack
    to the server's error output (faulthandler re-raises the signal, so the exit code keeps it).
    ``warm``: load every engine's compiled kernels now (from numba's cache: a second or two), so
    that no computer move, also the first after a worker is replaced, waits for them."""
    started.put(os.getpid())
    _note(os.path.join(desk, str(os.getpid())), "")
    faulthandler.enable()
    if warm:
        try:
            from tabletop.ai.warmup import load_engines

            load_engines()
        except Exception:  # an initializer that raises breaks the pool: the first move loads them
            log.exception("process pool worker %d could not load the engines ahead", os.getpid())


def _ready() -> int:
    """A job that only says which worker ran it (:meth:`Pool.warm`)."""
    return os.getpid()


def _tracked(desk: str, token: int, fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)`` in a worker with the job's token on the worker's note meanwhile: a file
    per process, not a queue, because a process killed while writing to a shared queue leaves
    its lock taken.  After a death the pool reads the dead worker's note to name its job."""
    note = os.path.join(desk, str(os.getpid()))
    _note(note, str(token))
    try:
        return fn(*args)
    finally:
        _note(note, "")


def _job_of(desk: str, pid: int) -> int | None:
    """The token on a worker's note: the job it is (or was, when it died) running; None: idle."""
    try:
        with open(os.path.join(desk, str(pid)), encoding="ascii") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


class _Recording:
    """A multiprocessing context that keeps each process it makes.  The executor launches its
    workers through ``mp_context.Process`` and keeps no public list of them; these objects give
    a dead worker's exit code (``-11``: SIGSEGV) once the executor has joined it."""

    def __init__(self, context: BaseContext) -> None:
        self.context: Any = context  # typeshed's BaseContext lacks the Process of every real context
        self.processes: list[BaseProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> BaseProcess:  # noqa: N802 - the context's own name
        process: BaseProcess = self.context.Process(*args, **kwargs)
        self.processes.append(process)
        return process

    def __getattr__(self, name: str) -> Any:
        return getattr(self.context, name)


@dataclass(frozen=True)
class Death:
    """A worker process that ended while the pool ran: its pid, how it ended, and the token of
    the job it was running (``None``: idle, or not known)."""

    pid: int
    how: str
    token: int | None


class _Generation:
    """One executor of the pool and what is known of its workers."""

    def __init__(
        self, executor: Executor, desk: str, recording: _Recording | None, started: SimpleQueue[int] | None
    ) -> None:
        self.executor = executor
        self.desk = desk
        self.recording = recording
        self.started = started  # the pids its workers report as they start
        self.reported: list[psutil.Process] = []
        self.deaths: asyncio.Task[list[Death]] | None = None  # the post-mortem, once it broke


class Pool:
    """A lazily started process pool (``forkserver``: safe beside the server's threads) that
    outlives its workers.

    When a worker dies (a crash in native code, the out-of-memory killer), the
    :class:`~concurrent.futures.ProcessPoolExecutor` fails every job it holds with
    :class:`BrokenProcessPool`.  :meth:`run` then logs which worker died, how, and which job it
    was running, starts a new executor and runs the job again: the job that was running in
    the dead worker at most :data:`ATTEMPTS` times in all (then :class:`WorkerDied`), the
    others caught in the break up to :data:`BREAKS` breaks.

    The executor can cancel a job that waits but not end one that runs, and has no public list
    of its workers: each worker reports its process id when it starts, so :meth:`close` can
    end them, and keeps a note of the job it runs on the pool's desk (a temporary directory
    ``tabletop-pool-*``: a file per worker named by its pid, holding the job's token, empty
    while it idles)."""

    def __init__(self, workers: int = 2, executor: Executor | None = None, warm: bool = False) -> None:
        """``executor``: the first executor to use (one built here replaces it if it breaks);
        ``warm``: each worker loads the engines' kernels when it starts (:meth:`warm`)."""
        self.workers = max(1, workers)
        self.warm_workers = warm
        self._desk: str | None = None  # a temporary directory: one note per worker process
        self._first = executor
        self._current: _Generation | None = None
        self._labels: dict[int, str] = {}  # the jobs being awaited, by token
        self._tokens = itertools.count(1)

    def _generation(self) -> _Generation:
        if self._desk is None:
            self._desk = tempfile.mkdtemp(prefix="tabletop-pool-")
        if self._current is None and self._first is not None:
            self._current = _Generation(self._first, self._desk, None, None)
            self._first = None
        if self._current is None:
            context: BaseContext = multiprocessing.get_context("spawn")
            if "forkserver" in multiprocessing.get_all_start_methods():
                forkserver = multiprocessing.get_context("forkserver")
                # Workers forked with this module loaded start in a few milliseconds, not half a
                # second: a dead worker's job starts again at once (no effect once the forkserver runs)
                forkserver.set_forkserver_preload(["__main__", __name__])
                context = forkserver
            recording = _Recording(context)
            started: SimpleQueue[int] = context.SimpleQueue()
            executor = ProcessPoolExecutor(
                self.workers,
                mp_context=cast(BaseContext, recording),  # it passes everything but Process on
                initializer=_start_worker,
                initargs=(started, self._desk, self.warm_workers),
            )
            self._current = _Generation(executor, self._desk, recording, started)
        return self._current

    async def warm(self) -> None:
        """Start every worker now: one job each, sent together, so that the executor starts a
        worker for each (it starts one whenever a job finds none idle) and each loads the engines
        in its initializer before the server takes a request."""
        await asyncio.gather(*(self.run(_ready, label="the pool's start") for _ in range(self.workers)))

    async def run(self, fn: Any, *args: Any, label: str = "a job") -> Any:
        """``fn(*args)`` in a worker process; ``label`` names the job in the log (its room and
        move, say).  Raises what ``fn`` raises, or :class:`WorkerDied`."""
        token = next(self._tokens)
        self._labels[token] = label
        attempts = breaks = 0
        try:
            while True:
                generation = self._generation()
                try:
                    return await asyncio.get_running_loop().run_in_executor(
                        generation.executor, _tracked, generation.desk, token, fn, *args
                    )
                except BrokenProcessPool:
                    deaths = await self._bury(generation)
                breaks += 1
                mine = [d for d in deaths if d.token == token]
                attempts += bool(mine)
                if attempts >= ATTEMPTS or breaks >= BREAKS:
                    how = mine[0].how if mine else (deaths[0].how if deaths else "died")
                    times = f"{attempts} times" if attempts >= ATTEMPTS else f"under it {breaks} times"
                    log.error("%s failed: a worker process died %s (the last %s)", label, times, how)
                    raise WorkerDied(f"the worker process died {times} (the last {how})") from None
                if mine:
                    log.warning(
                        "%s runs again in a new worker (attempt %d of %d)", label, attempts + 1, ATTEMPTS
                    )
                else:
                    log.info("%s runs again: the process pool broke under it", label)
        finally:
            del self._labels[token]

    async def _bury(self, generation: _Generation) -> list[Death]:
        """The workers of a broken executor that died, once it is shut down; the first job to
        find it broken starts the post-mortem (and a new executor for the next job)."""
        if self._current is generation:
            self._current = None
        if generation.deaths is None:
            generation.deaths = asyncio.ensure_future(self._post_mortem(generation))
        return await asyncio.shield(generation.deaths)

    async def _post_mortem(self, generation: _Generation) -> list[Death]:
        # The executor joins its processes before its shutdown returns: their exit codes are final then
        shutdown = asyncio.to_thread(generation.executor.shutdown, True, cancel_futures=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shutdown, 10)
        processes = [] if generation.recording is None else generation.recording.processes
        ended = [(p.pid, p.exitcode) for p in processes if p.pid is not None and p.exitcode is not None]
        # The executor ends the workers that survived with SIGTERM; the others died on their own
        dead = [(pid, code) for pid, code in ended if code != -signal.SIGTERM] or ended
        deaths = [Death(pid, _how(code), _job_of(generation.desk, pid)) for pid, code in dead]
        for death in deaths:
            job = "while idle" if death.token is None else f"while running {self._label(death.token)}"
            log.warning("process pool worker %d %s %s; new workers replace it", death.pid, death.how, job)
        if not deaths:
            log.warning("the process pool broke (a worker died, which one is unknown); it starts new workers")
        for pid, _ in ended:
            with contextlib.suppress(OSError):
                os.remove(os.path.join(generation.desk, str(pid)))
        return deaths

    def _label(self, token: int) -> str:
        return self._labels.get(token, "a job no longer awaited")

    def busy(self) -> dict[int, str]:
        """The worker processes running a job now: pid → the job's label."""
        generation = self._current
        if generation is None:
            return {}
        return {
            pid: self._label(token)
            for pid in (p.pid for p in self._workers())
            if (token := _job_of(generation.desk, pid)) is not None
        }

    def _workers(self) -> list[psutil.Process]:
        """The current executor's worker processes that have reported (and still run)."""
        generation = self._current
        if generation is None:
            return []
        started = generation.started
        while started is not None and not started.empty():
            with contextlib.suppress(psutil.Error):
                # psutil.Process remembers the start time: a pid reused later is not ended
                generation.reported.append(psutil.Process(started.get()))
        return [p for p in generation.reported if p.is_running()]

    def close(self) -> None:
        """Stop the pool at once: a search still running is ended, not waited for
        (its room stored nothing for it, and thinks again after a restart)."""
        if self._current is not None:
            workers = self._workers()
            executor, self._current = self._current.executor, None
            executor.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                with contextlib.suppress(psutil.Error):
                    process.terminate()
            psutil.wait_procs(workers, timeout=2)
        if self._desk is not None:
            shutil.rmtree(self._desk, ignore_errors=True)
            self._desk = None
