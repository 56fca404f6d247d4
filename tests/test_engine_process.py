"""The subprocess both engine controllers (Gomocup, NBoard) run their engines in."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tabletop.protocols.process import EngineProcess


class Broken(ValueError):
    pass


def echo(tmp_path: Path, body: str) -> str:
    script = tmp_path / "engine.py"
    script.write_text(body)
    return f"{sys.executable} {script}"


ECHO = """
import sys
for line in sys.stdin:
    if line.strip() == "bye":
        break
    print("got " + line.strip())
"""


def test_lines_go_out_and_replies_come_back_without_their_line_end(tmp_path: Path) -> None:
    process = EngineProcess(echo(tmp_path, ECHO), Broken, newline="\r\n", quit_line="bye")
    try:
        process.send("hello")
        assert process.read_line(time.monotonic() + 10) == "got hello"
    finally:
        process.close()
    assert not process.running


def test_the_end_of_the_output_reads_as_none(tmp_path: Path) -> None:
    process = EngineProcess(echo(tmp_path, "print('one')\n"), Broken)
    try:
        deadline = time.monotonic() + 10
        assert process.read_line(deadline) == "one"
        assert process.read_line(deadline) is None
    finally:
        process.close()


def test_a_wait_past_its_deadline_raises_timeout_error(tmp_path: Path) -> None:
    process = EngineProcess(echo(tmp_path, "import time\ntime.sleep(30)\n"), Broken, quit_seconds=0.2)
    try:
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            process.read_line(started + 0.3)
        assert time.monotonic() - started < 5
        with pytest.raises(TimeoutError):
            process.read_line(started)  # a deadline already past: no wait at all
    finally:
        process.close()  # it ignores its input: killed after quit_seconds
    assert not process.running


def test_start_and_write_failures_raise_the_callers_error(tmp_path: Path) -> None:
    with pytest.raises(Broken, match="cannot start"):
        EngineProcess("/nonexistent/engine", Broken)
    with pytest.raises(Broken, match="empty"):
        EngineProcess("   ", Broken)
    with pytest.raises(Broken, match="cannot read"):
        EngineProcess("engine 'unclosed", Broken)
    process = EngineProcess(echo(tmp_path, "pass\n"), Broken)
    try:
        assert process.read_line(time.monotonic() + 10) is None  # it has exited
        with pytest.raises(Broken, match="stopped reading"):
            for _ in range(1000):  # the pipe's buffer may take a few lines before it breaks
                process.send("x" * 1000)
    finally:
        process.close()
