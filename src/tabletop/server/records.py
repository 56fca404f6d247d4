"""A room's game record as text, for ``GET /api/rooms/{id}/record``.

Builds a :class:`tabletop.records.GameRecord` from the room's board (with the
result of a resignation, a flag fall or an agreed draw, which the board alone
does not know) and writes it with the format registry of :mod:`tabletop.records`.
Raises ``ValueError`` for an unknown format or one that does not fit the game;
never changes the room.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop import records

if TYPE_CHECKING:
    from tabletop.server.rooms import Room

__all__ = ["record_text"]

MEDIA = {"sgf": "application/x-go-sgf"}
FIT = {"ggf": ("reversi",), "obf": ("reversi",), "psq": ("gomoku",)}


def record_text(room: Room, fmt: str) -> tuple[str, str]:
    """The record of ``room`` in ``fmt`` and its media type."""
    fmt = fmt.lower()
    known = records.formats()
    if fmt not in known:
        raise ValueError(f"unknown record format {fmt!r} (known: {', '.join(known)})")
    game = room.record.game
    if game not in FIT.get(fmt, (game,)):
        raise ValueError(f"{fmt.upper()} records are not for {game}")
    match = room.match
    record = records.GameRecord.from_board(match.board)
    outcome = match.outcome()
    if outcome is not None and outcome.reason in ("resign", "time", "agreement"):
        if outcome.winner is None:
            record.result = "Draw"
        else:
            record.result = ("B+" if outcome.winner.label == "black" else "W+") + (
                "R" if outcome.reason == "resign" else "T"
            )
    text = records.write([record], fmt)  # RecordError (a ValueError) when the format cannot hold it
    return text, MEDIA.get(fmt, "text/plain")
