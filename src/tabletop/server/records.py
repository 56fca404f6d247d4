"""Records in and out of rooms: a room's game record as text, for ``GET
/api/rooms/{id}/record``, and the games of a pasted or uploaded record, for
``POST /api/records/import``.

:func:`record_text` builds a :class:`tabletop.records.GameRecord` from the
room's board (with the result of a resignation, a flag fall, an abandoned or
aborted game or an agreed draw, which the board alone does not know) and the
game's facts (:func:`room_tags`: the players and the ratings they brought to
the game, the date, the rating pool or the kind of game, the time control),
and writes it with the format registry of :mod:`tabletop.records`; it raises
``ValueError`` for an unknown format or one that does not fit the game, and
never changes the room.  The room's players must have been read
(``Room.ensure_players``) for their names to be in the record.  :func:`import_records`
reads text with the same registry, telling the format from the file name or the
text when none is given; a malformed record is the reader's
:class:`~tabletop.records.RecordError` (line, column, reason).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from tabletop import records
from tabletop.games.opening_names import opening_name
from tabletop.records.transcript import looks_like_reversi

if TYPE_CHECKING:
    from tabletop.server.rooms import Room

__all__ = ["guess_format", "import_records", "record_text", "room_tags"]

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
    record = records.GameRecord.from_board(match.board, room_tags(room))
    outcome = match.outcome()
    if outcome is not None:
        record.result = records.result_from_outcome(outcome, game)
    text = records.write([record], fmt)  # RecordError (a ValueError) when the format cannot hold it
    return text, MEDIA.get(fmt, "text/plain")


def room_tags(room: Room) -> dict[str, str]:
    """The record tags of ``room``'s game: ``black``/``white`` (a signed-in player's name, or the
    computer's level), their ratings in the pool as they came to the game, ``date`` (the day the
    room was made, UTC), ``event`` (the pool of a game between players, else the kind of game),
    ``place``, ``time_control`` and ``opening`` (the named opening its moves reached)."""
    tags: dict[str, str] = {}
    players = room.players_view()
    for color, seat in room.match.seats.items():
        label = color.label
        if players is not None and isinstance(players.get(label), dict):
            tags[label] = str(players[label]["name"])
            if players[label].get("rating") is not None:
                tags[f"{label}_rating"] = str(players[label]["rating"])
        elif not seat.is_human:
            level = re.fullmatch(r"level:(\d+)", seat.kind)
            tags[label] = f"tabletop level {level.group(1)}" if level else f"tabletop {seat.kind}"
    tags["date"] = time.strftime("%Y-%m-%d", time.gmtime(room.record.created))
    if players is not None:
        tags["event"] = f"tabletop {'rated' if players.get('rated') else 'casual'} {players.get('pool')}"
    else:
        tags["event"] = f"tabletop {'game at one screen' if room.record.mode == 'local' else 'online game'}"
    tags["place"] = "tabletop"
    clock = room.record.clock
    if clock and clock.get("days") is not None:
        days = float(clock["days"])
        tags["time_control"] = f"{days:g} day{'' if days == 1 else 's'} a move"  # correspondence
    elif clock:
        tags["time_control"] = records.time_control_text(
            float(clock.get("initial", 300)), float(clock.get("increment", 0))
        )
    record = room.record
    named = opening_name(record.game, [str(m) for m in room.match.board.move_stack], record.options, record.position)
    if named is not None:
        tags["opening"] = named.name + (f" ({named.code})" if named.code else "")
    return tags


_OBF_LINE = re.compile(r"[-XOxo]{64}\s+[XOxo]\b")
_PSQ_HEADER = re.compile(r"piskvork", re.IGNORECASE)


def guess_format(text: str, filename: str | None = None) -> str:
    """The format of ``text``: named by ``filename``'s extension, else told by its first characters
    (``(;`` with ``GM[Othello]`` GGF, other ``(;`` SGF, ``Piskvorky`` PSQ, 64 squares OBF, else a transcript)."""
    if filename:
        try:
            return records.detect(filename)
        except ValueError:
            pass  # an extension no format claims (.txt): the text tells
    head = text.lstrip()
    if head.startswith("("):
        return "ggf" if re.search(r"GM\[\s*othello", head[:4000], re.IGNORECASE) else "sgf"
    first = head.split("\n", 1)[0]
    if _PSQ_HEADER.match(first):
        return "psq"
    if _OBF_LINE.match(first):
        return "obf"
    return "transcript"


def import_records(
    text: str, fmt: str, game: str | None = None, options: dict[str, Any] | None = None
) -> list[records.GameRecord]:
    """The games of ``text`` in format ``fmt``; raises :class:`~tabletop.records.RecordError`.

    A transcript that names no ``game`` is read as Reversi.  When that fails, it is read
    as Gomoku only if nothing in it says Reversi (a square off the 8x8 board, and a game
    that does not open with a Reversi first move); otherwise the Reversi error stands,
    with a word on how to read the text as Gomoku.  When neither game reads, the
    error is the one that got further into the text."""
    if fmt == "transcript" and game is None:
        try:
            return _some(records.read(text, fmt, "reversi", options))
        except records.RecordError as as_reversi:
            if looks_like_reversi(text):
                raise records.RecordError(
                    f"{as_reversi.reason} (read as Reversi, since its moves fit an 8x8 board; "
                    "to read it as Gomoku, choose Gomoku under \"Moves of\")",
                    as_reversi.line,
                    as_reversi.column,
                ) from None
            try:
                return _some(records.read(text, fmt, "gomoku", options))
            except records.RecordError as as_gomoku:
                raise max(as_reversi, as_gomoku, key=lambda e: (e.line, e.column)) from None
    return _some(records.read(text, fmt, game, options))


def _some(games: list[records.GameRecord]) -> list[records.GameRecord]:
    if not games:
        raise records.RecordError("the record holds no game")
    return games
