"""Move transcripts: ``f5d6c3d3c4`` for Reversi, ``h8 i9 j10`` for Gomoku and Tic-tac-toe.

One game per line, from the standard start.  Reversi moves may be run
together or spaced, in any case, with or without explicit passes (``pass``,
``pa`` or ``--``); a forced pass that is left out is put back when the game is
replayed, so every record read has its passes written out.  We write Reversi
transcripts run together in lower case without the passes (the form players
and programs exchange), and line-game transcripts spaced.  Blank lines and
lines starting with ``#`` are skipped (so a game with no move yet
writes a blank line that reads back as no game).

The transcript does not name the game: :func:`read_transcripts` takes it as
``game`` (default ``"reversi"``) with its ``options``.  This module parses and
formats text only.

>>> [r.moves for r in read_transcripts("F5d6 C3")]
[['f5', 'd6', 'c3']]
>>> write_transcripts(read_transcripts("h8 i9", game="gomoku"))
'h8 i9\\n'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tabletop.records import GameRecord, RecordError, register_format, replay, result_from_board

__all__ = ["looks_like_reversi", "read_transcripts", "write_transcripts"]

_TOKEN = re.compile(r"\s*(pass|pa|--|[a-zA-Z][0-9]{1,2})", re.IGNORECASE)


def read_transcripts(
    text: str, game: str | None = None, options: dict[str, Any] | None = None
) -> list[GameRecord]:
    game = game or "reversi"
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        moves: list[str] = []
        locations: list[tuple[int, int]] = []
        pos = len(line) - len(line.lstrip())
        end = len(line.rstrip())
        while pos < end:
            match = _TOKEN.match(line, pos)
            if match is None:
                pos += len(line[pos:]) - len(line[pos:].lstrip())
                raise RecordError(f"cannot read a move at {line[pos:pos + 8].strip()!r}", number, pos + 1)
            moves.append(match.group(1).lower())
            locations.append((number, match.start(1) + 1))
            pos = match.end()
        record = GameRecord(game=game, options=dict(options or {}), moves=moves)
        record.result = result_from_board(replay(record, locations))
        records.append(record)
    return records


_REVERSI_FIRST_MOVES = frozenset({"d3", "c4", "f5", "e6"})


def looks_like_reversi(text: str) -> bool:
    """Whether a transcript that names no game is meant as Reversi: every square of it
    fits the 8x8 board (a1 to h8, or a pass), or every game opens with one of Reversi's
    four first moves.  Only a transcript that is neither reads sensibly as Gomoku alone.

    >>> looks_like_reversi("f5d6c3d3c4f4"), looks_like_reversi("h8 i9 j10")
    (True, False)
    >>> looks_like_reversi("f5 d6 c3 i9")
    True
    """
    all_fit = True
    first_moves = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        tokens = [match.group(1).lower() for match in _TOKEN.finditer(stripped)]
        if tokens:
            first_moves.append(tokens[0])
        for token in tokens:
            if token in ("pass", "pa", "--"):
                continue
            if not ("a" <= token[0] <= "h" and token[1:].isdigit() and 1 <= int(token[1:]) <= 8):
                all_fit = False
    if not first_moves:
        return True
    return all_fit or all(move in _REVERSI_FIRST_MOVES for move in first_moves)


def write_transcripts(records: Sequence[GameRecord]) -> str:
    lines = []
    for record in records:
        if record.position is not None:
            raise RecordError("a transcript cannot hold a game from a custom start position")
        if record.game == "reversi":
            # a pass followed by a move is put back on replay; a record that stops right
            # after a forced pass keeps it, or reading it back would lose a move
            moves = [m.lower() for m in record.moves]
            lines.append("".join(m for i, m in enumerate(moves) if m != "pass" or i == len(moves) - 1))
        else:
            lines.append(" ".join(m.lower() for m in record.moves))
    return "".join(line + "\n" for line in lines)


register_format("transcript", (".txt", ".transcript"), read_transcripts, write_transcripts)
