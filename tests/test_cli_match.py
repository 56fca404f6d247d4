"""The tournament runner."""

from __future__ import annotations

import json

import pytest

from tabletop.cli import main
from tabletop.cli.match import elo


def test_json_result_from_a_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--games", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "black_wins", "white_wins"}
    assert out["games"] == 30 and out["losses"] == 0 and out["wins"] + out["draws"] == 30
    assert out["black_wins"] + out["white_wins"] == out["wins"]
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


def test_black_and_white_wins_are_counted_by_colour(capsys: pytest.CaptureFixture[str]) -> None:
    # perfect never loses to random, so every win is perfect's: with colours alternating it wins
    # some games as X (Black) and some as O (White), and the split must show both
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--games", "20", "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["black_wins"] + out["white_wins"] + out["draws"] == 20
    assert out["black_wins"] >= 1 and out["white_wins"] >= 1
    assert main(["match", "tictactoe", "--a", "random", "--b", "perfect", "--games", "20", "--json", "--seed", "3"]) == 0
    swapped = json.loads(capsys.readouterr().out)
    assert swapped["wins"] == 0 and swapped["black_wins"] + swapped["white_wins"] == swapped["losses"]
