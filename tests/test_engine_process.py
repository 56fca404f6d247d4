"""The subprocess both engine controllers (Gomocup, NBoard) run their engines in."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tabletop.protocols.process import EngineProcess


class Broken(ValueError):
    pass


def engine(tmp_path: Path, body: str) -> str:
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
    process = EngineProcess(engine(tmp_path, ECHO), Broken, newline="\r\n", quit_line="bye")
    try:
        process.send("hello")
        assert process.read_line(time.monotonic() + 10, "hello") == "got hello"
    finally:
        process.close()
    assert not process.running


def test_the_end_of_the_output_is_an_error_naming_the_answer_awaited(tmp_path: Path) -> None:
    process = EngineProcess(engine(tmp_path, "print('one')\n"), Broken)
    try:
        deadline = time.monotonic() + 10
        assert process.read_line(deadline, "the first") == "one"
        for _ in range(2):  # and stays ended
            with pytest.raises(Broken, match="exited before answering the second"):
                process.read_line(deadline, "the second")
    finally:
        process.close()


def test_a_wait_past_its_deadline_is_an_error(tmp_path: Path) -> None:
    process = EngineProcess(engine(tmp_path, "import time\ntime.sleep(30)\n"), Broken, quit_seconds=0.2)
    try:
        started = time.monotonic()
        with pytest.raises(Broken, match="timed out: no answer to go in time"):
            process.read_line(started + 0.3, "go")
        assert time.monotonic() - started < 5
        with pytest.raises(Broken, match="timed out"):
            process.read_line(started, "go")  # a deadline already past: no wait at all
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
    process = EngineProcess(engine(tmp_path, "pass\n"), Broken)
    try:
        with pytest.raises(Broken, match="exited"):
            process.read_line(time.monotonic() + 10, "anything")
        with pytest.raises(Broken, match="stopped reading"):
            for _ in range(1000):  # the pipe's buffer may take a few lines before it breaks
                process.send("x" * 1000)
    finally:
        process.close()
