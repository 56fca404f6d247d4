"""scripts/gomoku_eval_fit.py: the self-play games, the point-pattern counts and the logistic fit."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np


def test_self_play_games_end_and_replay_to_the_same_result() -> None:
    from tabletop.games import new_board
    from tabletop.games.core import BLACK
    from tabletop.train.gomoku import play_games

    games = play_games("renju", 3, 0.05, seed=5, count=2)
    assert len(games) == 2
    for game in games:
        board = new_board("gomoku", {"rule": "renju"})
        for text in game["moves"]:
            assert board.outcome() is None  # no move after the end
            board.push(board.parse_move(text))
        outcome = board.outcome()
        assert outcome is not None
        expected = 0.5 if outcome.winner is None else (1.0 if outcome.winner is BLACK else 0.0)
        assert game["result"] == expected


def test_each_position_counts_every_empty_point_once_a_side(load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("gomoku_eval_fit")
    moves = ["h8", "h9", "i8", "g8", "i9", "j10", "i7", "i10"]
    rows, movers, hand = script._features("freestyle", moves)
    assert len(rows) == len(moves) - script.OPENING_STONES == len(movers) == len(hand)
    for ply, (row, mover) in enumerate(zip(rows, movers, strict=True), start=script.OPENING_STONES):
        counts = row.reshape(2, -1)
        assert counts.shape[1] == 495
        assert counts[0].sum() == counts[1].sum() == 15 * 15 - ply
        assert mover == (1 if ply % 2 == 0 else 2)


def test_the_logistic_fit_recovers_a_known_model(load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("gomoku_eval_fit")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4000, 3)).astype(np.float32)
    true = np.array([1.5, -2.0, 0.5, 0.3])  # the last: the bias
    p = 1 / (1 + np.exp(-(x @ true[:3] + true[3])))
    y = (rng.random(4000) < p).astype(np.float64)
    w = script._fit_logistic(x, y, ridge=0.0, steps=10)
    assert np.allclose(w, true, atol=0.2)


def test_the_engine_values_a_position_as_the_shipped_model_does(load_script: Callable[[str], ModuleType]) -> None:
    """The kernels' table (every order of four patterns, both roles, both colours) and their
    running sums give the model's own log-odds, computed here from the script's counts."""
    from tabletop.ai.gomoku.evaluation import HERE, SCALE, family

    script = load_script("gomoku_eval_fit")
    moves = ["h8", "h9", "i8", "g8", "i9", "j10", "i7", "i10", "g7", "j9", "k10", "f6", "j7"]
    for rule in ("freestyle", "renju", "caro"):
        models = np.load(HERE / f"eval-{family(rule)}.npz")
        rows, movers, values = script._features(rule, moves)
        for row, mover, value in zip(rows, movers, values, strict=True):
            model = models["all"] if "all" in models else models["black_to_move" if mover == 1 else "white_to_move"]
            # the kernels' table holds each weight times SCALE, rounded to an integer
            units = np.rint(model.astype(np.float64) * SCALE)
            assert value == float(row.astype(np.float64) @ units[:-1] + units[-1]), (rule, mover)
