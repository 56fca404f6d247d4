"""tabletop bench envs: figures for every game and one-line errors (pgx left out: it installs a venv)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.bench import envs as bench_envs
from tabletop.errors import UsageError

TABLETOP = str(Path(sys.executable).with_name("tabletop"))


def test_bench_envs_prints_a_figure_for_every_game() -> None:
    done = subprocess.run(
        [TABLETOP, "bench", "envs", "--no-pgx", "--seconds", "0.05", "--repeat", "1", "--batch", "64", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    results = json.loads(done.stdout)
    assert results["batch"] == 64 and "pgx" not in results
    assert set(results["games"]) == {"reversi 8x8", "tictactoe", "gomoku 15x15"}
    for row in results["games"].values():
        assert row["vector_steps_per_s"] > 0 and "ratio_vs_pgx" not in row
    reversi = results["games"]["reversi 8x8"]
    assert reversi["ratio_vs_rules_library"] == reversi["vector_steps_per_s"] / results["rules_library_reversi_steps_per_s"]


def test_bench_envs_table_and_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    bench_envs.add_arguments(parser)
    args = parser.parse_args(["--no-pgx", "--seconds", "0.02", "--repeat", "1", "--batch", "8"])
    assert bench_envs.run(args) == 0
    out = capsys.readouterr().out
    assert "VectorEnv" in out and "reference: rules library" in out and "gomoku 15x15" in out
    for flags, message in ((["--batch", "0"], "--batch must be 1 or more, not 0"),
                           (["--seconds", "0"], "--seconds must be positive"),
                           (["--repeat", "0"], "--repeat must be 1 or more")):
        with pytest.raises(UsageError, match=message):
            bench_envs.run(parser.parse_args(flags))
