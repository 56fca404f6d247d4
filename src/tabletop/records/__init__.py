"""Game records: one model, a registry of formats, and replay-checking of every move.

A :class:`GameRecord` is what every format reads into and writes from: the
game (``"reversi"``, ``"gomoku"``, ``"tictactoe"``), its variant options (as
:func:`tabletop.games.new_board` takes them), the start position text or
``None`` for the standard start, the moves as text in the game's own notation
(Reversi passes written out as ``"pass"``), the players and other tags, and
the result.

Formats are found by name or file extension::

    from tabletop import records
    games = records.read(text, "ggf")            # -> list[GameRecord]
    text = records.write(games, "sgf")
    fmt = records.detect("games/match.ggf")      # -> "ggf"

Built in: ``transcript`` (``f5d6c3...``; ``h8 i9 j10`` for the line games),
``obf`` (8x8 Reversi position lines with ``MOVE:SCORE`` annotations), ``ggf``
(the GGS Generic Game Format) and ``sgf`` (FF[4], GM[2] Othello and GM[4]
Gomoku).

Adding a format takes one call, made when the format's module is imported::

    from tabletop.records import register_format
    register_format("psq", (".psq",), read_psq_records, write_psq_records)

where ``reader(text, game=None, options=None) -> list[GameRecord]`` (``game``
and ``options`` are hints for formats that do not name the game) and
``writer(records) -> str``.  The registry imports the bundled modules
``transcript``, ``obf``, ``ggf``, ``sgf`` and ``psq`` when it is first
imported, so their registrations are always in place.  A reader reports
malformed text with :class:`RecordError` (line, column, reason) and checks every
move with :func:`replay`, so a record that reads is a record that plays.

The tags every format maps to its own fields where it has one (each format's
docstring says where): ``black``, ``white`` (the players' names),
``black_rating``, ``white_rating``, ``date`` (ISO ``YYYY-MM-DD``), ``event``
(the event or rating pool), ``place``, ``name``, ``opening`` (its name) and ``time_control``
(``"300+5"``: the seconds each side starts with, then the seconds added a move
when there are any; the ``TimeControl`` form of PGN).  How a game ended is not
kept beside its result: :meth:`GameRecord.termination` reads it from the
result and the moves.

This package parses and formats text only: no file I/O (``tabletop convert``
does that) and no rules of its own (the boards of :mod:`tabletop.games` judge
every move).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tabletop.games import new_board
from tabletop.games.core import BLACK, BaseBoard, IllegalMoveError, Outcome

__all__ = [
    "GameRecord",
    "RecordError",
    "RecordFormat",
    "detect",
    "formats",
    "read",
    "register_format",
    "replay",
    "TERMINATIONS",
    "parse_time_control",
    "result_from_board",
    "result_from_outcome",
    "time_control_text",
    "write",
]

TERMINATIONS = ("score", "line", "forbidden", "draw", "resign", "time", "forfeit", "agreement", "aborted")
"""The words :meth:`GameRecord.termination` answers: the count at the end (Reversi), k in a row,
a renju foul, a drawn board, a resignation, a flag fall, a forfeit (a player who left the game),
a draw agreed, a game called off with no result."""


class RecordError(ValueError):
    """A record that cannot be read or written.  ``line`` and ``column`` are
    1-based (0 when unknown); the message names them and the reason."""

    def __init__(self, reason: str, line: int = 0, column: int = 0) -> None:
        where = f"line {line}, column {column}: " if line else ""
        super().__init__(f"{where}{reason}")
        self.reason = reason
        self.line = line
        self.column = column


@dataclass
class GameRecord:
    """One game (or, for OBF, one position) in a format-neutral form.

    ``result`` is ``None`` when unknown, else ``"B+12"``/``"W+4"`` (disc margin,
    or ``R`` resign, ``T`` time, ``F`` forfeit), ``"B+"``/``"W+"`` (a win,
    margin not given), ``"Draw"`` or ``"Void"`` (called off, no result): SGF's
    ``RE`` conventions.  ``move_scores`` holds OBF's ``MOVE:SCORE`` annotations
    (exact final disc difference for the side to move), best first.
    """

    game: str = "reversi"
    options: dict[str, Any] = field(default_factory=dict)
    position: str | None = None
    moves: list[str] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    result: str | None = None
    move_scores: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_board(cls, board: BaseBoard, tags: dict[str, str] | None = None) -> GameRecord:
        """The record of the game played on ``board`` so far (its moves, its
        start position when that is not the standard one, its result)."""
        game = board.game
        variant = board.variant()
        options: dict[str, Any] = {}
        if game == "reversi":
            options = {"size": variant["size"]}
        elif game == "gomoku":
            width, height = variant["width"], variant["height"]
            options = {"size": width} if width == height else {"width": width, "height": height}
            if variant.get("rule", "freestyle") != "freestyle":
                options["rule"] = variant["rule"]
        start = board.copy()
        while start.move_stack:
            start.pop()
        position: str | None = start.to_text()
        if position == new_board(game, options).to_text():
            position = None
        return cls(
            game=game,
            options=options,
            position=position,
            moves=[str(m) for m in board.move_stack],
            tags=dict(tags or {}),
            result=result_from_board(board),
        )

    def board(self) -> BaseBoard:
        """The start position on a new board (before any move)."""
        return new_board(self.game, self.options, self.position)

    def termination(self) -> str | None:
        """How the game ended, one of :data:`TERMINATIONS` (``None`` while unknown or going on):
        read from ``result`` and, for a game the board ended, from the final position.

        >>> GameRecord("gomoku", {"size": 15}, moves=["h8", "a1"], result="B+R").termination()
        'resign'
        >>> GameRecord("reversi", moves=["f5", "d6"], result="Draw").termination()
        'agreement'
        """
        result = (self.result or "").strip()
        if not result or result == "?":
            return None
        if result == "Void":
            return "aborted"
        how = result[2:3].upper() if result[:2] in ("B+", "W+") else ""
        if how in ("R", "T", "F"):
            return {"R": "resign", "T": "time", "F": "forfeit"}[how]
        try:
            outcome = replay(dataclasses.replace(self, moves=list(self.moves))).outcome()
        except RecordError:
            return None
        if outcome is None:
            return "agreement" if result == "Draw" else None
        return {"discs": "score", "line": "line", "forbidden": "forbidden"}.get(outcome.reason, "draw")


class Reader(Protocol):
    def __call__(
        self, text: str, game: str | None = None, options: dict[str, Any] | None = None
    ) -> list[GameRecord]: ...


@dataclass(frozen=True)
class RecordFormat:
    name: str
    extensions: tuple[str, ...]
    reader: Reader
    writer: Callable[[Sequence[GameRecord]], str]


_FORMATS: dict[str, RecordFormat] = {}


def register_format(
    name: str,
    extensions: Sequence[str],
    reader: Reader,
    writer: Callable[[Sequence[GameRecord]], str],
) -> None:
    """Make format ``name`` known to :func:`read`, :func:`write` and :func:`detect`
    (a later registration of the same name replaces the earlier one)."""
    exts = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions)
    _FORMATS[name] = RecordFormat(name, exts, reader, writer)


def formats() -> list[str]:
    """The names of the known formats."""
    return sorted(_FORMATS)


def _format(name: str) -> RecordFormat:
    fmt = _FORMATS.get(name.lower())
    if fmt is None:
        raise ValueError(f"unknown record format {name!r} (known: {', '.join(formats())})")
    return fmt


def read(text: str, fmt: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    """Every game in ``text`` read as format ``fmt``; raises :class:`RecordError`."""
    return _format(fmt).reader(text, game=game, options=options)


def write(records: Sequence[GameRecord], fmt: str) -> str:
    """``records`` written as format ``fmt``; raises :class:`RecordError` when the
    format cannot hold them (for example a Gomoku game as OBF)."""
    return _format(fmt).writer(list(records))


def detect(path: str | os.PathLike[str]) -> str:
    """The format named by the file's extension; ``ValueError`` when none is."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    for fmt in _FORMATS.values():
        if ext in fmt.extensions:
            return fmt.name
    known = ", ".join(sorted(e for f in _FORMATS.values() for e in f.extensions))
    raise ValueError(f"cannot tell the record format of {os.fspath(path)!r} from its extension (known: {known})")


def replay(
    record: GameRecord,
    locations: Sequence[tuple[int, int]] | None = None,
    colors: Sequence[str | None] | None = None,
) -> BaseBoard:
    """Play ``record``'s moves on a new board and return it.

    A Reversi pass the record leaves out (the side to move has only the pass)
    is put in, and ``record.moves`` gets it written out.  ``locations`` gives
    each move's (line, column) in the source and ``colors`` its side
    (``"B"``/``"W"`` or ``None``) where the format says them.  An illegal move
    raises :class:`RecordError` naming its number and why.
    """
    try:
        board = record.board()
    except ValueError as exc:
        line, column = locations[0] if locations else (0, 0)
        raise RecordError(f"bad start position or variant: {exc}", line, column) from None
    written: list[str] = []
    for index, text in enumerate(record.moves):
        line, column = locations[index] if locations and index < len(locations) else (0, 0)
        color = colors[index] if colors and index < len(colors) else None
        try:
            move = board.parse_move(text)
            if not move.is_pass and record.game == "reversi":
                legal = board.legal_moves
                if len(legal) == 1 and legal[0].is_pass:
                    board.push(legal[0])  # the record leaves the forced pass out
                    written.append("pass")
            if color is not None and board.turn.symbol != {"B": "X", "W": "O"}[color] and not board.is_game_over():
                raise IllegalMoveError(f"it is {board.turn.label}'s turn")
            board.push(move)
        except ValueError as exc:
            raise RecordError(f"move {index + 1} ({text}) is illegal: {exc}", line, column) from None
        written.append(str(move))
    record.moves = written
    return board


def result_from_board(board: BaseBoard) -> str | None:
    """The record result of a finished game (``None`` while it goes on)."""
    outcome = board.outcome()
    return None if outcome is None else result_from_outcome(outcome, board.game)


def result_from_outcome(outcome: Outcome, game: str) -> str:
    """The record result of ``outcome``: ``"B+12"`` (a Reversi count), ``"W+"`` (k in a row or a
    foul), ``"B+R"``, ``"W+T"``, ``"B+F"`` (resigned, lost on time, abandoned), ``"Draw"``
    (a drawn board or a draw agreed) or ``"Void"`` (aborted)."""
    if outcome.reason == "aborted":
        return "Void"
    if outcome.winner is None:
        return "Draw"
    side = "B" if outcome.winner is BLACK else "W"
    how = {"resign": "R", "time": "T", "abandoned": "F"}.get(outcome.reason)
    if how is not None:
        return f"{side}+{how}"
    if game == "reversi":
        black, white = outcome.score
        return f"{side}+{abs(black - white)}"
    return f"{side}+"


_TIME_CONTROL = re.compile(r"^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$")


def time_control_text(initial: float, increment: float = 0) -> str:
    """``"300+5"`` for 300 seconds each and 5 more a move; ``"300"`` with no increment."""
    def number(value: float) -> str:
        return f"{value:g}" if value != int(value) else str(int(value))

    return number(initial) + (f"+{number(increment)}" if increment else "")


def parse_time_control(text: str) -> tuple[float, float] | None:
    """The seconds each side starts with and the increment of a ``time_control`` tag
    (``"300+5"``, ``"600"``), or ``None`` for text of another form."""
    match = _TIME_CONTROL.match(text.strip())
    if match is None:
        return None
    return float(match.group(1)), float(match.group(2) or 0)


for _module in ("transcript", "obf", "ggf", "sgf"):
    importlib.import_module(f"tabletop.records.{_module}")  # each registers itself on import
with contextlib.suppress(ImportError):  # a broken plug-in must not take the other formats down
    importlib.import_module("tabletop.records.psq")  # registers "psq" once its module makes the call
