"""tabletop: Reversi/Othello, Gomoku/Renju and Tic-tac-toe — rules, engines, records, protocols, server.

``tabletop.player(spec)`` is :func:`tabletop.players.player`.  The root package imports nothing when
it loads: each name in :data:`EXPORTS` is fetched from its module on first use, so ``import tabletop``
(which every submodule's import runs) never pulls in a layer above the module asking for it.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# name -> the module that defines it
EXPORTS = {"player": "tabletop.players"}


def __getattr__(name: str) -> Any:
    if name in EXPORTS:
        import importlib

        return getattr(importlib.import_module(EXPORTS[name]), name)
    raise AttributeError(f"module 'tabletop' has no attribute {name!r}")
