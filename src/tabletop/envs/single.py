"""The Gymnasium environment: one agent against a player SPEC.

The agent holds one seat of a :class:`tabletop.envs.game.SeatGame`; the other seat is the player
that :func:`tabletop.players.player` makes from ``opponent`` (``random``, ``greedy``, ``level:N``,
``mcts:PLAYOUTS``, ``minimax:SECONDS``, ``perfect``, ``gomocup:COMMAND``, ``nboard:COMMAND``).  The
opponent's moves are played inside :meth:`TabletopGymEnv.reset` and :meth:`TabletopGymEnv.step`,
so every observation is the agent's turn or the end of the game.

Observations are the seat's planes (``int8``, height x width x planes); ``info["action_mask"]``
holds ``int8`` ones on the legal action ids, ``info["opponent_actions"]`` the ids the opponent
played since the agent's last action; Reversi adds ``info["disc_difference"]``.  The reward is
+1/0/-1 at the end.  ``color`` is the agent's colour (with a Gomoku opening rule: its colour at
the start, ``"black"`` being the opener).

An illegal action raises ``ValueError`` naming it (``illegal_action="raise"``, the default), or,
with ``illegal_action="lose"``, loses the game at once: reward -1, ``terminated`` and
``info["illegal"]`` True, as :class:`tabletop.envs.VectorEnv` does.  The second is for tools that
step actions legal in another position: Gymnasium's ``check_env`` draws an action, resets, then
plays it, so an environment whose legal actions change from position to position passes it only
when an illegal action is a move that loses rather than an error.

The module registers the environment with Gymnasium as ``tabletop/Reversi-v0``,
``tabletop/Gomoku-v0`` and ``tabletop/TicTacToe-v0`` (the same keyword arguments), so
``gymnasium.make("tabletop.envs.single:tabletop/Reversi-v0", opponent="level:3")`` works without an
import of its own.

Players that draw random numbers (``random``, ``greedy``, ``mcts``, the levels) are reseeded from
``reset(seed=...)``, so a seeded episode is reproducible, except against a player that stops
thinking on a clock (``mcts:SECONDSs``, ``minimax``, the engines' levels): its moves depend on the
machine's speed.  A choice the opening asks of the opponent is the computer's choice of
:class:`~tabletop.games.openings.OpeningPhase` (White).
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from tabletop.envs.game import CHOICES, SeatGame
from tabletop.envs.render import board_rgb
from tabletop.games.core import Color
from tabletop.players import player

__all__ = ["GYMNASIUM_IDS", "LegalDiscrete", "TabletopGymEnv"]

GYMNASIUM_IDS = {"reversi": "tabletop/Reversi-v0", "gomoku": "tabletop/Gomoku-v0", "tictactoe": "tabletop/TicTacToe-v0"}


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n_actions)`` whose ``sample()`` draws among the legal actions of the game's
    current position (a given ``mask`` still wins), so a random agent, and Gymnasium's checker,
    never play an illegal action by chance."""

    def __init__(self, game: SeatGame) -> None:
        super().__init__(game.n_actions)
        self._game = game

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._game.legal_mask()
            if legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)


class TabletopGymEnv(gymnasium.Env[np.ndarray, np.int64]):
    """``TabletopGymEnv("reversi", opponent="level:3", color="black")``: see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        game: str,
        opponent: str = "random",
        color: str = "black",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **options: Any,
    ) -> None:
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', not {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r} (known: ansi, rgb_array)")
        self.game = SeatGame(game, **options)
        self.seat = int(Color.parse(color)) if isinstance(color, str) else -1
        if self.seat < 0:
            raise ValueError(f"color must be 'black' or 'white', not {color!r}")
        self.opponent_spec = opponent
        self.opponent = player(opponent, game=game)  # SpecError (a ValueError) names a bad SPEC
        self.render_mode = render_mode
        g = self.game
        self.observation_space = spaces.Box(0, 1, (g.height, g.width, len(g.plane_names)), np.int8)
        self.action_space = LegalDiscrete(g)
        self._opponent_actions: list[int] = []
        self._forfeited = False  # the agent played an illegal action under illegal_action="lose"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = getattr(self.opponent, "rng", None)
        if seed is not None and isinstance(rng, random.Random):
            rng.seed(int(self.np_random.integers(2**63)))
        self.game.reset()
        self._opponent_actions = []
        self._forfeited = False
        self._opponent_moves()
        return self.game.observation(self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game.is_over() or self._forfeited:
            raise ValueError("the game is over: call reset() to start another")
        self._opponent_actions = []
        try:
            self.game.play(action)  # raises ValueError naming an illegal action, before any change
        except ValueError:
            if self.illegal_action == "raise":
                raise
            self._forfeited = True
            return self.game.observation(self.seat), -1.0, True, False, self._info()
        self._opponent_moves()
        over = self.game.is_over()
        reward = float(self.game.result(self.seat)) if over else 0.0
        return self.game.observation(self.seat), reward, over, False, self._info()

    def _opponent_moves(self) -> None:
        g = self.game
        while not g.is_over() and g.actor() != self.seat:
            if g.phase is not None and g.phase.stage == "choose":
                action = g.squares + CHOICES.index(g.phase.computer_choice())
            else:
                action = g.action_of(self.opponent.choose(g.board))
            g.play(action)
            self._opponent_actions.append(action)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": np.zeros(self.game.n_actions, np.int8) if self._forfeited else self.game.legal_mask(),
            "opponent_actions": list(self._opponent_actions),
            "illegal": self._forfeited,
        }
        if self.game.game == "reversi":
            info["disc_difference"] = self.game.disc_difference(self.seat)
        return info

    def render(self) -> Any:
        if self.render_mode == "ansi":
            return self.game.text()
        if self.render_mode == "rgb_array":
            return board_rgb(self.game.board)
        return None

    def close(self) -> None:
        """Stops an external engine the opponent runs (``gomocup:``/``nboard:``)."""
        close = getattr(self.opponent, "close", None)
        if callable(close):
            close()


for _game, _id in GYMNASIUM_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="tabletop.envs.single:TabletopGymEnv", kwargs={"game": _game})
