"""The squares of the evaluation's patterns, and where each pattern's weights start.

Each pattern is given once by its base squares; its instances are the base's images under the
board's 8 symmetries, an image that covers the same squares as an earlier one being dropped, and every
instance of a pattern shares one weight table (3 ** squares entries: a square's digit is 0 empty,
1 the mover's, 2 the opponent's, the first square the lowest digit).

The set follows the strongest pattern engines (Logistello, Edax, Egaroucid): an edge with its two
X-squares, the 3x3 and the 2x5 corner blocks, the second to fourth lines, and the diagonals of 4 to 8
squares.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PATTERN_BASES", "MAX_PATTERN_SQUARES", "build_patterns", "symmetries"]

MAX_PATTERN_SQUARES = 10

# (name, [(row, col), ...]) with a1 = (0, 0) the top-left corner
PATTERN_BASES: list[tuple[str, list[tuple[int, int]]]] = [
    ("edge2x", [(0, c) for c in range(8)] + [(1, 1), (1, 6)]),
    ("corner3x3", [(r, c) for r in range(3) for c in range(3)]),
    ("corner2x5", [(r, c) for r in range(2) for c in range(5)]),
    ("row2", [(1, c) for c in range(8)]),
    ("row3", [(2, c) for c in range(8)]),
    ("row4", [(3, c) for c in range(8)]),
    ("diag8", [(i, i) for i in range(8)]),
    ("diag7", [(i, i + 1) for i in range(7)]),
    ("diag6", [(i, i + 2) for i in range(6)]),
    ("diag5", [(i, i + 3) for i in range(5)]),
    ("diag4", [(i, i + 4) for i in range(4)]),
]


def symmetries(sq: int) -> list[int]:
    """The images of square ``sq`` (``row * 8 + col``) under the board's 8 symmetries."""
    r, c = divmod(sq, 8)
    images = [(r, c), (c, r), (r, 7 - c), (7 - c, r), (7 - r, c), (c, 7 - r), (7 - r, 7 - c), (7 - c, 7 - r)]
    return [rr * 8 + cc for rr, cc in images]


def build_patterns(
    bases: list[tuple[str, list[tuple[int, int]]]] = PATTERN_BASES,
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, int]]]:
    """Pattern instances (their squares, -1 padded to ``MAX_PATTERN_SQUARES``), each instance's weight
    offset, and each pattern's name with its offset (then ``("end", total)``)."""
    rows: list[list[int]] = []
    offsets: list[int] = []
    names: list[tuple[str, int]] = []
    offset = 0
    for name, cells in bases:
        squares = [r * 8 + c for r, c in cells]
        if len(squares) > MAX_PATTERN_SQUARES:
            raise ValueError(f"pattern {name} has {len(squares)} squares, more than {MAX_PATTERN_SQUARES}")
        seen: set[frozenset[int]] = set()
        for k in range(8):
            image = [symmetries(s)[k] for s in squares]
            key = frozenset(image)
            if key in seen:
                continue
            seen.add(key)
            rows.append(image + [-1] * (MAX_PATTERN_SQUARES - len(image)))
            offsets.append(offset)
        names.append((name, offset))
        offset += 3 ** len(squares)
    return np.array(rows, dtype=np.int64), np.array(offsets, dtype=np.int64), names + [("end", offset)]
