"""The engine benchmark's figures and options (small settings so it stays quick)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import handmade_weights, save_weights
from tabletop.bench import reversi_engine

DATA = Path(__file__).parent / "data"


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


def test_ffo_against_a_reference_table_solves_each_position_with_both_and_gives_the_ratios(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # FFO #1-#3 (seconds in all) stand in for #40-#44, against the hand-made table
    lines = (DATA / "othello" / "fforum-1-19.obf").read_text().splitlines()[:3]
    monkeypatch.setattr(reversi_engine, "ffo_40_44", lambda: lines)
    save_weights(handmade_weights(), tmp_path / "old.npz")
    args = ["--perft-depth", "3", "--search-depth", "2", "--tt-mb", "4", "--ffo-against", str(tmp_path / "old.npz")]
    assert reversi_engine.main([*args, "--json"]) == 0
    ffo = json.loads(capsys.readouterr().out)["ffo_40_44"]
    ref = ffo["reference"]
    for table in (ffo, ref):
        assert [row["exact"] for row in table["positions"]] == [True] * 3
        assert table["total_nodes"] == sum(row["nodes"] for row in table["positions"]) > 0
    assert [row["score"] for row in ffo["positions"]] == [row["score"] for row in ref["positions"]]
    assert ffo["total_nodes"] != ref["total_nodes"]  # the reference's table orders the moves
    assert ffo["nodes_ratio"] == round(ffo["total_nodes"] / ref["total_nodes"], 3)
    assert ffo["seconds_ratio"] == round(ffo["total_seconds"] / max(ref["total_seconds"], 0.01), 3)
    assert reversi_engine.main(args) == 0
    assert f"x the seconds, {ffo['nodes_ratio']}x the nodes" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["missing", "not npz", "seven phases", "with --no-ffo"])
def test_a_bad_ffo_against_is_refused_in_one_line_before_measuring(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.npz"
    extra: list[str] = []
    if case == "not npz":
        path.write_bytes(b"not a table")
    elif case == "seven phases":
        save_weights(np.zeros((7, kernel.N_FEATURES), dtype=np.float32), path)
    elif case == "with --no-ffo":
        save_weights(handmade_weights(), path)
        extra = ["--no-ffo"]
    assert reversi_engine.main(["--ffo-against", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --ffo-against") and err.count("\n") == 1, err
