"""The engine's own view of a Gomoku position: padded arrays kept in step by numba kernels.

:class:`Position` is built from a rules board (:mod:`tabletop.games.mnk`) and
then played on with :meth:`Position.play` / :meth:`Position.undo`, which keep
the line patterns, scores, candidate neighbourhood and a Zobrist hash up to
date.  It must not decide legality for the real game: the rules board does
that, and every move the engine returns is checked there.
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from tabletop.ai.gomoku import kernels as K
from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.evaluation import weights
from tabletop.games.core import BLACK, BaseBoard, Move

__all__ = ["Position", "keys_array", "rule_of", "signed", "tables", "zobrist_keys"]


@lru_cache(maxsize=1)
def tables() -> np.ndarray:
    """The pattern tables (built once per process, about a second with numba's cache warm)."""
    return P.build_tables()


@lru_cache(maxsize=1)
def line_double_fours() -> np.ndarray:
    return P.build_line_double_fours()


@lru_cache(maxsize=8)
def zobrist_keys(n: int) -> tuple[list[int], list[int]]:
    rng = random.Random(20261122)
    return [rng.getrandbits(64) for _ in range(n)], [rng.getrandbits(64) for _ in range(n)]


@lru_cache(maxsize=8)
def keys_array(size: int) -> np.ndarray:
    """The Zobrist keys as int64 (the same bits), colour by point, for the kernels."""
    black, white = zobrist_keys(size)
    return np.array([black, white], dtype=np.uint64).view(np.int64)


def signed(h: int) -> int:
    """A 64-bit hash as the kernels' int64."""
    return h - (1 << 64) if h >= 1 << 63 else h


def rule_of(board: BaseBoard) -> str:
    return str(getattr(board, "rule", "freestyle"))


class Position:
    """A position for search.  Colours are 1 (Black) and 2 (White) here,
    colour indices 0 and 1 in the pattern arrays."""

    def __init__(self, width: int, height: int, rule: str = "freestyle") -> None:
        self.width = width
        self.height = height
        self.rule = rule
        self.stride = width + 2 * P.PAD
        size = self.stride * (height + 2 * P.PAD)
        self.cells = np.full(size, P.WALL, dtype=np.int8)
        for row in range(height):
            start = self.point(0, row)
            self.cells[start : start + width] = P.EMPTY
        self.dirs = np.array([1, self.stride, self.stride + 1, self.stride - 1], dtype=np.int64)
        # table kind per colour: 1 = exactly five wins
        black_exact = rule in ("standard", "renju")
        white_exact = rule == "standard"
        self.kinds = np.array([1 if black_exact else 0, 1 if white_exact else 0], dtype=np.int64)
        self.tables = tables()
        self.pat = np.zeros((2, size, 4), dtype=np.int8)
        self.codes = np.zeros((2, size, 4), dtype=np.int32)
        self.pscore = np.zeros((2, size), dtype=np.int32)
        self.total = np.zeros(4, dtype=np.int64)  # the learned value's sums (patterns.py)
        self.weights = weights(rule)
        self.near = np.zeros(size, dtype=np.int16)
        P.init_board(self.cells, self.pat, self.codes, self.pscore, self.total, self.weights, self.tables, self.kinds,
                     self.dirs)
        self.turn = 1
        self.history: list[int] = []
        self.hash = 0
        self._keys = zobrist_keys(size)
        self._scratch = np.zeros(size, dtype=np.int64)
        self._keys_buf = np.zeros(size, dtype=np.int64)
        self.renju = rule == "renju"
        self.double_fours = line_double_fours()
        self.stack = np.zeros((8, K.STACK), dtype=np.int64)  # the kernels' scratch rows

    @classmethod
    def from_board(cls, board: BaseBoard) -> Position:
        """The position of ``board`` (stones in move order where the stack has them)."""
        pos = cls(board.width, board.height, rule_of(board))
        placed = set()
        for m in board.move_stack:
            if m.is_pass:
                continue
            c = board.piece_at(m.col, m.row)
            if c is not None:
                pos._put(pos.point(m.col, m.row), 1 if c is BLACK else 2)
                placed.add((m.col, m.row))
        for row in range(board.height):
            for col in range(board.width):
                c = board.piece_at(col, row)
                if c is not None and (col, row) not in placed:
                    pos._put(pos.point(col, row), 1 if c is BLACK else 2)
        pos.turn = 1 if board.turn is BLACK else 2
        pos.history.clear()
        return pos

    # -- geometry --------------------------------------------------------------------
    def point(self, col: int, row: int) -> int:
        return (row + P.PAD) * self.stride + col + P.PAD

    def col_row(self, p: int) -> tuple[int, int]:
        r, c = divmod(p, self.stride)
        return c - P.PAD, r - P.PAD

    def to_move(self, board: BaseBoard, p: int) -> Move:
        col, row = self.col_row(p)
        return board.move_at(col, row)

    # -- play ------------------------------------------------------------------------
    def _put(self, p: int, color: int) -> None:
        P.make_move(self.cells, self.pat, self.codes, self.pscore, self.total, self.weights, self.near, self.tables,
                    self.kinds, self.dirs, self.stride, p, color)
        self.hash ^= self._keys[color - 1][p]

    def play(self, p: int) -> None:
        color = self.turn
        self._put(p, color)
        self.history.append(p)
        self.turn = 3 - color

    def undo(self) -> None:
        p = self.history.pop()
        color = 3 - self.turn
        P.unmake_move(self.cells, self.pat, self.codes, self.pscore, self.total, self.weights, self.near, self.tables,
                      self.kinds, self.dirs, self.stride, p)
        self.hash ^= self._keys[color - 1][p]
        self.turn = color

    # -- questions -----------------------------------------------------------------------
    def pattern(self, color: int, p: int) -> int:
        """The best line pattern ``color`` makes by playing ``p``."""
        return int(P.best_pattern(self.pat, color - 1, p))

    def points_with(self, color: int, level: int) -> list[int]:
        """Empty points near stones where ``color`` makes at least ``level``."""
        n = P.points_with(self.pat, self.cells, self.near, color - 1, level, self._scratch)
        return [int(x) for x in self._scratch[:n]]

    def five_points(self, color: int) -> list[int]:
        return self.points_with(color, P.FIVE)

    def is_foul(self, color: int, p: int) -> bool:
        """Renju only: would this Black stone be a foul (Renju's rule, judged exactly)?"""
        return self.renju and color == 1 and bool(K.is_foul(K.board_tuple(self), color, p))

    def candidates(self, limit: int = 400) -> list[int]:
        """Empty points within two of a stone, best first (the centre on an empty board)."""
        if not self.history and not self.near.any():
            return [self.point(self.width // 2, self.height // 2)]
        n = P.ranked_candidates(self.pscore, self.cells, self.near, self.turn - 1, self._scratch, self._keys_buf)
        out = [int(x) for x in self._scratch[: min(n, limit)]]
        if self.renju and self.turn == 1:
            out = [p for p in out if not self.is_foul(1, p)]
        return out

    def evaluate(self) -> int:
        """Static value for the side to move (the learned table's units, :data:`evaluation.SCALE` a
        unit of log-odds)."""
        return int(P.static_value(self.total, self.weights, self.turn - 1))

    def is_full(self) -> bool:
        return not bool((self.cells == P.EMPTY).any())

    def stone_count(self) -> int:
        return int(((self.cells == P.BLACK) | (self.cells == P.WHITE)).sum())
