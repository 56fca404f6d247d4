"""Building the `tabletop` command's parser loads no engine: every command, `serve` and `convert` included,
would otherwise pay for numba and the compiled kernels at start-up."""

from __future__ import annotations

import subprocess
import sys


def test_the_parser_imports_no_numba() -> None:
    code = ("import sys; from tabletop.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith(('tabletop.ai.reversi', 'tabletop.ai.gomoku', 'tabletop.envs'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.strip() == "[]"
