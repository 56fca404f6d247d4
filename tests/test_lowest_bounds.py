"""The dependency bounds in pyproject.toml are the ones the code works with.

The test resolves the project's dependencies at their lowest allowed versions
(``uv pip install --resolution lowest-direct``) into a throw-away virtual
environment, checks that the server's libraries really are at their lower
bounds, and runs a few server tests there: a real ``tabletop serve``, a game
over websockets with reconnects and a followed rematch, and the schema check.

Why a test and not a separate CI job: ``make test`` is the one command that
checks the project, and a bound that drifts below what the code needs should
fail there.  It needs the package index (or uv's cache) and takes under a minute,
most of it the install; it is marked ``slow``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the libraries the server is built on, whose public API it uses
SERVER_LIBRARIES = ["fastapi", "uvicorn", "websockets", "sqlalchemy", "alembic", "pydantic", "orjson", "redis"]
# from the dev extra: only what the chosen tests import
TEST_TOOLS = ["pytest", "pytest-timeout", "httpx", "hypothesis"]
TESTS = [
    "tests/test_schema.py::test_the_migrations_build_the_tables_of_store_py_on_sqlite",
    "tests/test_server.py::test_a_move_is_acked_then_relayed_to_opponent_and_spectator_with_rising_versions",
    "tests/test_server.py::test_reconnecting_with_since_replays_exactly_the_missed_events",
    "tests/test_server.py::test_batched_sockets_follow_the_rematch_without_reconnecting",
    "tests/test_server.py::test_bad_frames_get_error_codes_and_change_nothing",
    "tests/test_server.py::test_the_lobby_lists_listed_rooms_until_someone_joins",
]


def _lower_bounds() -> dict[str, str]:
    """Each dependency's ``>=`` bound, by normalised name, from pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bounds = {}
    for spec in project["dependencies"] + project["optional-dependencies"]["dev"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9.]+)", spec.split(";")[0].strip())
        if found:
            bounds[found.group(1).lower().replace("_", "-")] = found.group(2)
    return bounds


@pytest.mark.slow
def test_the_server_works_with_every_dependency_at_its_lower_bound(tmp_path: Path) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv is needed for this test (make setup installs it in .venv)"
    venv = tmp_path / "lowest"
    python = venv / "bin" / "python"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    bounds = _lower_bounds()
    tools = [f"{name}>={bounds[name]}" for name in TEST_TOOLS]
    # no --compile-bytecode (24 CPU-s for every module of numba, numpy and the rest): the processes below
    # may write bytecode, so the first to import a module compiles it and the others read it
    writes_bytecode = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    install = subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(python)] + ["--resolution", "lowest-direct", str(ROOT), *tools],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run(
        [uv, "pip", "list", "--python", str(python), "--format", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    installed = dict(line.lower().replace("_", "-").split("==") for line in listed.splitlines() if "==" in line)
    for name in SERVER_LIBRARIES:
        assert Version(installed[name]) == Version(bounds[name]), f"{name}: {installed[name]} is not the bound"
    cli = subprocess.run(
        [str(venv / "bin" / "tabletop"), "--help"], capture_output=True, text=True, timeout=120, env=writes_bytecode
    )
    assert cli.returncode == 0, cli.stderr[-3000:]
    # the chosen tests use no engine: the suite's start-up compile of every numba kernel (minutes
    # on numba's lowest version, whose cache is this environment's own) is skipped
    run = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *TESTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**writes_bytecode, "TABLETOP_TEST_WARM_UP": "0"},
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"{len(TESTS)} passed" in run.stdout


class Version(tuple[int, ...]):
    """A release number compared by its parts (``13`` equals ``13.0``)."""

    def __new__(cls, text: str) -> Version:
        parts = [int(p) for p in re.findall(r"\d+", text.split("+")[0])]
        while parts and parts[-1] == 0:
            parts.pop()
        return super().__new__(cls, parts)
