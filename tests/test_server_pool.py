"""The server's process pool outlives a worker that dies."""

from __future__ import annotations

import asyncio
import operator
import os
from concurrent.futures.process import BrokenProcessPool

import pytest

from tabletop.server.workers import Pool


def test_a_worker_that_dies_fails_its_job_and_the_next_job_gets_a_new_pool() -> None:
    async def jobs() -> int:
        pool = Pool(1)
        try:
            with pytest.raises(BrokenProcessPool):
                await pool.run(os._exit, 1)  # the worker process ends at once, as in a crash
            result: int = await pool.run(operator.add, 2, 3)
            return result
        finally:
            pool.close()

    assert asyncio.run(jobs()) == 5


def test_closing_the_pool_ends_a_job_that_is_still_running() -> None:
    import time

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
