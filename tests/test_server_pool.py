"""The server's process pool outlives a worker that dies: the job runs again in a new worker,
a job that kills its worker every time fails with a clear error, and the log names each death."""

from __future__ import annotations

import asyncio
import ctypes
import logging
import operator
import os
import signal
import time

import pytest

from tabletop.server.workers import ATTEMPTS, Pool, WorkerDied, choose_job


def test_a_job_that_ends_its_worker_every_time_fails_clearly_and_the_next_job_gets_a_new_pool() -> None:
    async def jobs() -> int:
        pool = Pool(1)
        try:
            with pytest.raises(WorkerDied, match=f"died {ATTEMPTS} times \\(the last exited with code 1\\)"):
                await pool.run(os._exit, 1)  # the worker process ends at once, as in a crash
            result: int = await pool.run(operator.add, 2, 3)
            return result
        finally:
            pool.close()

    assert asyncio.run(jobs()) == 5


def test_closing_the_pool_ends_a_job_that_is_still_running() -> None:
    import psutil

    async def jobs() -> float:
        pool = Pool(1)
        try:
            worker = psutil.Process(await pool.run(os.getpid))  # the pool's one worker
            running = asyncio.ensure_future(pool.run(time.sleep, 60))
            await asyncio.sleep(0.5)  # the search is under way in the worker
            assert worker.is_running() and not running.done()
        finally:
            began = time.monotonic()
            pool.close()
        gone = psutil.wait_procs([worker], timeout=10)[0]
        assert gone == [worker], "the worker still runs the job after close()"
        running.cancel()
        return time.monotonic() - began

    assert asyncio.run(jobs()) < 5  # ended, not waited for (the job asked for 60 s)


async def _until_busy(pool: Pool, label: str) -> int:
    """The pid of the worker running the job ``label``, once it runs it (within 20 s)."""
    for _ in range(400):
        running = [pid for pid, job in pool.busy().items() if job == label]
        if running:
            return running[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no worker ran {label!r}; busy: {pool.busy()}")


REVERSI_FIRST_MOVES = {"d3", "c4", "f5", "e6"}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV], ids=["SIGKILL", "SIGSEGV"])
def test_a_computer_move_whose_worker_is_killed_is_computed_again_and_the_log_names_the_death(
    sig: signal.Signals, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tabletop.server")
    label = "room R: white's move 1 (mcts:0.5s)"

    async def jobs() -> tuple[int, str]:
        pool = Pool(1)
        try:
            job = pool.run(choose_job, "reversi", {}, None, [], "mcts:0.5s", label=label)
            move = asyncio.ensure_future(job)
            pid = await _until_busy(pool, label)
            os.kill(pid, sig)  # a real signal, as from the kernel or the out-of-memory killer
            answer: str = await move
            return pid, answer
        finally:
            pool.close()

    pid, move = asyncio.run(jobs())
    assert move in REVERSI_FIRST_MOVES
    assert f"process pool worker {pid} was killed by {sig.name} while running {label}" in caplog.text
    assert f"{label} runs again in a new worker (attempt 2 of {ATTEMPTS})" in caplog.text


def test_a_job_that_crashes_its_worker_every_time_fails_clearly_and_the_jobs_beside_it_run_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tabletop.server")
    beside = "room B: black's move 1 (mcts:1s)"

    async def jobs() -> tuple[str, BaseException | None, int]:
        pool = Pool(2)
        try:
            await asyncio.gather(pool.run(time.sleep, 0.2), pool.run(time.sleep, 0.2))  # both workers started
            job = pool.run(choose_job, "reversi", {}, None, [], "mcts:1s", label=beside)
            other = asyncio.ensure_future(job)
            await _until_busy(pool, beside)
            crash = await asyncio.gather(pool.run(ctypes.string_at, 0, label="crash"), return_exceptions=True)
            move: str = await other
            after: int = await pool.run(operator.add, 2, 3)
            return move, crash[0], after
        finally:
            pool.close()

    move, crash, after = asyncio.run(jobs())
    assert isinstance(crash, WorkerDied)  # reading address 0 in native code: a real SIGSEGV, each time
    assert str(crash) == f"the worker process died {ATTEMPTS} times (the last was killed by SIGSEGV)"
    assert caplog.text.count("was killed by SIGSEGV while running crash") == ATTEMPTS
    assert f"{beside} runs again: the process pool broke under it" in caplog.text
    assert move in REVERSI_FIRST_MOVES and after == 5
