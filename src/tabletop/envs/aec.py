"""The PettingZoo AEC environment: two seats take turns in one game of the rules library.

Agents ``"player_0"`` (starts as Black, the opener of an opening rule) and ``"player_1"``.  Each
agent observes ``{"observation": planes, "action_mask": mask}`` as PettingZoo's classic games do:
the planes of :class:`tabletop.envs.game.SeatGame` from its side (``int8``, height x width x
planes) and ``int8`` ones on its legal action ids (all zeros when it is not its turn).  The mask is
also in ``infos[agent]["action_mask"]``.  Rewards are +1/0/-1 when the game ends; Reversi's disc
difference (the agent's discs minus the other's) is in ``infos[agent]["disc_difference"]``.

During a Gomoku opening (``opening="swap"`` or ``"swap2"``) the same agent may act several times
in a row (it places the opening stones); an opening choice that takes the other colour swaps the
agents' colours, and the ``black`` plane says which colour each agent holds.

An illegal action raises ``ValueError`` naming it and changes nothing.  ``render_mode`` ``"ansi"``
returns the board as text, ``"rgb_array"`` as a numpy picture (:func:`tabletop.envs.render.board_rgb`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from tabletop.envs.game import SeatGame
from tabletop.envs.render import board_rgb

__all__ = ["TabletopAECEnv"]

AGENTS = ("player_0", "player_1")


class TabletopAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """``TabletopAECEnv("reversi", size=6)``: see the module docstring."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "tabletop_v0",
        "is_parallelizable": False,
    }

    def __init__(self, game: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r} (known: ansi, rgb_array)")
        self.game = SeatGame(game, **options)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        g = self.game
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (g.height, g.width, len(g.plane_names)), np.int8),
                    "action_mask": spaces.Box(0, 1, (g.n_actions,), np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(g.n_actions) for agent in AGENTS}
        self._setup()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _setup(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self.game.actor()]
        self._update_infos()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (the rules involve no chance: ``seed`` only seeds the action spaces)."""
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self.game.reset()
        self._setup()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        mask = self.game.legal_mask() if seat == self.game.actor() else np.zeros(self.game.n_actions, np.int8)
        return {"observation": self.game.observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is an action only once the game is over")
        self.game.play(action)  # raises ValueError naming an illegal action, before any change
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if self.game.is_over():
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = float(self.game.result(seat))
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]  # the other agent takes its last turn
        else:
            self.agent_selection = AGENTS[self.game.actor()]
        self._update_infos()
        self._accumulate_rewards()

    def _update_infos(self) -> None:
        actor = self.game.actor() if not self.game.is_over() else -1
        for seat, name in enumerate(AGENTS):
            info: dict[str, Any] = {
                "action_mask": self.game.legal_mask() if seat == actor else np.zeros(self.game.n_actions, np.int8)
            }
            if self.game.game == "reversi":
                info["disc_difference"] = self.game.disc_difference(seat)
            self.infos[name] = info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.game.text()
        if self.render_mode == "rgb_array":
            return board_rgb(self.game.board)
        return None

    def close(self) -> None:
        """Nothing to release: the environment holds no window, file or process."""
