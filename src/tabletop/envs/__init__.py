"""Environments for learning agents: PettingZoo, Gymnasium and a batched numba environment.

>>> from tabletop import envs
>>> env = envs.aec_env("reversi", size=8)            # doctest: +SKIP
>>> env = envs.gym_env("reversi", opponent="level:3", color="black")   # doctest: +SKIP
>>> venv = envs.VectorEnv("reversi", num_envs=1024, seed=0)
>>> obs, info = venv.reset(seed=0)
>>> info["action_mask"].shape
(1024, 65)

- :func:`aec_env` (:mod:`tabletop.envs.aec`): a PettingZoo ``AECEnv`` for two seats;
- :func:`gym_env` (:mod:`tabletop.envs.single`): a Gymnasium ``Env`` against any player SPEC;
- :class:`VectorEnv` (:mod:`tabletop.envs.vector`): many games stepped in one numba call.

The first two need the optional extra (``pip install tabletop[envs]``: PettingZoo and Gymnasium)
and say so when it is missing; :class:`VectorEnv` needs only numpy and numba.  All three number
actions the same way (squares in ``to_text()`` order, then Reversi's pass) and observe planes from
the acting side (own stones first).  Game rules come from :mod:`tabletop.games`; nothing here
changes a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletop.envs.vector import VectorEnv

if TYPE_CHECKING:
    from tabletop.envs.aec import TabletopAECEnv
    from tabletop.envs.single import TabletopGymEnv

__all__ = ["VectorEnv", "aec_env", "gym_env"]


def aec_env(game: str, render_mode: str | None = None, **options: Any) -> TabletopAECEnv:
    """A PettingZoo AEC environment for ``game`` (``"reversi"``, ``"gomoku"``, ``"tictactoe"``)
    with its variant ``options`` (``size``, ``rule``, ``opening``, ``forbidden_loses``)."""
    _need_extra("pettingzoo")
    from tabletop.envs.aec import TabletopAECEnv

    return TabletopAECEnv(game, render_mode=render_mode, **options)


def gym_env(
    game: str,
    opponent: str = "random",
    color: str = "black",
    render_mode: str | None = None,
    illegal_action: str = "raise",
    **options: Any,
) -> TabletopGymEnv:
    """A Gymnasium environment: the agent plays ``color`` in ``game`` against the player
    ``opponent`` (any SPEC: ``random``, ``level:N``, ``mcts:PLAYOUTS``, ``nboard:COMMAND``, ...).
    ``illegal_action``: ``"raise"`` (``ValueError``) or ``"lose"`` (the agent loses that game)."""
    _need_extra("gymnasium")
    from tabletop.envs.single import TabletopGymEnv

    return TabletopGymEnv(
        game, opponent=opponent, color=color, render_mode=render_mode, illegal_action=illegal_action, **options
    )


def _need_extra(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ModuleNotFoundError(
            f"tabletop.envs needs {module}: install the optional extra with pip install 'tabletop[envs]'"
        )
