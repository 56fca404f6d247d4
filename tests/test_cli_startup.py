"""Building the `tabletop` command's parser loads no engine: every command, `serve` and `convert` included,
would otherwise pay for numba and the compiled kernels at start-up; and running one command imports no other
command's module (an engine's first answer waits on its start-up)."""

from __future__ import annotations

import subprocess
import sys


def test_the_parser_imports_no_numba() -> None:
    code = ("import sys; from tabletop.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith(('tabletop.ai.reversi', 'tabletop.ai.gomoku', 'tabletop.envs'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.strip() == "[]"


def test_running_one_command_imports_no_other_commands_module() -> None:
    code = ("import sys; from tabletop.cli import main; main(['engine', 'gomocup', '--help'])")
    listing = "; print(sorted(m for m in sys.modules if m.startswith('tabletop.cli.')))"
    run = subprocess.run([sys.executable, "-c", f"try:\n    {code}\nexcept SystemExit:\n    pass\nimport sys{listing}"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.strip().splitlines()[-1] == "['tabletop.cli.engine']"
