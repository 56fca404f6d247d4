"""The PettingZoo AEC environments: the API test for every game and option, observations, rewards,
openings as actions, illegal actions and rendering."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from tabletop import envs
from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE
from tabletop.games.mnk import RenjuBoard

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test warns that dict observations are no arrays


@pytest.mark.parametrize(
    ("game", "options", "cycles"),
    [
        ("tictactoe", {}, 1000),
        ("reversi", {}, 1000),
        ("reversi", {"size": 6}, 1000),
        ("reversi", {"size": 10}, 300),
        ("gomoku", {}, 300),
        ("gomoku", {"size": 9, "rule": "standard"}, 500),
        ("gomoku", {"size": 9, "rule": "caro"}, 500),
        ("gomoku", {"rule": "renju"}, 200),
        ("gomoku", {"rule": "renju", "forbidden_loses": True}, 200),
        ("gomoku", {"size": 9, "opening": "swap"}, 500),
        ("gomoku", {"size": 9, "opening": "swap2"}, 500),
    ],
)
def test_pettingzoo_api_test_passes(game: str, options: dict[str, object], cycles: int) -> None:
    api_test(envs.aec_env(game, render_mode="ansi", **options), num_cycles=cycles)


def test_observations_are_each_agents_stones_and_match_the_board() -> None:
    env = envs.aec_env("reversi", size=6)
    env.reset(seed=1)
    rng = random.Random(2)
    for _ in range(12):
        agent = env.agent_selection
        obs = env.observe(agent)
        board = env.unwrapped.game.board
        own = BLACK if agent == "player_0" else WHITE
        assert board.turn is own
        for col, row in board.squares():
            piece = board.piece_at(col, row)
            assert obs["observation"][row, col, 0] == (piece is own)
            assert obs["observation"][row, col, 1] == (piece is own.other)
        legal = {m.row * 6 + m.col if not m.is_pass else 36 for m in board.legal_moves}
        assert set(np.flatnonzero(obs["action_mask"])) == legal
        other = "player_1" if agent == "player_0" else "player_0"
        assert not env.observe(other)["action_mask"].any()
        env.step(rng.choice(sorted(legal)))


def test_rewards_at_the_end_and_reversi_disc_difference() -> None:
    env = envs.aec_env("tictactoe")
    env.reset()
    for action in (0, 3, 1, 4, 2):  # player_0 takes the top row
        env.step(action)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    env = envs.aec_env("reversi", size=4)
    env.reset()
    rewards = {"player_0": 0.0, "player_1": 0.0}
    final: dict[str, int] = {}
    rng = random.Random(3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        rewards[agent] += reward
        if terminated:
            final[agent] = info["disc_difference"]
            outcome = env.unwrapped.game.board.outcome()
        env.step(None if terminated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert outcome is not None and outcome.discs is not None
    black, white = outcome.discs
    assert final == {"player_0": black - white, "player_1": white - black}
    expected = 0 if black == white else (1 if black > white else -1)
    assert rewards == {"player_0": float(expected), "player_1": float(-expected)}


def test_an_illegal_action_raises_a_value_error_naming_it() -> None:
    env = envs.aec_env("reversi")
    env.reset()
    before = env.unwrapped.game.board.to_text()
    with pytest.raises(ValueError, match=r"illegal action 0: a1: flips no disc"):
        env.step(0)
    with pytest.raises(ValueError, match=r"illegal action 64: pass: black has a placement"):
        env.step(64)
    with pytest.raises(ValueError, match=r"action 65 is not an action id \(0..64\)"):
        env.step(65)
    assert env.unwrapped.game.board.to_text() == before and env.agent_selection == "player_0"
    env = envs.aec_env("gomoku", size=9, rule="renju")
    env.reset()
    env.step(40)
    with pytest.raises(ValueError, match="e5: the point is occupied"):
        env.step(40)


def test_renju_observation_marks_blacks_forbidden_points() -> None:
    env = envs.aec_env("gomoku", rule="renju")
    env.reset()
    assert env.unwrapped.game.plane_names == ("own", "opponent", "black", "forbidden")
    # Black: f8 g8 and h10 h9 (two open twos through h8); White far away in the corners
    for action in (7 * 15 + 5, 0, 7 * 15 + 6, 14, 5 * 15 + 7, 14 * 15, 6 * 15 + 7, 14 * 15 + 14):
        env.step(action)
    board = env.unwrapped.game.board
    assert isinstance(board, RenjuBoard)
    forbidden = {(m.row, m.col) for m in board.forbidden_points()}
    assert (7, 7) in forbidden
    for agent in ("player_0", "player_1"):
        planes = env.observe(agent)["observation"]
        assert {tuple(p) for p in np.argwhere(planes[:, :, 3])} == forbidden
        assert planes[:, :, 2].all() == (agent == "player_0")
    assert not env.observe("player_0")["action_mask"][7 * 15 + 7]  # not legal for Black


def test_swap2_opening_choices_are_actions() -> None:
    env = envs.aec_env("gomoku", size=9, opening="swap2")
    env.reset()
    squares = 81
    assert env.action_space("player_0").n == squares + 3
    for action in (40, 41, 31):  # the opener places Black, White, Black
        assert env.agent_selection == "player_0"
        env.step(action)
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert set(np.flatnonzero(mask)) == {squares, squares + 1, squares + 2}
    with pytest.raises(ValueError, match="the opening asks for a choice"):
        env.step(0)
    env.step(squares + 2)  # place: two more stones (White, Black) by the second
    env.step(50)
    env.step(22)
    assert env.agent_selection == "player_0"
    assert set(np.flatnonzero(env.observe("player_0")["action_mask"])) == {squares, squares + 1}
    env.step(squares + 1)  # the opener takes White: the seats swap
    game = env.unwrapped.game
    assert game.colors == [WHITE, BLACK]
    assert env.agent_selection == "player_0"  # White moves next
    assert not env.observe("player_0")["observation"][:, :, 2].any()
    assert env.observe("player_1")["observation"][:, :, 2].all()
    assert not env.observe("player_0")["observation"][:, :, 3].any()  # the opening is over
    board = game.board
    stones_of_player_1 = {(row, col) for col, row, c in board.stones() if c is BLACK}
    planes = env.observe("player_1")["observation"]
    assert {tuple(p) for p in np.argwhere(planes[:, :, 0])} == stones_of_player_1


def test_render_ansi_and_rgb_array() -> None:
    env = envs.aec_env("tictactoe", render_mode="ansi")
    env.reset()
    env.step(4)
    text = env.render()
    assert isinstance(text, str) and text.splitlines()[:3] == ["---", "-X-", "---"]
    env = envs.aec_env("reversi", render_mode="rgb_array")
    env.reset()
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape == (288, 288, 3)
    cell, margin = 32, 16
    d4 = image[margin + 3 * cell + 16, margin + 3 * cell + 16]  # White's disc
    e4 = image[margin + 3 * cell + 16, margin + 4 * cell + 16]  # Black's disc
    a1 = image[margin + 16, margin + 16]  # empty green square
    assert d4.min() > 200 and e4.max() < 60 and a1[1] > a1[0]


def test_bad_options_and_modes_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        envs.aec_env("chess")
    with pytest.raises(ValueError, match="opening rules are for gomoku"):
        envs.aec_env("reversi", opening="swap")
    with pytest.raises(ValueError, match="unknown render_mode 'human'"):
        envs.aec_env("reversi", render_mode="human")
    assert new_board("reversi", {"size": 6}).width == envs.aec_env("reversi", size=6).unwrapped.game.width


@pytest.mark.parametrize(("game", "options"), [("reversi", {}), ("reversi", {"size": 6}), ("gomoku", {"size": 9})])
def test_the_aec_env_and_vector_env_number_actions_and_planes_alike(game: str, options: dict[str, object]) -> None:
    venv = envs.VectorEnv(game, num_envs=1, seed=5, **options)
    vobs, vinfo = venv.reset()
    env = envs.aec_env(game, **options)
    env.reset()
    for _ in range(60):
        agent = env.agent_selection
        seen = env.observe(agent)
        np.testing.assert_array_equal(seen["observation"], vobs[0])
        np.testing.assert_array_equal(seen["action_mask"].astype(bool), vinfo["action_mask"][0])
        action = int(venv.random_actions()[0])
        vobs, reward, terminated, truncated, vinfo = venv.step(np.array([action]))
        env.step(action)
        if terminated[0]:
            break
