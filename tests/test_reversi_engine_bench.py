"""The engine benchmark's figures and options (small settings so it stays quick)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from tabletop.bench import reversi_engine


def test_engine_figures_come_as_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(tt_mb=4.0, perft_depth=6, search_depth=4, no_ffo=True, ladder=2, levels="1-2", json=True)
    assert reversi_engine.run_engine_bench(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["perft"]["leaves"] == 8200
    assert result["search"]["nodes"] > 0 and result["search"]["nodes_per_second"] > 0
    # the pattern reading is timed beside its square-by-square definition (the run fails if they disagree)
    assert result["patterns"]["positions"] > 0 and result["patterns"]["ns_squares"] > 0 < result["patterns"]["ns_bytes"]
    assert [row["higher"] for row in result["ladder"]] == [2]
    assert 0.0 <= result["ladder"][0]["score"] <= 1.0
    assert result["peak_memory_mb"] > 0


def test_the_benchmark_process_stays_under_300_mb_once_compiled() -> None:
    # in a process of its own (a test worker's peak counts every earlier test), after a first run
    # has filled numba's cache: the one-time compilation of a cold cache peaks higher
    command = [sys.executable, "-m", "tabletop.bench.reversi_engine", "--json", "--no-ffo", "--perft-depth", "6",
               "--search-depth", "4", "--ladder", "2", "--levels", "1-2"]
    runs = [subprocess.run(command, capture_output=True, text=True, timeout=300, check=True) for _ in range(2)]
    assert 0 < json.loads(runs[1].stdout)["peak_memory_mb"] < 300


def test_shipped_ffo_positions_are_the_five_benchmark_lines() -> None:
    lines = reversi_engine.ffo_40_44()
    assert len(lines) == 5 and all(len(line.split()[0]) == 64 for line in lines)


@pytest.mark.parametrize("levels", ["0-3", "5-2", "x"])
def test_bad_ladder_levels_are_refused(levels: str) -> None:
    assert reversi_engine.main(["--no-ffo", "--perft-depth", "3", "--ladder", "1", "--levels", levels]) == 2


def test_table_size_must_be_positive() -> None:
    assert reversi_engine.main(["--tt-mb", "0"]) == 2
