"""An external engine as a subprocess that speaks a line protocol: the piece the
Gomocup and NBoard controllers share.

:class:`EngineProcess` starts the command, writes one line at a time to its
stdin, and reads its stdout on a daemon thread into a queue, so waiting for a
reply can end at a deadline (a blocking ``readline`` cannot).  It knows nothing
of either protocol: the controllers say what a line means, what to send before
stopping, and how their errors read.  Failures to start or to write raise the
error class the controller gives, and so do a wait for a line that passes its
deadline and an engine whose output ends first.
"""

from __future__ import annotations

import os
import queue
import shlex
import subprocess
import threading
import time
import weakref
from collections.abc import Callable

__all__ = ["EngineProcess"]


class EngineProcess:
    """One run of ``command``; :meth:`close` (or the object being collected) stops it.

    ``error`` builds the exception for a command that cannot be read or started,
    a write to an engine that has stopped reading, and a line that does not come.  ``newline`` ends every
    line sent.  On close, ``quit_line`` is sent, stdin closed, and the process is
    killed if it has not exited within ``quit_seconds``.
    """

    def __init__(
        self,
        command: str,
        error: Callable[[str], Exception],
        *,
        newline: str = "\n",
        quit_line: str = "quit",
        quit_seconds: float = 1.0,
    ) -> None:
        self.command = command
        self._error = error
        self._newline = newline
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise error(f"cannot read the engine command {command!r}: {exc}") from None
        if not argv:
            raise error("the engine command is empty")
        try:
            # PYTHONUNBUFFERED: an engine written in Python answers at once even if it forgets to flush
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise error(f"cannot start the engine {argv[0]!r}: {exc.strerror or exc}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(self._proc, self._lines), daemon=True).start()
        self._stop = weakref.finalize(self, _stop, self._proc, quit_line + newline, quit_seconds)

    @property
    def running(self) -> bool:
        """Whether the process has not exited."""
        return self._proc.poll() is None

    def send(self, line: str) -> None:
        """Write one line (``newline`` added) and flush it."""
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + self._newline)
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):  # ValueError: stdin already closed
            word = line.split()[0] if line.split() else "a blank line"
            raise self._error(f"the engine {self.command!r} stopped reading its input (sending {word})") from None

    def read_line(self, deadline: float, what: str) -> str:
        """The engine's next line without its line end, waiting until ``deadline`` (a
        ``time.monotonic()`` value) at most; ``what`` names the awaited answer in the error
        raised when the deadline passes or the engine's output ends first."""
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise queue.Empty
            line = self._lines.get(timeout=left)
        except queue.Empty:
            raise self._error(f"the engine {self.command!r} timed out: no answer to {what} in time") from None
        if line is None:
            self._lines.put(None)  # the output stays ended for any later read
            raise self._error(f"the engine {self.command!r} exited before answering {what}")
        return line

    def close(self) -> None:
        """Send the quit line, then wait for the process and kill it if it lingers (once)."""
        self._stop()


def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert proc.stdout is not None
    for raw in proc.stdout:
        lines.put(raw.rstrip("\r\n"))
    lines.put(None)


def _stop(proc: subprocess.Popen[str], quit_line: str, quit_seconds: float) -> None:
    # a module function, not a method: the finaliser must not hold the EngineProcess alive
    try:
        if proc.poll() is None and proc.stdin is not None:
            proc.stdin.write(quit_line)
            proc.stdin.flush()
            proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass
    try:
        proc.wait(timeout=quit_seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
