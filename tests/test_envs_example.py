"""examples/reversi_policy.py learns: a short run already beats tabletop's random player."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_bad_arguments_get_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("reversi_policy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "reversi_policy", example)  # its dataclasses look their module up
    spec.loader.exec_module(example)
    with pytest.raises(SystemExit) as exited:
        example.main(["--games", "1"])
    assert exited.value.code == 2
    assert "--games and --envs at least 2" in capsys.readouterr().err.splitlines()[-1]
