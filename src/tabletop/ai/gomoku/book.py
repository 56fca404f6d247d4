"""An opening book for the strongest level: the first moves after the family of three-stone
openings, each chosen by a search many times longer than a move's.

``book-freestyle.json`` and ``book-renju.json`` beside this module are written by
``scripts/build_gomoku_book.py``: for every opening of :func:`~.openings.opening_candidates` on
the 15x15 board (Black on the centre, White near it, Black's second stone on a ring; White to
move), White's answer; for the best few of those answers, Black's reply; and after White's
chosen answer and Black's best few replies, White's next move.  For the openings matches are
drawn from (:func:`~.openings.balanced_openings`) the book goes two moves further along its own
line: Black's seventh stone after White's chosen sixth, and White's eighth after Black's best few
seventh stones.  Where games the engine lost showed a book or searched move proved lost, the
script's ``learn`` puts a move that is not in its place (marked ``learned``) and the book goes
two plies on past it.  Each entry is the stones in the order played and the move a long search
chose (with its score and depth), so the file reads as a list of lines.

A position is looked up by its stones under the board's eight symmetries (the smallest image
is its key), so one entry serves every reflection and rotation of its line and any order of
reaching it; the move comes back through the same symmetry.  A book move is handed back only
when it is legal on the board asked about (a foul for Renju's Black is not).

Nothing here searches; the engine asks :func:`book_move` before it thinks.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from tabletop.ai.gomoku.position import rule_of
from tabletop.games.core import BaseBoard, Color, IllegalMoveError, Move

__all__ = ["BOOK_RULES", "BOOK_SIZE", "Entry", "book_move", "entries", "line_board", "position_key", "preload",
           "smallest_image", "transform"]

HERE = Path(__file__).parent
BOOK_RULES = ("freestyle", "renju")
BOOK_SIZE = 15
MAX_STONES = 16  # no entry has more stones: a longer game skips the look-up

# a symmetry of the square board: (swap the axes, flip the columns, flip the rows)
Symmetry = tuple[bool, bool, bool]
SYMMETRIES: tuple[Symmetry, ...] = tuple((s, c, r) for s in (False, True) for c in (False, True) for r in (False, True))
Key = tuple[tuple[int, int, int], ...]  # (colour index, column, row) of each stone, sorted
Entry = tuple[list[str], str, float, int]  # stones in order, the move, its score, the search's depth


def transform(sym: Symmetry, col: int, row: int, width: int = BOOK_SIZE, height: int | None = None) -> tuple[int, int]:
    """The image of the point (``col``, ``row``) on a ``width`` x ``height`` board (square when
    ``height`` is left out) under ``sym``: the axes swapped first, then flipped."""
    swap, flip_c, flip_r = sym
    c, r = (row, col) if swap else (col, row)
    h = width if height is None else height
    return (width - 1 - c if flip_c else c, h - 1 - r if flip_r else r)


def _inverse(sym: Symmetry, col: int, row: int, size: int = BOOK_SIZE) -> tuple[int, int]:
    """The point whose image under ``sym`` is (``col``, ``row``)."""
    swap, flip_c, flip_r = sym
    c = size - 1 - col if flip_c else col
    r = size - 1 - row if flip_r else row
    return (r, c) if swap else (c, r)


def smallest_image(stones: list[tuple[int, int, int]], width: int = BOOK_SIZE,
                   height: int | None = None) -> tuple[Key, Symmetry]:
    """The smallest image of ``stones`` ((colour index, column, row) each) under the board's
    symmetries (all eight on a square board, the four flips on another), and the symmetry that
    gives it."""
    h = width if height is None else height
    best: tuple[Key, Symmetry] | None = None
    for sym in SYMMETRIES:
        if sym[0] and width != h:
            continue  # the axes swap only on a square board
        image = tuple(sorted((colour, *transform(sym, c, r, width, h)) for colour, c, r in stones))
        if best is None or image < best[0]:
            best = (image, sym)
    assert best is not None
    return best


def line_board(rule: str, stones: list[str]) -> BaseBoard:
    """A 15x15 board of ``rule`` after the moves ``stones`` (names such as ``h8``), in order."""
    from tabletop.games import new_board

    board = new_board("gomoku", {"rule": rule, "size": BOOK_SIZE})
    for name in stones:
        board.push(board.parse_move(name))
    return board


def position_key(board: BaseBoard) -> tuple[Key, Symmetry] | None:
    """``board``'s key and the symmetry that maps it there, or None when the board is not the
    book's size or has more stones than any entry."""
    if board.width != BOOK_SIZE or board.height != BOOK_SIZE:
        return None
    stones = []
    for row in range(board.height):
        for col in range(board.width):
            piece = board.piece_at(col, row)
            if piece is not None:
                stones.append((0 if piece == Color.BLACK else 1, col, row))
                if len(stones) > MAX_STONES:
                    return None
    return smallest_image(stones)


def entries(rule: str) -> list[Entry]:
    """The book's lines for ``rule`` as stored (empty for a rule without a book)."""
    path = HERE / f"book-{rule}.json"
    if rule not in BOOK_RULES or not path.exists():
        return []
    data = json.loads(path.read_text())
    return [(str(e["stones"]).split(), str(e["move"]), float(e["score"]), int(e["depth"])) for e in data["entries"]]


@lru_cache(maxsize=len(BOOK_RULES))
def _table(rule: str) -> dict[Key, tuple[int, int]]:
    """Each entry's key and its move in the key's coordinates."""
    # the names are read on an empty board, not played: replaying every line on a rules board
    # (Renju's forbidden points judged at each stone) took seconds; the lines were played when the
    # book was packed, and book_move checks its move on the board it is asked about
    from tabletop.games import new_board

    names = new_board("gomoku", {"rule": "freestyle", "size": BOOK_SIZE})
    table: dict[Key, tuple[int, int]] = {}
    for stones, move, _score, _depth in entries(rule):
        assert len(stones) <= MAX_STONES, f"book line {' '.join(stones)} is longer than {MAX_STONES} stones"
        points = [names.parse_move(name) for name in stones]
        key, sym = smallest_image([(i % 2, m.col, m.row) for i, m in enumerate(points)])
        m = names.parse_move(move)
        table[key] = transform(sym, m.col, m.row)
    return table


def preload() -> int:
    """Read both books now (tens of milliseconds), so that no timed move pays for it; their entries."""
    return sum(len(_table(rule)) for rule in BOOK_RULES)


def book_move(board: BaseBoard) -> Move | None:
    """The book's move for ``board``, or None when the book has no entry for it (another rule or
    size, a position it does not hold) or the move is not legal there."""
    rule = rule_of(board)
    if rule not in BOOK_RULES:
        return None
    found = position_key(board)
    if found is None:
        return None
    key, sym = found
    point = _table(rule).get(key)
    if point is None:
        return None
    col, row = _inverse(sym, *point)
    move = board.move_at(col, row)
    try:
        board.copy().push(move)
    except IllegalMoveError:
        return None
    return move
