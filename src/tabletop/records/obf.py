"""OBF position lines: 8x8 Reversi test positions with scored moves (Edax's ``.obf``).

One position a line: 64 squares ``a1 b1 ... h1 a2 ... h8`` (row 1 at the top;
``X`` Black, ``O`` White, ``-`` empty), a space, the side to move, then
optionally ``;`` and ``MOVE:SCORE;`` for some or all legal moves, best first,
SCORE being the exact final disc difference for the side to move::

    --XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;

Each line reads into a :class:`~tabletop.records.GameRecord` with no moves,
the position text in ``position`` and the annotations in ``move_scores``
(lower-case moves, in file order); an annotated move that is not legal in the
position is an error naming it.  Blank lines and lines starting with ``%`` or
``#`` are skipped.  Writing a record that has moves writes the position after
them.  This module parses and formats text only.

>>> [r.move_scores for r in read_obf("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0; D3:-2;")]
[{'f5': 0, 'd3': -2}]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tabletop.games import reversi
from tabletop.records import GameRecord, RecordError, register_format, replay

__all__ = ["read_obf", "write_obf"]

_ANNOTATION = re.compile(r"^\s*([a-zA-Z][0-9]{1,2}|pass|PA|ps)\s*:\s*([+-]?\d+)\s*$", re.IGNORECASE)


def read_obf(text: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    if game not in (None, "reversi") or int((options or {}).get("size", 8)) != 8:
        raise RecordError("OBF holds 8x8 Reversi positions only")
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in "%#":
            continue
        head, _, tail = line.partition(";")
        squares_and_side = head.split()
        start = len(line) - len(line.lstrip()) + 1
        if len(squares_and_side) != 2 or len(squares_and_side[0]) != 64:
            found = len(squares_and_side[0]) if squares_and_side else 0
            raise RecordError(
                f"expected 64 squares, a space and the side to move (X or O); found {found} squares", number, start
            )
        try:
            board = reversi.Board(" ".join(squares_and_side))
        except ValueError as exc:
            raise RecordError(str(exc), number, start) from None
        scores: dict[str, int] = {}
        column = len(head) + 2
        for item in tail.split(";"):
            if item.strip():
                match = _ANNOTATION.match(item)
                if match is None:
                    raise RecordError(f"expected MOVE:SCORE, found {item.strip()!r}", number, column)
                name = match.group(1).lower()
                if not board.is_legal(name):
                    raise RecordError(f"annotated move {match.group(1)} is not legal in this position", number, column)
                scores[str(board.parse_move(name))] = int(match.group(2))
            column += len(item) + 1
        records.append(
            GameRecord(game="reversi", options={"size": 8}, position=board.to_text(), move_scores=scores)
        )
    return records


def _obf_text(board: reversi.Board) -> str:
    squares, side = board.to_text().split()
    return squares.replace("/", "") + " " + side


def write_obf(records: Sequence[GameRecord]) -> str:
    lines = []
    for record in records:
        if record.game != "reversi" or int(record.options.get("size", 8)) != 8:
            raise RecordError("OBF holds 8x8 Reversi positions only")
        board = replay(GameRecord(record.game, dict(record.options), record.position, list(record.moves)))
        assert isinstance(board, reversi.Board)
        line = _obf_text(board)
        if record.move_scores:
            line += ";" + "".join(f" {move.upper()}:{score:+d};" for move, score in record.move_scores.items())
        lines.append(line)
    return "".join(line + "\n" for line in lines)


register_format("obf", (".obf",), read_obf, write_obf)
