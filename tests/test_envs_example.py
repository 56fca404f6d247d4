"""examples/reversi_policy.py learns: a short run already beats tabletop's random player."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "reversi_policy.py"


def test_a_short_training_run_beats_random() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--updates", "30", "--envs", "128", "--games", "100", "--seed", "0"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    found = re.search(r"(\d+) wins, (\d+) draws, (\d+) losses", done.stdout)
    assert found, done.stdout + done.stderr
    wins, draws, losses = map(int, found.groups())
    assert wins + draws + losses == 100
    # a uniformly random player wins about 45% of 6x6 games against another; 30 updates reach 70% or more
    assert wins >= 65, done.stdout


def test_bad_arguments_get_one_line() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), "--games", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--games and --envs at least 2" in done.stderr.splitlines()[-1]
