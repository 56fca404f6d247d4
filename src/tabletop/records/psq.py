"""Piskvork's PSQ game records (the Gomocup tournament format), read and written.

A PSQ file holds one game::

    Piskvorky 15x15, 11:11, 0
    8,8,1000
    9,9,812
    pbrain-first.exe
    pbrain-second.exe
    -1

The header gives the board's width and height (then two numbers Piskvork
uses for its window, and one more, kept as they are).  Each move line is
``x,y,time_ms`` with 1-based ``x`` (column, left to right) and ``y`` (row,
top to bottom, as in Piskvork's display), the first move Black's.  After the
moves come, optionally, the two players' names and a final number line; we
keep them as ``players`` and ``tail`` and write them back unchanged.

A PSQ file has no fields for the game's other facts; we write them last, one
a line, in PGN's tag form (``[Date "2026-11-28"]``, ``[Result "B+R"]``), where
Piskvork, which stops reading at the first line that is not a move, never
looks: ``Black``, ``White``, ``BlackRating``, ``WhiteRating``, ``Date``,
``Event``, ``Site``, ``TimeControl``, ``Opening``, ``Result`` (SGF's
conventions) and ``Rule``.  They are kept in :attr:`PsqGame.tags`.

Without a ``Rule`` line a PSQ file does not say which rule was played;
:meth:`PsqGame.to_board` takes it as an argument and replays the moves through
the rules library, so an illegal move is reported with its line.

The format is registered as ``psq`` (``.psq``) in :mod:`tabletop.records`:
:func:`read_psq_records` gives one :class:`~tabletop.records.GameRecord`
(``game="gomoku"``; the rule comes from the file's ``Rule`` line, else from
the ``options`` hint, freestyle by default; the players go to the
``black``/``white`` tags, the tag lines to the record's tags and result, the
move times to ``psq_times`` and the trailing lines to ``psq_tail``) and
:func:`write_psq_records` writes exactly one record back.

This module parses and formats text only; it does no file I/O and must not
know about any user interface.

>>> game = read_psq("Piskvorky 15x15, 11:11, 0\\n8,8,0\\n9,8,0\\n")
>>> [str(m) for m in game.moves]
['h8', 'i8']
>>> write_psq(game).splitlines()[1]
'8,8,0'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop.games.core import IllegalMoveError, Move, column_letter
from tabletop.games.mnk import GomokuBoard, gomoku
from tabletop.records import GameRecord, RecordError, register_format, replay, result_from_board

__all__ = [
    "PsqError",
    "PsqGame",
    "psq_from_board",
    "read_psq",
    "read_psq_records",
    "write_psq",
    "write_psq_records",
]

_HEADER = re.compile(r"^Piskvorky\s+(\d+)\s*x\s*(\d+)\s*(?:,\s*(\d+)\s*:\s*(\d+)\s*(?:,\s*(-?\d+))?)?\s*$", re.IGNORECASE)
_MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$")
_NUMBER = re.compile(r"^\s*-?\d+\s*$")
_TAG_LINE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
# the record's tags by the names of the PSQ tag lines (PGN's where it has one)
_TAG_NAMES = {
    "black": "Black",
    "white": "White",
    "black_rating": "BlackRating",
    "white_rating": "WhiteRating",
    "date": "Date",
    "event": "Event",
    "place": "Site",
    "time_control": "TimeControl",
    "opening": "Opening",
}
_TAG_KEYS = {v: k for k, v in _TAG_NAMES.items()}


class PsqError(ValueError):
    """A PSQ text that cannot be read; ``line`` is 1-based (0 when the text is empty)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"PSQ line {line}: {reason}" if line else f"PSQ: {reason}")
        self.line = line
        self.reason = reason


@dataclass
class PsqGame:
    """One PSQ game: board size, moves in order (named in renju notation for
    this size), each move's time in milliseconds, and the header numbers and
    trailing lines kept verbatim."""

    width: int
    height: int
    moves: list[Move] = field(default_factory=list)
    times_ms: list[int] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    window: tuple[int, int, int] = (11, 11, 0)
    move_lines: list[int] = field(default_factory=list)  # source line of each move, for errors
    tags: dict[str, str] = field(default_factory=dict)  # the [Key "value"] lines, by key

    def to_board(self, rule: str = "freestyle", forbidden_loses: bool = False) -> GomokuBoard:
        """Replay the game on a new board under ``rule``; an illegal move
        raises :class:`PsqError` naming its line."""
        board = gomoku(size=(self.width, self.height), rule=rule, forbidden_loses=forbidden_loses)
        for index, move in enumerate(self.moves):
            try:
                board.push(move)
            except IllegalMoveError as exc:
                line = self.move_lines[index] if index < len(self.move_lines) else 0
                raise PsqError(line, f"move {index + 1} ({move}) is illegal under {rule}: {exc}") from None
        return board


def _move_name(col: int, row: int, height: int) -> str:
    return f"{column_letter(col)}{height - row}"


def read_psq(text: str) -> PsqGame:
    """Read one PSQ game.  Raises :class:`PsqError` with the line and the reason
    for a bad header, a bad move line, a point off the board or taken twice,
    or a move line after the players' names."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    numbered = [(i + 1, line.strip()) for i, line in enumerate(lines) if line.strip()]
    if not numbered:
        raise PsqError(0, "the text is empty; expected a 'Piskvorky WxH, ...' header")
    first_line, header = numbered[0]
    m = _HEADER.match(header)
    if m is None:
        raise PsqError(first_line, f"expected a header like 'Piskvorky 15x15, 11:11, 0', found {header[:40]!r}")
    width, height = int(m.group(1)), int(m.group(2))
    if not (5 <= width <= 26 and 5 <= height <= 26):
        raise PsqError(first_line, f"board size {width}x{height} is out of range (5..26)")
    window = (
        int(m.group(3)) if m.group(3) else 11,
        int(m.group(4)) if m.group(4) else 11,
        int(m.group(5)) if m.group(5) else 0,
    )
    game = PsqGame(width, height, window=window)
    rest = []
    for number, line in numbered[1:]:
        tag = _TAG_LINE.match(line)
        if tag is None:
            rest.append((number, line))
        else:
            game.tags[tag.group(1)] = re.sub(r"\\(.)", r"\1", tag.group(2))
    numbered = numbered[:1] + rest
    taken: dict[tuple[int, int], int] = {}
    in_tail = False
    for number, line in numbered[1:]:
        mv = _MOVE.match(line)
        if mv is not None:
            if in_tail:
                raise PsqError(number, f"move line {line!r} after the players' names")
            x, y = int(mv.group(1)), int(mv.group(2))
            if not (1 <= x <= width and 1 <= y <= height):
                raise PsqError(number, f"point {x},{y} is off the {width}x{height} board (coordinates are 1-based)")
            col, row = x - 1, y - 1
            if (col, row) in taken:
                raise PsqError(number, f"point {x},{y} was already played on line {taken[(col, row)]}")
            taken[(col, row)] = number
            time_ms = int(mv.group(3)) if mv.group(3) is not None else 0
            if time_ms < 0:
                raise PsqError(number, f"negative time {time_ms} ms")
            game.moves.append(Move(col, row, _move_name(col, row, height)))
            game.times_ms.append(time_ms)
            game.move_lines.append(number)
            continue
        if "," in line and _looks_like_a_move(line):
            raise PsqError(number, f"cannot read move line {line!r}: expected 'x,y,time_ms' with whole numbers")
        in_tail = True
        if _NUMBER.match(line) and number == numbered[-1][0]:
            game.tail.append(line)
        elif len(game.players) < 2 and not game.tail:
            game.players.append(line)
        else:
            game.tail.append(line)
    return game


def _looks_like_a_move(line: str) -> bool:
    """A line of digits and commas that failed the move pattern (``8,x,0``, ``8,,0``)."""
    head = line.split(",", 1)[0].strip()
    return head.lstrip("-").isdigit()


def write_psq(game: PsqGame) -> str:
    """The PSQ text of ``game`` (CR LF line ends are not required by readers; we write LF)."""
    a, b, c = game.window
    out = [f"Piskvorky {game.width}x{game.height}, {a}:{b}, {c}"]
    for index, move in enumerate(game.moves):
        if not (0 <= move.col < game.width and 0 <= move.row < game.height):
            raise ValueError(f"move {index + 1} ({move}) is off the {game.width}x{game.height} board")
        time_ms = game.times_ms[index] if index < len(game.times_ms) else 0
        out.append(f"{move.col + 1},{move.row + 1},{time_ms}")
    out.extend(game.players)
    out.extend(game.tail)
    for key, value in game.tags.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
            raise ValueError(f"PSQ tag name {key!r} must be letters, digits and '_'")
        text = " ".join(value.split()).replace("\\", "\\\\").replace('"', '\\"')  # one line
        out.append(f'[{key} "{text}"]')
    return "\n".join(out) + "\n"


def psq_from_board(
    board: GomokuBoard,
    times_ms: list[int] | None = None,
    players: tuple[str, str] | None = None,
    result: int | None = None,
) -> PsqGame:
    """A PSQ game from a board's move stack, with optional per-move times,
    the two players' names and a final number line."""
    moves = [Move(m.col, m.row, _move_name(m.col, m.row, board.height)) for m in board.move_stack]
    return PsqGame(
        board.width,
        board.height,
        moves=moves,
        times_ms=list(times_ms) if times_ms is not None else [0] * len(moves),
        players=list(players) if players is not None else [],
        tail=[str(result)] if result is not None else [],
    )


# -- the records registry ---------------------------------------------------------


def read_psq_records(text: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    """The PSQ game in ``text`` as one :class:`GameRecord`, every move replayed
    under ``options["rule"]`` (freestyle by default).  Raises
    :class:`RecordError` with the line for anything malformed or illegal."""
    if game not in (None, "gomoku"):
        raise RecordError(f"PSQ records hold Gomoku games, not {game}")
    try:
        psq = read_psq(text)
    except PsqError as exc:
        raise RecordError(exc.reason, exc.line, 1 if exc.line else 0) from None
    opts = {k: v for k, v in (options or {}).items() if k not in ("size", "width", "height")}
    if psq.width == psq.height:
        opts["size"] = psq.width
    else:
        opts["width"], opts["height"] = psq.width, psq.height
    if psq.tags.get("Rule"):
        opts["rule"] = psq.tags["Rule"].strip().lower()
    if opts.get("rule") == "freestyle":
        del opts["rule"]
    record = GameRecord(game="gomoku", options=opts, moves=[str(m) for m in psq.moves])
    for color, name in zip(("black", "white"), psq.players, strict=False):
        record.tags[color] = name
    for key, value in psq.tags.items():
        if key not in ("Rule", "Result"):
            record.tags[_TAG_KEYS.get(key, key)] = value
    if any(psq.times_ms):
        record.tags["psq_times"] = ",".join(str(t) for t in psq.times_ms)
    if psq.tail:
        record.tags["psq_tail"] = "\n".join(psq.tail)
    board = replay(record, [(line, 1) for line in psq.move_lines])
    # the board's own result stands; a Result line says how a game the board did not end ended
    record.result = result_from_board(board) or (psq.tags.get("Result", "").strip() or None)
    return [record]


def write_psq_records(records: Sequence[GameRecord]) -> str:
    """One Gomoku record as PSQ text (the format holds one game per file)."""
    if len(records) != 1:
        raise RecordError(f"a PSQ file holds exactly one game, not {len(records)}")
    record = records[0]
    if record.game != "gomoku":
        raise RecordError(f"PSQ records hold Gomoku games, not {record.game}")
    if record.position is not None:
        raise RecordError("a PSQ file cannot hold a game from a custom start position")
    board = replay(GameRecord(game=record.game, options=dict(record.options), moves=list(record.moves)))
    assert isinstance(board, GomokuBoard)
    times: list[int] | None = None
    if "psq_times" in record.tags:
        try:
            times = [int(t) for t in record.tags["psq_times"].split(",")]
        except ValueError:
            raise RecordError(f"tag psq_times {record.tags['psq_times'][:40]!r} is not a list of whole numbers") from None
        if len(times) != len(board.move_stack):
            times = None  # the moves changed since the times were read: drop them
    game = psq_from_board(board, times_ms=times)
    if "black" in record.tags and "white" in record.tags:
        game.players = [record.tags["black"], record.tags["white"]]
    if record.tags.get("psq_tail"):
        game.tail = record.tags["psq_tail"].split("\n")
    for tag, key in _TAG_NAMES.items():
        if record.tags.get(tag) and not (tag in ("black", "white") and game.players):
            game.tags[key] = record.tags[tag]
    for tag, value in record.tags.items():  # another format's own fields, by their own names
        if re.fullmatch(r"[A-Z][A-Za-z0-9_]*", tag) and tag not in _TAG_KEYS and tag not in ("Rule", "Result"):
            game.tags[tag] = value
    if record.result is not None and record.result != result_from_board(board):
        game.tags["Result"] = record.result
    if record.options.get("rule", "freestyle") != "freestyle":
        game.tags["Rule"] = str(record.options["rule"])
    try:
        return write_psq(game)
    except ValueError as exc:
        raise RecordError(str(exc)) from None


register_format("psq", (".psq",), read_psq_records, write_psq_records)
