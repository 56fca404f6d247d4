"""SGF FF[4] game records: GM[2] Othello and GM[4] Gomoku (several games a file).

A file is a collection of game trees ``(;GM[2]FF[4]SZ[8]PB[..]PW[..]RE[B+12];B[fe];W[dd]...)``.
Only the main line is read: the first variation at every branch.  Values may
escape ``]`` and ``\\`` with a backslash.

Points are SGF's usual pair of letters: the column letter (``a`` left) then
the row letter counted FROM THE TOP (``a`` the top row), so ``aa`` is the
top-left corner.

- GM[2] Othello: ``fe`` is column f, row 5 from the top, i.e. Othello's
  ``f5``.  A move written in Othello notation (``B[f5]``) is read too.  A pass
  is an empty value ``B[]`` or ``B[tt]`` on boards up to 19.  We write the
  start position as ``AB``/``AW`` (plus ``PL[W]`` when White starts), so any
  reader sees the discs; with no ``AB``/``AW`` the standard start is assumed.
- GM[4] Gomoku: tabletop writes Gomoku moves in renju notation with ``a1``
  the BOTTOM-left corner, so SGF ``hh`` on 15x15 is ``h8`` (the centre) and
  ``aa`` is ``a15``: the row number is ``height - (row letter index)``.
  ``SZ[15]`` or ``SZ[w:h]``; ``RU[renju]`` (or another tabletop rule name) sets
  the rule.

``RE`` is kept as written, in SGF's conventions (``B+12``, ``W+R`` resigned,
``B+T`` on time, ``W+F`` forfeit, ``Draw``, ``Void``; ``0`` reads as
``Draw``).  ``PB``/``PW``/``BR``/``WR``/``DT``/``PC``/``EV``/``GN`` map to
``black``/``white``/``black_rating``/``white_rating``/``date``/``place``/
``event``/``name`` and ``ON`` to ``opening``; ``TM`` (the seconds each side starts with) and an ``OT``
of the form ``Fischer: +5 s a move`` make the ``time_control`` tag
(``300+5``).  Any other root property is kept under its own key and written
back.

This module parses and formats text only; the rules library judges the moves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop.games import new_board
from tabletop.games.core import BaseBoard, column_letter
from tabletop.records import (
    GameRecord,
    RecordError,
    parse_time_control,
    register_format,
    replay,
    time_control_text,
)

__all__ = ["read_sgf", "write_sgf"]

_TAGS = {
    "PB": "black",
    "PW": "white",
    "BR": "black_rating",
    "WR": "white_rating",
    "DT": "date",
    "PC": "place",
    "EV": "event",
    "GN": "name",
    "ON": "opening",
}
_TAG_KEYS = {v: k for k, v in _TAGS.items()}
_STRUCTURAL = {"FF", "GM", "SZ", "CA", "AP", "RE", "AB", "AW", "AE", "PL", "RU", "B", "W"}
_FISCHER = re.compile(r"^\s*fischer\b\W*\+?\s*(\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
_GAMES = {"2": "reversi", "4": "gomoku"}
_GM = {"reversi": 2, "gomoku": 4}


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


@dataclass
class _Node:
    props: list[tuple[str, list[str], int]] = field(default_factory=list)


class _Parser:
    """A small recursive-descent reader of the SGF collection grammar."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, reason: str, offset: int | None = None) -> RecordError:
        return RecordError(reason, *_where(self.text, self.pos if offset is None else offset))

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def collection(self) -> list[tuple[list[_Node], int]]:
        games = []
        while self.peek():
            if self.peek() != "(":
                raise self.error(f"expected '(' to start a game, found {self.peek()!r}")
            start = self.pos
            games.append((self.tree(), start))
        if not games:
            raise self.error("no game found (an SGF game starts with '(;')")
        return games

    def tree(self) -> list[_Node]:
        """The main line of one game tree: its nodes, then its first variation's."""
        self.pos += 1  # '('
        nodes: list[_Node] = []
        while self.peek() == ";":
            self.pos += 1
            nodes.append(self.node())
        if not nodes:
            raise self.error("a game tree must start with ';'")
        first = True
        while self.peek() == "(":
            variation = self.tree()
            if first:
                nodes.extend(variation)
                first = False
        if self.peek() != ")":
            found = self.peek()
            raise self.error(f"expected ')' to close the game tree, found {found!r}" if found else "game tree not closed with ')'")
        self.pos += 1
        return nodes

    def node(self) -> _Node:
        node = _Node()
        while True:
            self.skip()
            match = re.compile(r"[A-Za-z]+").match(self.text, self.pos)
            if match is None:
                return node
            ident, offset = match.group(), self.pos
            if not ident.isupper():
                raise self.error(f"property name {ident!r} must be upper case")
            self.pos = match.end()
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise self.error(f"property {ident} has no value")
            node.props.append((ident, values, offset))

    def value(self) -> str:
        start = self.pos
        self.pos += 1
        out = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                self.pos += 1
                if self.pos < len(self.text) and self.text[self.pos] != "\n":
                    out.append(self.text[self.pos])
            elif ch == "]":
                self.pos += 1
                return "".join(out)
            else:
                out.append(ch)
            self.pos += 1
        raise self.error("property value has no closing ']'", start)


def read_sgf(text: str, game: str | None = None, options: dict[str, Any] | None = None) -> list[GameRecord]:
    parser = _Parser(text)
    return [_record(nodes, text, start) for nodes, start in parser.collection()]


def _record(nodes: list[_Node], text: str, start: int) -> GameRecord:
    root = {key: (values, offset) for key, values, offset in nodes[0].props}
    gm = root.get("GM", (["1"], start))
    game = _GAMES.get(gm[0][0].strip())
    if game is None:
        raise RecordError(f"GM[{gm[0][0]}] is not Othello (2) or Gomoku (4)", *_where(text, gm[1]))
    default = 8 if game == "reversi" else 15
    size_text, size_offset = root.get("SZ", ([str(default)], start))
    try:
        parts = [int(p) for p in size_text[0].split(":")]
    except ValueError:
        raise RecordError(f"SZ[{size_text[0]}] is not a size", *_where(text, size_offset)) from None
    width, height = parts[0], parts[-1]
    options: dict[str, Any] = {"size": width} if width == height else {"width": width, "height": height}
    if game == "reversi" and width != height:
        raise RecordError("an Othello board must be square", *_where(text, size_offset))
    record = GameRecord(game=game, options=options)
    if "RU" in root and game == "gomoku":
        record.options["rule"] = root["RU"][0][0].strip().lower()
    if "RE" in root:
        result = root["RE"][0][0].strip()
        record.result = None if result in ("", "?") else ("Draw" if result in ("0", "Draw", "D") else result)
    for key, (values, _) in root.items():
        if key not in _STRUCTURAL:
            record.tags[_TAGS.get(key, key)] = values[0]
    _read_time_control(record.tags)
    try:
        board = record.board()
    except ValueError as exc:
        raise RecordError(str(exc), *_where(text, size_offset)) from None
    setup = False
    moves: list[str] = []
    locations: list[tuple[int, int]] = []
    colors: list[str | None] = []
    for index, node in enumerate(nodes):
        for key, values, offset in node.props:
            if key in ("AB", "AW", "AE", "PL"):
                if index != 0 and moves:
                    raise RecordError(f"{key} after the first move is not supported", *_where(text, offset))
                setup = True
            elif key in ("B", "W"):
                moves.append(_move_text(values[0], board, text, offset))
                locations.append(_where(text, offset))
                colors.append(key)
    if setup:
        record.position = _setup_position(nodes, board, text)
        if record.position == new_board(game, options).to_text():
            record.position = None
    record.moves = moves
    replay(record, locations, colors)
    return record


def _read_time_control(tags: dict[str, str]) -> None:
    """``TM`` (seconds) and a Fischer ``OT`` become the ``time_control`` tag; an ``OT`` of
    another kind stays as it is."""
    try:
        initial = float(tags.get("TM", ""))
    except ValueError:
        return  # no TM, or one that is not a number: kept as written
    increment = 0.0
    fischer = _FISCHER.match(tags.get("OT", ""))
    if fischer is not None:
        increment = float(fischer.group(1))
        del tags["OT"]
    del tags["TM"]
    tags["time_control"] = time_control_text(initial, increment)


def _point(value: str, board: BaseBoard, text: str, offset: int) -> tuple[int, int]:
    v = value.strip()
    if len(v) != 2 or not v.isalpha():
        raise RecordError(f"[{value}] is not an SGF point like 'dd'", *_where(text, offset))
    col, row = ord(v[0].lower()) - ord("a"), ord(v[1].lower()) - ord("a")
    if not board.on_board(col, row):
        raise RecordError(f"point [{value}] is off the {board.width}x{board.height} board", *_where(text, offset))
    return col, row


def _move_text(value: str, board: BaseBoard, text: str, offset: int) -> str:
    v = value.strip().lower()
    if v in ("", "pass") or (v == "tt" and board.width <= 19 and board.height <= 19):
        return "pass"
    if len(v) >= 2 and v[0].isalpha() and v[1:].isdigit():
        return v  # Othello notation, as some programs write it
    col, row = _point(v, board, text, offset)
    return str(board.move_at(col, row))


def _setup_position(nodes: list[_Node], board: BaseBoard, text: str) -> str:
    w, h = board.width, board.height
    cells = [["-"] * w for _ in range(h)]
    # AB/AW give the whole start position; PL alone changes who starts from the standard one.
    explicit = any(key in ("AB", "AW") for key, _, _ in nodes[0].props)
    if not explicit:
        for col, row, color in board.stones():
            cells[row][col] = color.symbol
    side = "X"
    for key, values, offset in nodes[0].props:
        if key in ("AB", "AW", "AE"):
            for value in values:
                for col, row in _points(value, board, text, offset):
                    cells[row][col] = {"AB": "X", "AW": "O", "AE": "-"}[key]
        elif key == "PL":
            side = "X" if values[0].strip().upper() == "B" else "O"
    return "/".join("".join(row) for row in cells) + " " + side


def _points(value: str, board: BaseBoard, text: str, offset: int) -> list[tuple[int, int]]:
    if ":" in value:  # a compressed rectangle "aa:cc"
        a, b = value.split(":", 1)
        c1, r1 = _point(a, board, text, offset)
        c2, r2 = _point(b, board, text, offset)
        return [(c, r) for r in range(min(r1, r2), max(r1, r2) + 1) for c in range(min(c1, c2), max(c1, c2) + 1)]
    return [_point(value, board, text, offset)]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(records: Sequence[GameRecord]) -> str:
    out = []
    for record in records:
        gm = _GM.get(record.game)
        if gm is None:
            raise RecordError(f"SGF here holds Othello and Gomoku games, not {record.game}")
        board = record.board()
        size = f"{board.width}" if board.width == board.height else f"{board.width}:{board.height}"
        parts = [f"(;FF[4]GM[{gm}]CA[UTF-8]AP[tabletop]SZ[{size}]"]
        if record.game == "gomoku" and "rule" in record.options:
            parts.append(f"RU[{record.options['rule']}]")
        clock = parse_time_control(record.tags.get("time_control", ""))
        for tag, value in record.tags.items():
            key = _TAG_KEYS.get(tag, tag)
            if clock is not None and key in ("TM", "OT"):
                continue  # written from time_control below
            if re.fullmatch(r"[A-Z]{1,2}", key) and key not in _STRUCTURAL:
                parts.append(f"{key}[{_escape(value)}]")
        if clock is not None:
            initial, increment = (time_control_text(t) for t in clock)
            parts.append(f"TM[{initial}]")
            if clock[1]:
                parts.append(f"OT[Fischer: +{increment} s a move]")
            elif "OT" in record.tags:
                parts.append(f"OT[{_escape(record.tags['OT'])}]")
        elif record.tags.get("time_control") and "OT" not in record.tags:
            parts.append(f"OT[{_escape(record.tags['time_control'])}]")  # a clock of another kind, in words
        if record.result is not None:
            parts.append(f"RE[{_escape(record.result)}]")
        if record.game == "reversi" or record.position is not None:
            black = [_sgf_point(c, r) for c, r, color in board.stones() if color == 0]
            white = [_sgf_point(c, r) for c, r, color in board.stones() if color == 1]
            if black:
                parts.append("AB" + "".join(f"[{p}]" for p in black))
            if white:
                parts.append("AW" + "".join(f"[{p}]" for p in white))
            if board.turn != 0:
                parts.append("PL[W]")
        for move in record.moves:
            color = "B" if board.turn == 0 else "W"
            try:
                parsed = board.parse_move(move)
                board.push(parsed)
            except ValueError as exc:
                raise RecordError(f"cannot write move {move}: {exc}") from None
            parts.append(f";{color}[{'' if parsed.is_pass else _sgf_point(parsed.col, parsed.row)}]")
        parts.append(")")
        out.append("".join(parts))
    return "".join(game + "\n" for game in out)


def _sgf_point(col: int, row: int) -> str:
    return column_letter(col) + column_letter(row)


register_format("sgf", (".sgf",), read_sgf, write_sgf)
