"""The Reversi opening book: positions of the first plies with negamax values from the engine's own searches.

A book is two sorted arrays: 64-bit keys of positions (side to move, opponent)
taken up to the board's eight symmetries, and their values in discs for the
side to move (int8).  A position is a book position when every one of its
children is in the book; a move's value is then minus its child's value.
``scripts/build_reversi_book.py`` builds the shipped ``book.npz`` beside this
module.  This module only stores, looks up and chooses; it must not search.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.ai.reversi import kernel

__all__ = ["BOOK_FILE", "Book", "canonical", "children", "default_book", "position_key"]

BOOK_FILE = Path(__file__).with_name("book.npz")
_MASK = (1 << 64) - 1
_REVERSE_BITS = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def _flip_vertical(x: int) -> int:
    # row r -> row 7 - r: the bytes in reverse order
    return int.from_bytes(x.to_bytes(8, "little"), "big")


def _mirror(x: int) -> int:
    # column c -> column 7 - c: the bits of every byte reversed
    return int.from_bytes(x.to_bytes(8, "little").translate(_REVERSE_BITS), "little")


def _transpose(x: int) -> int:
    # (row, col) -> (col, row), by three delta swaps
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AA
    x ^= t ^ (t << 7)
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCC
    x ^= t ^ (t << 14)
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0
    x ^= t ^ (t << 28)
    return x & _MASK


def _symmetries(x: int) -> list[int]:
    v = _flip_vertical(x)
    base = [x, v, _mirror(x), _mirror(v)]
    return base + [_transpose(b) for b in base]


def canonical(player: int, opponent: int) -> tuple[int, int]:
    """The least of the position's eight symmetric images (the same for all of them)."""
    return min(zip(_symmetries(player), _symmetries(opponent), strict=True))


def position_key(player: int, opponent: int) -> int:
    """A 64-bit key of the position up to symmetry (a mix of its canonical bitboards)."""
    p, o = canonical(player, opponent)
    h = (p * 0x9E3779B97F4A7C15 + (o ^ 0xD6E8FEB86659FD93) * 0xC2B2AE3D27D4EB4F) & _MASK
    h ^= h >> 31
    h = (h * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 29)


def children(player: int, opponent: int) -> list[tuple[int, int, int]]:
    """(square, child side to move, child opponent) for every legal move; -1 is a forced pass."""
    p, o = np.uint64(player), np.uint64(opponent)
    moves = int(kernel.get_moves(p, o))
    if not moves:
        return [(-1, opponent, player)] if int(kernel.get_moves(o, p)) else []
    out = []
    while moves:
        sq = (moves & -moves).bit_length() - 1
        moves &= moves - 1
        f = int(kernel.flips(p, o, sq))
        out.append((sq, opponent ^ f, player ^ f ^ (1 << sq)))
    return out


@dataclass(frozen=True)
class Book:
    """Sorted ``keys`` (uint64) and their ``values`` (int8 discs, side to move)."""

    keys: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @classmethod
    def from_dict(cls, values: dict[int, float]) -> Book:
        keys = np.array(sorted(values), dtype=np.uint64)
        vals = np.array([round(max(-64.0, min(64.0, values[int(k)]))) for k in keys], dtype=np.int8)
        return cls(keys, vals)

    def value(self, player: int, opponent: int) -> int | None:
        """The book's value of the position for the side to move, or None."""
        if not len(self):
            return None
        key = np.uint64(position_key(player, opponent))
        i = int(np.searchsorted(self.keys, key))
        if i < len(self) and self.keys[i] == key:
            return int(self.values[i])
        return None

    def scores(self, player: int, opponent: int) -> list[tuple[int, int]] | None:
        """(square, value in discs for the mover) of every legal move, best first, when the
        position is in the book (all its children are); else None."""
        out = []
        for sq, cp, co in children(player, opponent):
            v = self.value(cp, co)
            if v is None:
                return None
            out.append((sq, -v))
        if not out:
            return None
        out.sort(key=lambda s: -s[1])
        return out

    def choose(self, player: int, opponent: int, rng: random.Random, tolerance: int = 1) -> int | None:
        """A book move: one of those within ``tolerance`` discs of the best, at random; None
        out of the book."""
        scores = self.scores(player, opponent)
        if scores is None:
            return None
        best = scores[0][1]
        near = [sq for sq, v in scores if v >= best - tolerance]
        return rng.choice(near)

    def save(self, path: Path = BOOK_FILE, **info: object) -> None:
        extra = {k: np.asarray(str(v)) for k, v in info.items()}
        np.savez_compressed(path, keys=self.keys, values=self.values, **extra)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path = BOOK_FILE) -> Book:
        """The book stored at ``path`` (an empty one when there is no file)."""
        if not path.exists():
            return cls(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int8))
        try:
            with np.load(path) as data:
                keys = np.asarray(data["keys"], dtype=np.uint64)
                values = np.asarray(data["values"], dtype=np.int8)
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a Reversi book ({exc})") from None
        if keys.shape != values.shape or keys.ndim != 1 or np.any(keys[1:] <= keys[:-1]):
            raise ValueError(f"{path}: not a Reversi book (keys and values must be matching, sorted arrays)")
        return cls(keys, values)


@functools.cache
def default_book() -> Book:
    """The shipped book (empty when it is missing)."""
    return Book.load()
