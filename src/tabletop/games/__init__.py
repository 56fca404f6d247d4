"""The rules of every game: pure Python, the single source of truth.

:func:`new_board` builds a board from a game name and variant options, as the
command line, the match runner and the server name them.
"""

from __future__ import annotations

from typing import Any

from tabletop.games.core import BaseBoard

GAMES = ("reversi", "gomoku", "tictactoe")


def new_board(game: str, options: dict[str, Any] | None = None, position: str | None = None) -> BaseBoard:
    """A new board for ``game`` ("reversi", "gomoku", "tictactoe") with variant
    ``options`` (``size``, ``width``/``height``, ``rule``).  Raises ``ValueError``
    naming an unknown game or option."""
    opts = dict(options or {})
    if game == "tictactoe":
        from tabletop.games.mnk import tictactoe

        _no_extra(game, opts, set())
        return tictactoe(position=position)
    if game == "gomoku":
        from tabletop.games.mnk import gomoku

        _no_extra(game, opts, {"size", "width", "height", "rule", "opening", "forbidden_loses"})
        size: int | tuple[int, int] = int(opts.get("size", 15))
        if "width" in opts or "height" in opts:
            size = (int(opts.get("width", size)), int(opts.get("height", opts.get("width", size))))
        kwargs: dict[str, Any] = {}
        if "forbidden_loses" in opts:
            kwargs["forbidden_loses"] = bool(opts["forbidden_loses"])
        return gomoku(size=size, rule=str(opts.get("rule", "freestyle")), position=position, **kwargs)
    if game == "reversi":
        from tabletop.games import reversi

        _no_extra(game, opts, {"size"})
        return reversi.Board(position=position, size=int(opts.get("size", 8)))
    raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")


def _no_extra(game: str, opts: dict[str, Any], allowed: set[str]) -> None:
    extra = set(opts) - allowed
    if extra:
        raise ValueError(f"unknown option(s) for {game}: {', '.join(sorted(extra))}")
