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
