"""The Gomoku/Renju engine: pattern evaluation (numba), threat-space search, alpha-beta, levels.

Public names used by the rest of tabletop:

- :func:`level_player` (``level:N`` for gomoku boards) and :func:`analyse`;
- :func:`choose_swap_opening`, :func:`choose_swap_action` and
  :func:`choose_swap2_action` for the ``swap`` / ``swap2`` opening rules;
- :class:`GomokuEngine`, :class:`Position`, :func:`find_vcf`, :func:`find_vct`.

Layout: ``patterns`` (numba kernels), ``position`` (the engine's board),
``threats`` (VCF/VCT), ``search`` (alpha-beta), ``engine`` (players, time),
``openings`` (swap decisions), ``book`` (level 10's opening book).  Nothing here does I/O.
"""

from __future__ import annotations

from tabletop.ai.gomoku.engine import (
    LEVELS,
    EngineSettings,
    GomokuEngine,
    analyse,
    level_player,
    turn_seconds,
)
from tabletop.ai.gomoku.openings import choose_swap2_action, choose_swap_action, choose_swap_opening
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import find_vcf, find_vct

__all__ = [
    "LEVELS",
    "EngineSettings",
    "GomokuEngine",
    "Position",
    "analyse",
    "choose_swap2_action",
    "choose_swap_action",
    "choose_swap_opening",
    "find_vcf",
    "find_vct",
    "level_player",
    "turn_seconds",
]
