"""VectorEnv: the batched numba environment agrees with the rules library move for move."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.envs import VectorEnv
from tabletop.games import mnk, reversi
from tabletop.games.core import PASS, BaseBoard, Color, Move


def _new_board(game: str, options: dict[str, object]) -> BaseBoard:
    if game == "reversi":
        return reversi.Board(size=int(options.get("size", 8)))  # type: ignore[call-overload]
    if game == "tictactoe":
        return mnk.tictactoe()
    return mnk.gomoku(size=int(options.get("size", 15)), rule=str(options.get("rule", "freestyle")))  # type: ignore[call-overload]


def _move(board: BaseBoard, action: int) -> Move:
    if action == board.width * board.height:
        return PASS
    return board.move_at(action % board.width, action // board.width)


def _mask(board: BaseBoard, n_actions: int) -> np.ndarray:
    mask = np.zeros(n_actions, dtype=bool)
    for m in board.legal_moves:
        mask[n_actions - 1 if m.is_pass else m.row * board.width + m.col] = True
    return mask


CASES = [
    ("reversi", {}, 600),
    ("reversi", {"size": 6}, 400),
    ("reversi", {"size": 4}, 200),
    ("tictactoe", {}, 200),
    ("gomoku", {"size": 9}, 400),
    ("gomoku", {"size": 15, "rule": "standard"}, 300),
    ("gomoku", {"size": 7, "rule": "caro"}, 400),
]


@pytest.mark.parametrize(("game", "options", "steps"), CASES)
def test_random_games_agree_with_the_rules_library(game: str, options: dict[str, object], steps: int) -> None:
    venv = VectorEnv(game, num_envs=6, seed=3, **options)
    obs, info = venv.reset()
    boards = [_new_board(game, options) for _ in range(venv.num_envs)]
    finished = 0
    for _ in range(steps):
        actions = venv.random_actions().copy()
        for i in range(venv.num_envs):
            assert info["action_mask"][i, actions[i]], "random_actions picked an illegal action"
        obs, reward, terminated, truncated, info = venv.step(actions)
        assert not truncated.any()
        for i, board in enumerate(boards):
            mover = board.turn
            board.push(_move(board, int(actions[i])))
            outcome = board.outcome()
            assert bool(terminated[i]) == (outcome is not None)
            if outcome is not None:
                expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner is mover else -1.0)
                assert reward[i] == expected
                if game == "reversi":
                    assert outcome.discs is not None
                    black, white = outcome.discs
                    diff = black - white if mover is Color.BLACK else white - black
                    assert info["disc_difference"][i] == diff
                finished += 1
                boards[i] = board = _new_board(game, options)
            else:
                assert reward[i] == 0.0
            assert venv.position_text(i) == board.to_text()
            assert info["to_play"][i] == int(board.turn)
            np.testing.assert_array_equal(info["action_mask"][i], _mask(board, venv.n_actions))
            own, opp = board.turn, board.turn.other
            for row in range(board.height):
                for col in range(board.width):
                    piece = board.piece_at(col, row)
                    assert obs[i, row, col, 0] == (piece is own)
                    assert obs[i, row, col, 1] == (piece is opp)
    assert finished >= 3, "the games should have ended and restarted several times"


def test_same_seed_same_games() -> None:
    runs = []
    for _ in range(2):
        venv = VectorEnv("reversi", num_envs=32, seed=11)
        obs, _ = venv.reset()
        seen = [obs.copy()]
        for _ in range(80):
            obs, reward, *_ = venv.step(venv.random_actions())
            seen.append(obs.copy())
        runs.append(np.stack(seen))
    np.testing.assert_array_equal(runs[0], runs[1])
    other = VectorEnv("reversi", num_envs=32, seed=12)
    other.reset()
    for _ in range(10):
        obs, *_ = other.step(other.random_actions())
    assert not np.array_equal(obs, runs[0][10])


def test_reset_seed_restarts_the_random_streams() -> None:
    venv = VectorEnv("gomoku", num_envs=4, size=9)
    venv.reset(seed=5)
    first = [venv.random_actions().copy() for _ in range(1)]
    venv.step(first[0])
    venv.reset(seed=5)
    np.testing.assert_array_equal(venv.random_actions(), first[0])


def test_an_illegal_action_loses_that_game_and_is_flagged() -> None:
    venv = VectorEnv("reversi", num_envs=3, seed=0)
    venv.reset()
    # game 0: c4 (legal), game 1: a1 (flips nothing), game 2: pass while placements exist
    c4 = 3 * 8 + 2
    obs, reward, terminated, truncated, info = venv.step(np.array([c4, 0, 64]))
    assert list(info["illegal"]) == [False, True, True]
    assert list(terminated) == [False, True, True]
    assert list(reward) == [0.0, -1.0, -1.0]
    assert venv.position_text(1) == reversi.Board().to_text()  # restarted
    assert venv.position_text(0) != reversi.Board().to_text()
    venv = VectorEnv("tictactoe", num_envs=1)
    venv.reset()
    venv.step(np.array([4]))
    obs, reward, terminated, truncated, info = venv.step(np.array([4]))  # occupied
    assert info["illegal"][0] and terminated[0] and reward[0] == -1.0


def test_an_action_id_out_of_range_raises_and_changes_nothing() -> None:
    venv = VectorEnv("tictactoe", num_envs=2)
    venv.reset()
    with pytest.raises(ValueError, match="action 9 of game 1 is not an action id"):
        venv.step(np.array([0, 9]))
    assert venv.position_text(0) == "---/---/--- X"
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.array([0]))


@pytest.mark.parametrize(
    ("game", "options", "message"),
    [
        ("gomoku", {"rule": "renju"}, "does not play renju"),
        ("reversi", {"size": 10}, "not size 10"),
        ("chess", {}, "unknown game"),
        ("gomoku", {"colour": 1}, "unknown option"),
        ("gomoku", {"size": 30}, "5..26"),
    ],
)
def test_bad_options_say_what_is_wrong(game: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VectorEnv(game, num_envs=2, **options)


def test_gomoku_standard_does_not_count_an_overline() -> None:
    venv = VectorEnv("gomoku", num_envs=1, size=9, rule="standard")
    venv.reset()
    # Black: a9 b9 c9 e9 f9 then d9 makes six; White plays the bottom row meanwhile
    black = [0, 1, 2, 4, 5]
    white = [72, 73, 74, 75, 80]
    for b, w in zip(black, white):
        venv.step(np.array([b]))
        venv.step(np.array([w]))
    obs, reward, terminated, truncated, info = venv.step(np.array([3]))
    assert not terminated[0] and reward[0] == 0.0


def test_module_examples_run() -> None:
    import doctest

    import tabletop.envs
    import tabletop.envs.vector

    for module in (tabletop.envs, tabletop.envs.vector):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0


def test_random_actions_are_uniform_over_the_legal_ones() -> None:
    venv = VectorEnv("tictactoe", num_envs=30_000, seed=1)
    venv.reset()
    for action in (0, 1, 2, 4, 3, 5):  # X O X / X O O / - - -: three empty squares, no line
        venv.step(np.full(venv.num_envs, action))
    counts = np.bincount(venv.random_actions(), minlength=9)
    assert counts[:6].sum() == 0
    assert np.all(np.abs(counts[6:] / venv.num_envs - 1 / 3) < 0.015), counts
    venv = VectorEnv("reversi", num_envs=30_000, seed=2)
    venv.reset()
    counts = np.bincount(venv.random_actions(), minlength=65)
    assert set(np.flatnonzero(counts)) == {19, 26, 37, 44}  # d3 c4 f5 e6
    assert np.all(np.abs(counts[[19, 26, 37, 44]] / venv.num_envs - 1 / 4) < 0.015), counts


def test_a_games_random_stream_does_not_depend_on_the_batch_size() -> None:
    small = VectorEnv("gomoku", num_envs=3, seed=21, size=9)
    large = VectorEnv("gomoku", num_envs=50, seed=21, size=9)
    small.reset()
    large.reset()
    for _ in range(40):
        a = small.random_actions().copy()
        b = large.random_actions().copy()
        np.testing.assert_array_equal(a, b[:3])
        small.step(a)
        large.step(b)
    assert [small.position_text(i) for i in range(3)] == [large.position_text(i) for i in range(3)]


def test_every_game_and_size_runs_one_compiled_version_of_each_kernel() -> None:
    """The kernels see the same array types whatever the board: one compiled version each, the one
    ``make setup`` compiles, so no size compiles anything at its first use.  Sizes whose number of
    actions is and is not a whole number of 8-byte words (a mask view that is or is not contiguous)."""
    from tabletop.envs import vector

    configs: list[tuple[str, dict[str, object]]] = [
        ("reversi", {"size": 8}), ("reversi", {"size": 6}), ("reversi", {"size": 4}), ("tictactoe", {}),
        ("gomoku", {"size": 15}), ("gomoku", {"size": 16}), ("gomoku", {"size": 20, "rule": "caro"}),
        ("gomoku", {"size": 12}),
    ]
    layouts = set()
    for game, options in configs:
        env = VectorEnv(game, num_envs=3, seed=1, **options)
        _, info = env.reset(seed=1)
        layouts.add(info["action_mask"].flags.c_contiguous)
        for _ in range(4):
            env.step(env.random_actions())
    assert layouts == {True, False}  # the callers' masks: both layouts among these sizes
    kernels = [vector._reversi_reset, vector._reversi_step, vector._reversi_random_actions,
               vector._mnk_reset, vector._mnk_step, vector._mnk_random_actions]
    assert {k.__name__: len(k.signatures) for k in kernels} == {k.__name__: 1 for k in kernels}
