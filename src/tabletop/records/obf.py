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
them.  :func:`parse_obf_line` reads one line for the Reversi solver (bitboards and scores).  This
module parses and formats text only; it is the one OBF parser.

>>> [r.move_scores for r in read_obf("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0; D3:-2;")]
[{'f5': 0, 'd3': -2}]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop.games import reversi
from tabletop.games.core import BLACK
from tabletop.records import GameRecord, RecordError, register_format, replay

__all__ = ["ObfPosition", "parse_obf_line", "read_obf", "write_obf"]

_SQUARE_SYMBOLS = frozenset("-.XxOo*")  # Edax also writes ``*`` for Black and ``.`` for empty
_ANNOTATION = re.compile(r"^\s*([a-zA-Z][0-9]{1,2}|pass|PA|ps)\s*:\s*([+-]?\d+)\s*$", re.IGNORECASE)


@dataclass
class ObfPosition:
    """One OBF line as the Reversi solver reads it: bitboards of Black and White (bit ``row * 8 + col``,
    a1 = bit 0), the side to move and the annotated scores by lower-case move."""

    text: str
    black: int
    white: int
    black_to_move: bool
    annotations: dict[str, int] = field(default_factory=dict)

    @property
    def expected_score(self) -> int | None:
        """The best annotated score: the position's exact value when every move is annotated."""
        return max(self.annotations.values()) if self.annotations else None

    def sides(self) -> tuple[int, int]:
        """``(player, opponent)``: the side to move's discs first."""
        return (self.black, self.white) if self.black_to_move else (self.white, self.black)


def parse_obf_line(line: str) -> ObfPosition:
    """Read one OBF line; :class:`~tabletop.records.RecordError` (a ``ValueError``) says what is wrong.

    >>> parse_obf_line("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0;").expected_score
    0
    """
    board, scores = _read_line(line, 0)
    black, white = board.bitboards()
    return ObfPosition(_obf_text(board), black, white, board.turn is BLACK, scores)


def read_obf(text: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    if game not in (None, "reversi") or int((options or {}).get("size", 8)) != 8:
        raise RecordError("OBF holds 8x8 Reversi positions only")
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in "%#":
            continue
        board, scores = _read_line(line, number)
        records.append(
            GameRecord(game="reversi", options={"size": 8}, position=board.to_text(), move_scores=scores)
        )
    return records


def _read_line(line: str, number: int) -> tuple[reversi.Board, dict[str, int]]:
    """The position and the annotated scores of one line; ``number`` names the line in errors (0: none)."""
    head, _, tail = line.partition(";")
    squares_and_side = head.split()
    start = len(line) - len(line.lstrip()) + 1
    if len(squares_and_side) != 2 or len(squares_and_side[0]) != 64:
        found = len(squares_and_side[0]) if squares_and_side else 0
        raise RecordError(
            f"expected 64 squares, a space and the side to move (X or O); found {found} squares", number, start
        )
    squares, side = squares_and_side
    for index, symbol in enumerate(squares):
        if symbol not in _SQUARE_SYMBOLS:
            raise RecordError(f"square {index + 1} is {symbol!r}, expected -, X or O", number, start + index)
    if side.upper() not in ("X", "O"):
        raise RecordError(f"the side to move is {side!r}, expected X or O", number, start + 65)
    board = reversi.Board(squares + " " + side)
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
    return board, scores


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
