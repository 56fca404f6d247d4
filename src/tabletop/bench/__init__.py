"""Benchmark targets of ``tabletop bench``; each prints its figures beside a reference run.

:func:`peak_rss_mb` and :func:`vmhwm_bytes` are the one way the benchmarks read a process's peak memory;
:func:`add_gomoku_match_arguments` the one definition of the Gomoku engine's match options
(``tabletop bench gomoku`` and its engine part run alone); :func:`reference_python` the one way a
benchmark installs an outside program it measures against.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
from pathlib import Path


def add_gomoku_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The strength matches of the Gomoku engine benchmark (cheap to import: no engine here)."""
    parser.add_argument("--vs-gomoku-terminal", type=int, default=0, metavar="N",
                        help="also play N games against gomoku-terminal's hard AI (installed into .bench-envs/)")
    parser.add_argument("--vs-mcts", type=int, default=0, metavar="N",
                        help="also play N games (15x15 freestyle) against this project's mcts at ten times our time")
    parser.add_argument("--think", type=float, default=2.0,
                        help="our seconds per move in those games, and the --vs engine's too (default 2)")


def reference_python(root: Path, name: str, *requirements: str) -> Path:
    """The python of the virtual environment ``root/.bench-envs/NAME`` holding ``requirements``
    (pinned, like ``renju==0.1.0``), created and installed on first use.

    An outside program runs in its own environment so that its dependencies never meet the
    project's.  The pins are written beside it once they are installed, so an install that
    failed halfway, or a change of pin, is installed again on the next run.

    uv (``make setup`` puts it beside the project's python) makes the environment and installs, where
    it is found: reversi42's install took pip 20 CPU-s and 112 s, uv 0.7 CPU-s and 4 s from its cache
    (pip resolves in Python and compiles every module it installs).  Without uv, venv and pip do it.
    """
    env = root / ".bench-envs" / name
    python = env / "bin" / "python"
    stamp = env / "tabletop-requirements.txt"
    wanted = "\n".join(requirements) + "\n"
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not python.exists():
        if uv:
            subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(env)], check=True)
        else:
            subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    if not stamp.exists() or stamp.read_text() != wanted:
        if uv:
            subprocess.run([uv, "pip", "install", "-q", "--python", str(python), *requirements], check=True)
        else:
            if not (env / "bin" / "pip").exists():  # an environment uv made has no pip of its own
                subprocess.run([str(python), "-m", "ensurepip", "-q"], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], check=True)
        stamp.write_text(wanted)
    return python


def vmhwm_bytes(pid: int | str = "self") -> int | None:
    """Peak resident memory (``VmHWM`` in ``/proc/PID/status``) of a process, or None where
    the OS has no such file."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB.

    On Linux it reads ``VmHWM`` from ``/proc/self/status``: ``ru_maxrss`` keeps
    the high-water mark of the process that forked us across ``exec``, so a
    benchmark started from a large process (a test worker) would report that
    process's size instead of its own.
    """
    peak_bytes = vmhwm_bytes()
    if peak_bytes is not None:
        return peak_bytes / (1024 * 1024)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
