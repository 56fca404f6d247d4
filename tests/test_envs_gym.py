"""The Gymnasium environment against player SPECs: Gymnasium's checker, the opponent's moves,
seeding, illegal actions."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tabletop import envs
from tabletop.envs.single import TabletopGymEnv
from tabletop.games.core import BLACK, WHITE

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the checker warns about render fps and specs

TABLETOP = str(Path(sys.executable).with_name("tabletop"))


@pytest.mark.parametrize(
    ("game", "opponent", "color", "options"),
    [
        ("tictactoe", "random", "black", {}),
        ("tictactoe", "perfect", "white", {}),
        ("reversi", "greedy", "black", {}),
        ("reversi", "greedy", "white", {"size": 6}),
        ("reversi", "mcts:30", "white", {"size": 10}),
        ("gomoku", "random", "white", {"size": 9}),
        ("gomoku", "random", "black", {"rule": "renju"}),
        ("gomoku", "random", "white", {"size": 9, "rule": "caro"}),
        ("gomoku", "random", "black", {"size": 9, "opening": "swap2"}),
    ],
)
# Opponents whose moves depend on the seed alone: the checker asks that a seeded step repeat exactly, which a
# player that stops searching on a clock (the engines' levels) cannot promise on a busy machine.
def test_gymnasium_check_env_passes(game: str, opponent: str, color: str, options: dict[str, object]) -> None:
    env = envs.gym_env(game, opponent=opponent, color=color, render_mode="rgb_array", illegal_action="lose",
                       **options)
    check_env(env)
    env.close()


def test_a_game_against_an_engine_level_to_the_end() -> None:
    env = envs.gym_env("reversi", opponent="level:3", color="black")  # the README's example
    obs, info = env.reset(seed=0)
    terminated, total, steps = False, 0.0, 0
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
        steps += 1
    outcome = env.unwrapped.game.board.outcome()
    assert outcome is not None and steps >= 10
    assert total == (0.0 if outcome.winner is None else (1.0 if outcome.winner is BLACK else -1.0))
    black, white = outcome.discs or (0, 0)
    assert info["disc_difference"] == black - white


def test_the_opponent_moves_first_when_the_agent_is_white() -> None:
    env = envs.gym_env("reversi", opponent="random", color="white")
    obs, info = env.reset(seed=4)
    assert len(info["opponent_actions"]) == 1
    board = env.unwrapped.game.board
    assert board.turn is WHITE and len(board.move_stack) == 1
    stones = {(row, col): c for col, row, c in board.stones()}
    assert {tuple(p) for p in np.argwhere(obs[:, :, 0])} == {k for k, c in stones.items() if c is WHITE}
    assert {tuple(p) for p in np.argwhere(obs[:, :, 1])} == {k for k, c in stones.items() if c is BLACK}
    assert info["disc_difference"] == -3  # one Black move turned one disc: 4 to 1


def _episode(env: TabletopGymEnv, seed: int) -> list[int]:
    obs, info = env.reset(seed=seed)
    played = list(info["opponent_actions"])
    terminated = False
    while not terminated:
        action = int(np.flatnonzero(info["action_mask"])[0])  # the agent takes its first legal action
        obs, reward, terminated, truncated, info = env.step(action)
        played += [action, *info["opponent_actions"]]
    return played


def test_a_seeded_episode_is_reproducible() -> None:
    env = envs.gym_env("gomoku", opponent="random", color="black", size=7)
    first = _episode(env, seed=9)
    assert first == _episode(env, seed=9)
    assert first != _episode(env, seed=10)


def test_rewards_are_the_result_for_the_agent() -> None:
    env = envs.gym_env("tictactoe", opponent="perfect", color="black")
    total = 0.0
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
    outcome = env.unwrapped.game.board.outcome()
    assert outcome is not None
    assert total == (0.0 if outcome.winner is None else (1.0 if outcome.winner is BLACK else -1.0))
    assert total <= 0.0  # nobody beats the perfect player


def test_an_illegal_action_raises_a_value_error_naming_it() -> None:
    env = envs.gym_env("reversi", opponent="random")
    env.reset(seed=0)
    before = env.unwrapped.game.board.to_text()
    with pytest.raises(ValueError, match="illegal action 0: a1: flips no disc"):
        env.step(0)
    with pytest.raises(ValueError, match=r"action -1 is not an action id \(0..64\)"):
        env.step(-1)
    assert env.unwrapped.game.board.to_text() == before


def test_an_illegal_action_loses_the_game_when_asked() -> None:
    env = envs.gym_env("reversi", opponent="random", illegal_action="lose")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any()
    with pytest.raises(ValueError, match="the game is over"):
        env.step(19)


def test_the_action_space_samples_legal_actions() -> None:
    env = envs.gym_env("reversi", opponent="random")
    obs, info = env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(20):
        assert info["action_mask"][env.action_space.sample()]


def test_an_external_engine_is_an_opponent() -> None:
    env = envs.gym_env("reversi", opponent=f"nboard:{TABLETOP} engine nboard", color="white")
    try:
        obs, info = env.reset(seed=0)
        assert len(info["opponent_actions"]) == 1
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert len(info["opponent_actions"]) == 1 and not terminated
    finally:
        env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": "wizard"}, "bad player spec 'wizard'"),
        ({"color": "red"}, "unknown colour 'red'"),
        ({"illegal_action": "ignore"}, "illegal_action must be"),
        ({"render_mode": "human"}, "unknown render_mode"),
    ],
)
def test_bad_arguments_say_what_is_wrong(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        envs.gym_env("reversi", **kwargs)


@pytest.mark.parametrize("env_id", ["tabletop/Reversi-v0", "tabletop/Gomoku-v0", "tabletop/TicTacToe-v0"])
def test_registered_with_gymnasium_and_every_render_mode_checks(env_id: str) -> None:
    import gymnasium

    options = {"size": 9} if "Gomoku" in env_id else {}
    env = gymnasium.make(f"tabletop.envs.single:{env_id}", opponent="random", illegal_action="lose",
                         render_mode="ansi", **options)
    check_env(env.unwrapped)  # with a spec, the checker also makes and renders each declared render mode
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()
    env.close()
