"""The names of openings: the standard Othello openings and the 26 renju openings.

The names and their moves live in data files shipped with the package
(``tabletop/data/openings/othello.json`` and ``renju.json``, each naming its
sources; ``tabletop/data/README.md`` lists them).  This module reads them once
and answers which named openings a game has passed through:

- Reversi 8x8 from the standard start: every named line (``f5 d6 c3 d3 c4`` is
  the Tiger) that the game's moves begin with, under any of the board's 8
  symmetries, so ``c4 e3 f6 e6 f5`` (the Tiger turned half a turn) and
  ``e6 f4 c3 c4 d3`` (mirrored in the diagonal) are the Tiger too.  A deeper
  line keeps the deepest name it reached.
- Gomoku on a board with a centre point (odd width and height), any rule, from
  the empty board: the pattern of the first three stones (Black at the centre,
  White next to it, Black within the centre 5x5), under the 8 symmetries and
  with the two Black stones in either order.  The name holds for the rest of
  the game.

Tic-tac-toe and the other board sizes have no named openings here.  The module
reads package data with the standard library only and knows nothing of rooms
or pages.

>>> [o.name for o in opening_names("reversi", "f5 d6 c3 d3 c4 f4 f6 b5".split())]
['Perpendicular Opening', 'Tiger', 'Stephenson']
>>> opening_name("gomoku", ["h8", "h9", "i9", "j10"], {"size": 15, "rule": "renju"}).name
'Kagetsu'
>>> opening_name("reversi", ["f5", "f4"]).ply
2
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from tabletop.games.core import column_index

__all__ = ["NamedOpening", "longest_opening", "opening_name", "opening_names", "opening_table", "renju_openings"]

Point = tuple[int, int]

# The 8 symmetries of a square, as maps of a point's offsets from the centre.
_SYMMETRIES: tuple[Callable[[int, int], Point], ...] = (
    lambda x, y: (x, y),
    lambda x, y: (-x, y),
    lambda x, y: (x, -y),
    lambda x, y: (-x, -y),
    lambda x, y: (y, x),
    lambda x, y: (-y, x),
    lambda x, y: (y, -x),
    lambda x, y: (-y, -x),
)


@dataclass(frozen=True)
class NamedOpening:
    """A named opening a game reached.

    ``name`` is the opening's English name ("Tiger", "Kagetsu"), ``ply`` the
    number of moves of its line (the name holds from that move on), ``line``
    the game's own first ``ply`` moves, ``family`` ``"othello"`` or
    ``"renju"``, and for renju ``code`` (``"4D"``) and ``kanji`` (``"花月"``).
    """

    name: str
    ply: int
    line: tuple[str, ...]
    family: str
    code: str | None = None
    kanji: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (the server's room state and events carry it)."""
        return {
            "name": self.name,
            "ply": self.ply,
            "line": list(self.line),
            "family": self.family,
            "code": self.code,
            "kanji": self.kanji,
        }


@dataclass(frozen=True)
class _Entry:
    name: str
    family: str
    code: str | None = None
    kanji: str | None = None


def _read(name: str) -> dict[str, Any]:
    text = resources.files("tabletop").joinpath("data", "openings", name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def renju_openings() -> list[tuple[str, str, tuple[str, ...]]]:
    """The 26 standard renju openings as the data file lists them (1D-13D, then 1I-13I): each one's
    code, name and first three stones on 15x15 (``("1D", "Kansei", ("h8", "h9", "h10"))``)."""
    return [(item["code"], item["name"], tuple(item["moves"].split())) for item in _read("renju.json")["openings"]]


def _add(table: dict[tuple[Point, ...], _Entry], key: tuple[Point, ...], entry: _Entry) -> None:
    known = table.get(key)
    if known is not None and known != entry:
        raise ValueError(f"opening data: {key} is both {known.name!r} and {entry.name!r}")
    table[key] = entry


def _othello_point(square: str) -> Point:
    """An 8x8 Reversi square (``a1`` top-left) as offsets from the centre, doubled to stay whole."""
    col, row = column_index(square[0]), int(square[1:]) - 1
    return 2 * col - 7, 2 * row - 7


def _renju_point(square: str, width: int = 15, height: int = 15) -> Point:
    """A Gomoku point (``a1`` bottom-left) as offsets from the board's centre."""
    col, row = column_index(square[0]), int(square[1:]) - 1
    return col - (width - 1) // 2, row - (height - 1) // 2


@cache
def opening_table(family: str) -> dict[tuple[Point, ...], _Entry]:
    """The named lines of ``family`` (``"othello"`` or ``"renju"``) under every symmetry, keyed by
    their points (offsets from the centre).  Raises ``ValueError`` when the data names one line twice."""
    table: dict[tuple[Point, ...], _Entry] = {}
    if family == "othello":
        for item in _read("othello.json")["openings"]:
            points = [_othello_point(m) for m in item["moves"].split()]
            for symmetry in _SYMMETRIES:
                _add(table, tuple(symmetry(*p) for p in points), _Entry(item["name"], family))
    elif family == "renju":
        for item in _read("renju.json")["openings"]:
            first, second, third = (_renju_point(m) for m in item["moves"].split())
            entry = _Entry(item["name"], family, item["code"], item["kanji"])
            for symmetry in _SYMMETRIES:
                a, b, c = symmetry(*first), symmetry(*second), symmetry(*third)
                _add(table, (a, b, c), entry)
                _add(table, (c, b, a), entry)  # Black's two stones in either order
    else:
        raise ValueError(f"no opening names for {family!r} (known: othello, renju)")
    return table


def _family(
    game: str, options: dict[str, Any] | None, position: str | None
) -> tuple[str, Callable[[str], Point]] | None:
    """The family of names of a game's variant and the reader of its moves as points (``None``: no names)."""
    if position is not None:
        return None
    opts = options or {}
    if game == "reversi" and int(opts.get("size", 8)) == 8:
        return "othello", _othello_point
    if game == "gomoku":
        width = int(opts.get("width", opts.get("size", 15)))
        height = int(opts.get("height", opts.get("size", 15)))
        if width % 2 == 0 or height % 2 == 0:
            return None  # no centre point, no renju pattern

        def point(move: str) -> Point:
            return _renju_point(move, width, height)

        return "renju", point
    return None


def longest_opening(game: str, options: dict[str, Any] | None = None, position: str | None = None) -> int:
    """The number of moves of the longest named line of the game's variant (0 when it has none):
    moves past it never change the name.  Arguments as for :func:`opening_names`."""
    family = _family(game, options, position)
    return 0 if family is None else max(len(key) for key in opening_table(family[0]))


def opening_names(
    game: str, moves: Sequence[str], options: dict[str, Any] | None = None, position: str | None = None
) -> list[NamedOpening]:
    """Every named opening that ``moves`` (in the game's notation) pass through, shortest first.

    ``options`` are the variant options (``size``, ``width``/``height``); a game
    from a custom start ``position`` has no named openings.  Moves that are not
    squares (a pass) end the search for longer lines.
    """
    known = _family(game, options, position)
    if known is None:
        return []
    family, point = known
    table = opening_table(family)
    longest = longest_opening(game, options, position)
    points: list[Point] = []
    found: list[NamedOpening] = []
    for move in moves[:longest]:
        try:
            points.append(point(move.strip().lower()))
        except (ValueError, IndexError):
            break  # a pass or a word: no named line goes through it
        entry = table.get(tuple(points))
        if entry is not None:
            ply = len(points)
            found.append(NamedOpening(entry.name, ply, tuple(moves[:ply]), entry.family, entry.code, entry.kanji))
    return found


def opening_name(
    game: str, moves: Sequence[str], options: dict[str, Any] | None = None, position: str | None = None
) -> NamedOpening | None:
    """The deepest named opening ``moves`` reached (``None`` when none): the line that a longer
    game left keeps its name.  Arguments as for :func:`opening_names`."""
    names = opening_names(game, moves, options, position)
    return names[-1] if names else None
