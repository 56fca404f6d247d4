"""The one place a player SPEC becomes a player.

SPECs: ``random``, ``greedy``, ``mcts:PLAYOUTS`` (or ``mcts:SECONDSs``), ``minimax:SECONDS``,
``perfect`` (Tic-tac-toe), ``level:N`` (1..10, per game), ``gomocup:COMMAND`` and ``nboard:COMMAND``
(external engines).  This module sits above :mod:`tabletop.ai` (the players that think in-process) and
:mod:`tabletop.protocols` (the controllers of external engines), so neither of them needs the other.
It reads SPECs only; it never plays.

>>> player("random").name
'random'
>>> player("mcts:200").name
'mcts:200'
"""

from __future__ import annotations

from tabletop.ai.base import Player

__all__ = ["SpecError", "player"]

_EXPECTED = "expected random, greedy, perfect, mcts:PLAYOUTS, minimax:SECONDS, level:N, gomocup:COMMAND or nboard:COMMAND"


class SpecError(ValueError):
    """A player SPEC that cannot be read; the message names the problem."""


def player(spec: str, game: str | None = None) -> Player:
    """The player named by ``spec`` (see the module docstring); ``game`` picks the engine of ``level:N``.

    Raises :class:`SpecError` for a SPEC it cannot read.  An external engine's command is not started
    here: its controller starts it on the first move.
    """
    from tabletop.ai import generic

    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "random" and not arg:
        return generic.RandomPlayer()
    if kind == "greedy" and not arg:
        return generic.GreedyPlayer()
    if kind == "perfect" and not arg:
        from tabletop.ai.tictactoe import PerfectPlayer

        return PerfectPlayer()
    if kind == "mcts":
        if arg.endswith("s"):
            return generic.MCTSPlayer(seconds=_positive_float(spec, arg[:-1]))
        return generic.MCTSPlayer(playouts=_positive_int(spec, arg or "1000"))
    if kind == "minimax":
        return generic.MinimaxPlayer(seconds=_positive_float(spec, arg or "1"))
    if kind == "level":
        n = _positive_int(spec, arg)
        if not 1 <= n <= 10:
            raise SpecError(f"bad player spec {spec!r}: level must be 1..10")
        from tabletop.ai.levels import LevelPlayer

        return LevelPlayer(n, game=game)
    if kind == "gomocup" and arg:
        from tabletop.protocols.gomocup import GomocupPlayer

        return GomocupPlayer(arg)
    if kind == "nboard" and arg:
        from tabletop.protocols.nboard import NBoardPlayer

        return NBoardPlayer(arg)
    raise SpecError(f"bad player spec {spec!r}: {_EXPECTED}")


def _positive_int(spec: str, text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise SpecError(f"bad player spec {spec!r}: {text!r} is not a whole number") from None
    if v <= 0:
        raise SpecError(f"bad player spec {spec!r}: {v} must be positive")
    return v


def _positive_float(spec: str, text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise SpecError(f"bad player spec {spec!r}: {text!r} is not a number") from None
    if not v > 0:
        raise SpecError(f"bad player spec {spec!r}: {v} must be positive")
    return v
