"""The tournament runner."""

from __future__ import annotations

import json

import pytest

from tabletop.cli import main
from tabletop.cli.match import elo


def test_json_result_from_a_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--games", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high"}
    assert out["games"] == 30 and out["losses"] == 0 and out["wins"] + out["draws"] == 30
    assert out["wins"] > 15 and out["elo"] > 100 and out["elo_low"] <= out["elo"] <= out["elo_high"]


def test_parallel_jobs_play_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "random", "--b", "level:10", "--games", "8", "--jobs", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 8 and out["wins"] == 0


def test_table_output_names_the_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "greedy", "--b", "random", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "A = greedy" in out and "Elo" in out


def test_elo_is_zero_for_an_even_score_and_rises_with_it() -> None:
    e, lo, hi = elo(5.0, 10, [1, 0] * 5)
    assert abs(e) < 1e-9 and lo < 0 < hi
    assert elo(7.5, 10, [1] * 7 + [0.5] + [0] * 2)[0] > 150
