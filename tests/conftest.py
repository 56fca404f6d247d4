"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, numba's cache filled
before the workers start, the scripts/ loader."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("dev", max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# argon2's cheapest parameters for the accounts of this run, its in-process servers and the servers it
# starts (they inherit the environment): the tests sign up and in some hundreds of times, about 0.3 CPU-s
# each at the recommended parameters.  test_accounts checks that the recommended ones are the default and
# signs up and in with them.
os.environ.setdefault("TABLETOP_PASSWORD_HASH", "cheapest")


SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def pytest_configure(config: pytest.Config) -> None:
    """Compile the engines' numba kernels into numba's cache once, in the main process, before
    any test runs.  On a fresh checkout the cache is empty, and without this every test worker
    and every server pool process that first needs an engine compiles the same kernels at the
    same time (half a minute each on one core), which made browser tests that wait for the
    computer's first decision run out of time.  xdist's workers skip it: the main process did it.
    ``TABLETOP_TEST_WARM_UP=0`` skips it for a run of tests that use no engine, or one that
    ``python -m tabletop.cli.warmup`` has just prepared (``make test``'s two runs)."""
    config.addinivalue_line(
        "markers", "own_context: a browser test whose page gets a context of its own (test_web.py's page fixture)"
    )
    if hasattr(config, "workerinput") or os.environ.get("TABLETOP_TEST_WARM_UP") == "0":
        return
    from tabletop.ai import Limit, analyse
    from tabletop.ai.gomoku.engine import warm_up
    from tabletop.games import new_board

    warm_up()
    analyse(new_board("reversi"), Limit(seconds=0.05))


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One Playwright driver and chromium for the process's browser tests (``test_web.SharedChromium``),
    started by the first file that asks for it and stopped at the end of the run."""
    from test_web import SharedChromium

    shared = SharedChromium()
    try:
        yield shared
    finally:
        shared.stop()


@pytest.fixture
def load_script() -> Callable[[str], ModuleType]:
    """Import ``scripts/NAME.py`` (the scripts are not a package) as a fresh module."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


# The files that take longest, longest first (their tests' seconds in a fresh clone's run, setup included:
# openapi 174, web 120, web_newcomer 115, reversi_train 78, gomocup 74, tournaments_scaleout 69, ...): on
# four workers a long file that starts last leaves the other workers' cores idle at the end of the run
# (longest processing time first).  xdist orders the files by their number of tests instead unless it
# is given --no-loadscope-reorder, as `make test` does: the single-test files, some of the longest, then
# came last.
LONG_FILES = ("test_openapi.py", "test_web.py", "test_web_newcomer.py", "test_reversi_train.py", "test_gomocup.py",
              "test_tournaments_scaleout.py", "test_lowest_bounds.py", "test_lobby_scaleout.py", "test_failover.py",
              "test_web_lobby.py", "test_web_import.py", "test_lobby.py", "test_analysis.py", "test_engine_startup.py",
              "test_backup.py", "test_web_analysis.py", "test_tournament_e2e.py", "test_reversi42.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of LONG_FILES first, in its order (a stable sort: the order is otherwise kept)."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))
