"""Computer players that think in-process, and the analysis of a position.

Per-game engines live in ``tabletop.ai.<game>`` and expose ``level_player(n) -> Player`` (and
``analyse(board, limit) -> Analysis``); games without an engine get the generic levels of
:mod:`tabletop.ai.levels`.  A SPEC string becomes a player in :func:`tabletop.players.player`, one
layer up, because SPECs also name external engines (:mod:`tabletop.protocols`), which build on this
package.
"""

from __future__ import annotations

from tabletop.ai.base import Analysis, Limit, MoveScore, Player

__all__ = ["Analysis", "Limit", "MoveScore", "Player", "analyse"]


def analyse(board: object, limit: Limit | None = None) -> Analysis:
    """Analyse ``board`` with the strongest engine for its game."""
    from tabletop.ai.levels import analyse_position
    from tabletop.games.core import BaseBoard

    assert isinstance(board, BaseBoard)
    return analyse_position(board, limit)
