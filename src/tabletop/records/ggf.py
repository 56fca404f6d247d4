"""GGF, the Generic Game Format of the GGS Othello server: several games a file.

A game is ``(;`` properties ``;)``, each property ``KEY[value]``::

    (;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[alice]PW[bob]RB[2197.7]
    RW[2003.4]TI[15:00//02:00]TY[8]RE[+12.000]BO[8 -------- -------- --------
    ---O*--- ---*O--- -------- -------- -------- *]B[f5//0.01]W[d6]B[PA]...;)

``BO`` is the start position: the size, the rows from the top (``*`` Black,
``O`` White, ``-`` empty) and the side to move (``*`` or ``O``).  Moves are
``B[move/eval/time]`` / ``W[...]`` (only the move is kept), with ``PA`` for a
pass; squares use the Othello notation (``a1`` top-left).  ``RE`` is Black's
disc margin (``+12.000``, ``-4``, ``0``; ``?`` unknown) with GGF's flags:
``:r`` a resignation, ``:t`` a time loss, ``:s`` a score the players agreed
(we write a draw agreed before the board's end as ``0.000:s``); GGF has no
flag for a forfeit, so we write one as ``:f`` (a reader that knows only the
three reads a one-disc win for the right side), and none for a game called
off (``Void`` is written ``?``).  ``TY`` is the game type; its number is the
board size.  The usual tags map to ``place``, ``date``, ``black``, ``white``,
``black_rating`` and ``white_rating``; ``TI`` (``05:00/00:05/00:00``: time,
increment, extension) is the ``time_control`` tag (``300+5``) when it has no
extension, else kept as ``time``.  ``DT`` is kept as written, except that our
ISO dates (``2026-11-28``) are written ``2026.11.28`` and read back.  Any
other property is kept under its own key and written back.

This module parses and formats text only; the rules library judges the moves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tabletop.games import reversi
from tabletop.records import (
    GameRecord,
    RecordError,
    parse_time_control,
    register_format,
    replay,
    time_control_text,
)

__all__ = ["read_ggf", "write_ggf"]

_TAGS = {
    "PC": "place",
    "DT": "date",
    "PB": "black",
    "PW": "white",
    "RB": "black_rating",
    "RW": "white_rating",
    "TI": "time",
}
_TAG_KEYS = {v: k for k, v in _TAGS.items()}
_STRUCTURAL = {"GM", "TY", "RE", "BO", "B", "W"}
_PROPERTY = re.compile(r"\s*([A-Z][A-Z0-9]*)\s*\[")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_GGF_DATE = re.compile(r"^(\d{4})\.(\d{2})\.(\d{2})$")


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def read_ggf(text: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    if game not in (None, "reversi"):
        raise RecordError("GGF holds Othello games only")
    records = []
    pos = 0
    while True:
        start = text.find("(;", pos)
        if start < 0:
            rest = text[pos:].strip()
            if rest:
                raise RecordError("text outside a game (a game starts with '(;')", *_where(text, pos + text[pos:].index(rest[0])))
            break
        if text[pos:start].strip():
            raise RecordError("text outside a game (a game starts with '(;')", *_where(text, pos + len(text[pos:start]) - len(text[pos:start].lstrip())))
        record, pos = _read_game(text, start)
        records.append(record)
    return records


def _read_game(text: str, start: int) -> tuple[GameRecord, int]:
    pos = start + 2
    props: list[tuple[str, str, int]] = []
    while True:
        rest = text[pos:]
        stripped = rest.lstrip()
        pos += len(rest) - len(stripped)
        if stripped.startswith(";)"):
            pos += 2
            break
        if not stripped:
            raise RecordError("game not closed with ';)'", *_where(text, start))
        match = _PROPERTY.match(text, pos)
        if match is None:
            raise RecordError(f"expected a property like B[f5], found {stripped[:10]!r}", *_where(text, pos))
        close = text.find("]", match.end())
        if close < 0:
            raise RecordError(f"property {match.group(1)} has no closing ']'", *_where(text, pos))
        props.append((match.group(1), text[match.end() : close], pos))
        pos = close + 1
    record = GameRecord(game="reversi")
    moves: list[str] = []
    locations: list[tuple[int, int]] = []
    colors: list[str | None] = []
    size = 8
    board_text: str | None = None
    for key, value, offset in props:
        if key == "GM":
            if value.strip().lower() != "othello":
                raise RecordError(f"GM[{value}] is not Othello", *_where(text, offset))
        elif key == "TY":
            number = re.search(r"\d+", value)
            if number:
                size = int(number.group())
            record.tags["type"] = value
        elif key == "RE":
            record.result = _read_result(value, *_where(text, offset))
        elif key == "BO":
            tokens = value.split()
            try:
                size = int(tokens[0])
                squares = "".join(tokens[1:-1])
                side = {"*": "X", "O": "O"}[tokens[-1]]
            except (IndexError, ValueError, KeyError):
                raise RecordError("BO must be the size, the rows and the side to move (* or O)", *_where(text, offset)) from None
            if len(squares) != size * size:
                raise RecordError(f"BO has {len(squares)} squares, expected {size * size}", *_where(text, offset))
            rows = [squares[r * size : (r + 1) * size].replace("*", "X") for r in range(size)]
            board_text = "/".join(rows) + " " + side
        elif key in ("B", "W"):
            move = value.split("/")[0].strip().lower()
            moves.append("pass" if move in ("pa", "pass") else move)
            locations.append(_where(text, offset))
            colors.append(key)
        else:
            record.tags[_TAGS.get(key, key)] = value
    record.options = {"size": size}
    if board_text is not None:
        try:
            start_board = reversi.Board(board_text, size=size)
        except ValueError as exc:
            raise RecordError(f"bad BO position: {exc}", *_where(text, start)) from None
        if start_board != reversi.Board(size=size):
            record.position = board_text
    if record.tags.get("type") == str(size):
        del record.tags["type"]  # the plain type is implied by the size
    clock = _read_clock(record.tags.get("time", ""))
    if clock is not None:
        del record.tags["time"]
        record.tags["time_control"] = clock
    date = _GGF_DATE.match(record.tags.get("date", ""))
    if date is not None:
        record.tags["date"] = "-".join(date.groups())
    record.moves = moves
    replay(record, locations, colors)
    return record, pos


def _seconds(text: str) -> float:
    """``[[hh:]mm:]ss`` as seconds; ``ValueError`` for anything else (empty is 0)."""
    if not text.strip():
        return 0.0
    total = 0.0
    for part in text.strip().split(":"):
        total = total * 60 + float(part)
    return total


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes:02d}:{rest:02d}"


def _read_clock(value: str) -> str | None:
    """A ``TI`` of time and increment (no extension) as a ``time_control`` tag, else ``None``."""
    fields = value.split("/")
    if not value.strip() or len(fields) > 3:
        return None
    try:
        main, increment, extension = (_seconds(f) for f in (*fields, "", "")[:3])
    except ValueError:
        return None
    return time_control_text(main, increment) if extension == 0 else None


def _read_result(value: str, line: int, column: int) -> str | None:
    text = value.strip()
    if text in ("", "?"):
        return None
    margin_text, _, how = text.partition(":")
    try:
        margin = float(margin_text)
    except ValueError:
        raise RecordError(f"RE[{value}] is not a disc margin like +12.000", line, column) from None
    if how.lower().startswith("r"):
        return "B+R" if margin > 0 else "W+R"
    if how.lower().startswith("t"):
        return "B+T" if margin > 0 else "W+T"
    if how.lower().startswith("f"):
        return "B+F" if margin > 0 else "W+F"
    if margin == 0:
        return "Draw"
    return f"B+{abs(margin):g}" if margin > 0 else f"W+{abs(margin):g}"


def _write_result(result: str, over: bool) -> str:
    if result == "Draw":
        return "0.000" if over else "0.000:s"  # before the end, a draw is one the players agreed
    if result[:2] not in ("B+", "W+"):
        return "?"  # Void: GGF has no word for a game called off
    sign = "+" if result.startswith("B") else "-"
    margin = result[2:]
    if margin in ("R", "T", "F"):
        return f"{sign}1.000:{margin.lower()}"  # GGF needs a number; the suffix says how it ended
    try:
        return f"{sign}{float(margin):.3f}"
    except ValueError:
        return "?"


def write_ggf(records: Sequence[GameRecord]) -> str:
    out = []
    for record in records:
        if record.game != "reversi":
            raise RecordError(f"GGF holds Othello games only, not {record.game}")
        size = int(record.options.get("size", 8))
        try:
            start = reversi.Board(record.position, size=size)
        except ValueError as exc:
            raise RecordError(f"cannot write the start position: {exc}") from None
        parts = ["(;GM[Othello]"]
        tags = dict(record.tags)
        clock = parse_time_control(tags.pop("time_control", ""))
        if clock is not None:
            tags["time"] = "/".join((_clock(clock[0]), _clock(clock[1]), "00:00"))
        date = _ISO_DATE.match(tags.get("date", ""))
        if date is not None:
            tags["date"] = ".".join(date.groups())
        for tag in ("place", "date", "black", "white", "black_rating", "white_rating", "time"):
            if tag in tags:
                parts.append(f"{_TAG_KEYS[tag]}[{_escape(tags[tag])}]")
        parts.append(f"TY[{record.tags.get('type', size)}]")
        if record.result is not None:
            parts.append(f"RE[{_write_result(record.result, replay(_copy(record)).is_game_over())}]")
        rows = start.to_text().split()[0].replace("X", "*").split("/")
        parts.append(f"BO[{size} {' '.join(rows)} {'*' if start.turn == 0 else 'O'}]")
        for key, value in record.tags.items():
            if key not in _TAG_KEYS and key != "type" and re.fullmatch(r"[A-Z][A-Z0-9]*", key) and key not in _STRUCTURAL:
                parts.append(f"{key}[{_escape(value)}]")
        board = reversi.Board(record.position, size=size)
        for move in record.moves:
            color = "B" if board.turn == 0 else "W"
            try:
                board.push(move)
            except ValueError as exc:
                raise RecordError(f"cannot write move {move}: {exc}") from None
            parts.append(f"{color}[{'PA' if move.lower() == 'pass' else move.lower()}]")
        parts.append(";)")
        out.append("".join(parts))
    return "".join(game + "\n" for game in out)


def _copy(record: GameRecord) -> GameRecord:
    return GameRecord(record.game, dict(record.options), record.position, list(record.moves))


def _escape(value: str) -> str:
    return value.replace("]", ")")  # GGF has no escape for ']'; keep the file readable


register_format("ggf", (".ggf",), read_ggf, write_ggf)
