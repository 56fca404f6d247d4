"""A room's game record as text, for ``GET /api/rooms/{id}/record``.

Uses the format registry of :mod:`tabletop.records` (``write(records, fmt)``
with a ``GameRecord``) where it offers the format; a plain transcript and
Piskvork PSQ are written here from the room's moves otherwise.  Raises
``ValueError`` for a format that does not fit the game; never touches the room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop.server.rooms import Room

__all__ = ["FORMATS", "record_text"]

FORMATS = {
    "sgf": "reversi gomoku tictactoe",
    "ggf": "reversi",
    "psq": "gomoku",
    "transcript": "reversi gomoku tictactoe",
}
MEDIA = {"sgf": "application/x-go-sgf", "ggf": "text/plain", "psq": "text/plain", "transcript": "text/plain"}


def record_text(room: Room, fmt: str) -> tuple[str, str]:
    """The record of ``room`` in ``fmt`` and its media type."""
    fmt = fmt.lower()
    game = room.record.game
    if fmt not in FORMATS:
        raise ValueError(f"unknown record format {fmt!r} (sgf, ggf, psq, transcript)")
    if game not in FORMATS[fmt].split():
        raise ValueError(f"{fmt.upper()} records are not for {game}")
    text = _from_registry(room, fmt)
    if text is None:
        if fmt == "transcript":
            text = _transcript(room)
        elif fmt == "psq":
            text = _psq(room)
        else:
            raise ValueError(f"{fmt.upper()} records are not available on this server yet")
    return text, MEDIA[fmt]


def _from_registry(room: Room, fmt: str) -> str | None:
    try:
        records: Any = importlib.import_module("tabletop.records")
    except ImportError:
        return None
    write = getattr(records, "write", None)
    game_record = getattr(records, "GameRecord", None)
    if write is None or game_record is None:
        return None
    from_match = getattr(game_record, "from_match", None)
    from_board = getattr(game_record, "from_board", None)
    try:
        if from_match is not None:
            record = from_match(room.match)
        elif from_board is not None:
            record = from_board(room.match.board)
        else:
            return None
        return str(write([record], fmt))
    except (TypeError, AttributeError, KeyError):
        return None  # a registry that does not fit this shape yet: fall back to our own


def _transcript(room: Room) -> str:
    m = room.match
    outcome = m.outcome()
    moves = [str(x) for x in m.board.move_stack]
    lines = [f"game: {room.record.game}"]
    if room.record.options:
        lines.append("options: " + ", ".join(f"{k}={v}" for k, v in sorted(room.record.options.items())))
    lines.append(f"black: {room.record.seats['black']}")
    lines.append(f"white: {room.record.seats['white']}")
    lines.append("moves: " + " ".join(moves))
    lines.append("result: " + ("*" if outcome is None else f"{outcome.result()} ({outcome.reason})"))
    return "\n".join(lines) + "\n"


def _psq(room: Room) -> str:
    from tabletop.records.psq import psq_from_board, write_psq

    board: Any = room.match.board
    return write_psq(psq_from_board(board, players=(room.record.seats["black"], room.record.seats["white"])))
