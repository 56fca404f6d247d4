"""Threat-space search: VCF (victory by continuous fours) and VCT (continuous threats), in numba.

Both solvers work on a :class:`~tabletop.ai.gomoku.position.Position` for the
side to move (the *attacker*) and return the winning sequence as a list of
points, attacker's and defender's moves alternating and ending in the five, or
``None`` when none was found within the budget.  Under Renju the attacker's
Black stones are never fouls, and Black as defender never blocks on a foul
(:func:`tabletop.ai.gomoku.kernels.is_foul`, Renju's rule judged exactly).

- VCF (:func:`tabletop.ai.gomoku.kernels.vcf_kernel`): every attacking move is a four, so the defence is
  forced (the single point that completes the five).  A four that also leaves a
  second five point (an open four) wins at once.
- VCT (:func:`tabletop.ai.gomoku.kernels.vct_kernel`): attacking moves are fours, open threes
  and a few quiet moves (a closed three or an open two made) that may threaten a VCF.  Against
  a three the defender tries every point where either side makes a four or better (the three's
  blocks among them); against a VCF threat the points of that VCF's line and those four points;
  one refutation disproves the move.  The defences tried are the usual ones, not every move:
  the engine trusts a VCT only after :func:`tabletop.ai.gomoku.engine.vct_holds` tries them all.

The kernels put and take back stones on the position's arrays (every stone they
put they take back, also when the budget runs out) and remember failed
positions in small hash tables (always replaced, shared by the thread's solvers, each
solver's entries keyed with its own salt), so a deepening series of calls of one
:class:`ThreatSolver` reuses them.  The search of
:mod:`tabletop.ai.gomoku.search` calls the VCF kernel at its nodes.

This module must not read the clock itself beyond the deadline it is given, nor
touch a rules board: callers verify a sequence on the rules board before
claiming a win (:func:`tabletop.ai.gomoku.engine.verified_win`).
"""

from __future__ import annotations

import math
import random
import threading

import numpy as np

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.kernels import (
    ABORTED,
    LINE,
    SAVED,
    STACK,
    TNODES,
    board_tuple,
    initial_box,
    vcf_kernel,
    vct_kernel,
)
from tabletop.ai.gomoku.position import Position, keys_array, signed

__all__ = ["FAIL_ENTRIES", "ThreatSolver", "find_vcf", "find_vct", "new_fail_table"]

FAIL_ENTRIES = 1 << 13
_scratch = threading.local()


def new_fail_table(entries: int = FAIL_ENTRIES) -> np.ndarray:
    """A failure table: row 0 the keys, row 1 the depth each key failed at (0: free, as no
    search stores a failure at depth 0)."""
    return np.zeros((2, entries), dtype=np.int64)


class ThreatSolver:
    """VCF/VCT over one position; ``nodes`` counts the moves tried (over all calls).

    The failure tables and scratch rows are the thread's, shared by its solvers: each solver
    salts the hashes it hands the kernels with its own random bits, so another solver's
    entries never match its own (making and clearing tables per solver cost more than a
    small solve)."""

    def __init__(self, pos: Position, max_nodes: int = 200_000, deadline: float | None = None) -> None:
        self.pos = pos
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self.aborted = False  # the last call ran out of nodes or time
        self._salt = random.getrandbits(63)

    def _buffers(self, plies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        # scratch rows for each board size, reused by every solver of this thread (the kernels
        # overwrite what they read)
        size = self.pos.cells.shape[0]
        per_size: dict[int, tuple[np.ndarray, ...]] | None = getattr(_scratch, "buffers", None)
        if per_size is None:
            per_size = _scratch.buffers = {}
        have = per_size.get(size)
        if have is None or have[2].shape[0] < plies:
            have = (np.zeros((plies, LINE), dtype=np.int32), np.zeros((plies, SAVED), dtype=np.int64),
                    np.zeros((plies, size), dtype=np.int32), np.zeros((plies, size), dtype=np.int64))
            per_size[size] = have
        return have[0], have[1], have[2], have[3]

    def _ctl(self) -> np.ndarray:
        # the kernels count in TNODES and stop past MAX_NODES; the count carries over calls
        return np.array([0, self.max_nodes, 0, self.nodes], dtype=np.int64)

    def _tables(self) -> tuple[np.ndarray, np.ndarray]:
        tables: tuple[np.ndarray, np.ndarray] | None = getattr(_scratch, "fail", None)
        if tables is None:
            tables = _scratch.fail = (new_fail_table(), new_fail_table())
        return tables

    def _hash(self) -> int:
        return signed(self.pos.hash) ^ self._salt

    def _read(self, lines: np.ndarray, k: int) -> list[int] | None:
        return [int(x) for x in lines[0, :k]] if k > 0 else None

    def vcf(self, depth: int = 30) -> list[int] | None:
        """The side to move's VCF of at most ``depth`` fours, or None."""
        return self._solve(None, depth)

    def vct(self, depth: int = 8, vcf_depth: int = 20) -> list[int] | None:
        """The side to move's VCT of at most ``depth`` threats (a VCF of up to ``vcf_depth``
        fours tried at each attacker node), or None."""
        return self._solve(depth, vcf_depth)

    def _solve(self, vct_depth: int | None, vcf_depth: int) -> list[int] | None:
        """The VCF kernel (``vct_depth`` None) or the VCT kernel on the position."""
        pos = self.pos
        if self.nodes > self.max_nodes:
            self.aborted = True
            return None
        # the rows a line of this many threats and fours uses, up to what the kernels follow: a VCF
        # of at most STACK - 1 fours, and no line longer than a row of ``lines`` (LINE points); the
        # kernels check every row they use against these arrays' shapes
        vcf_depth = max(0, min(vcf_depth, STACK - 1))
        plies = 2 * vcf_depth + 4 if vct_depth is None else 2 * max(0, vct_depth) + 2 * vcf_depth + 8
        plies = min(plies, LINE)
        lines, saved, mv, ky = self._buffers(plies)
        ctl = self._ctl()
        vcf_fail, vct_fail = self._tables()
        board, box, zkeys = board_tuple(pos), initial_box(pos.near, pos.stride), keys_array(pos.cells.shape[0])
        deadline = self.deadline if self.deadline is not None else math.inf
        if vct_depth is None:
            k = vcf_kernel(board, box, zkeys, self._hash(), pos.turn, vcf_depth, ctl, deadline, lines, 0, vcf_fail,
                           saved, mv, ky)
        else:
            k = vct_kernel(board, box, zkeys, self._hash(), pos.turn, False, vct_depth, vcf_depth, ctl, deadline,
                           lines, 0, vcf_fail, vct_fail, saved, mv, ky)
        self.nodes = int(ctl[TNODES])
        self.aborted = bool(ctl[ABORTED])
        return None if self.aborted else self._read(lines, k)

    def refutation(self, attack: int, depth: int = 6, vcf_depth: int = 20) -> int | None:
        """A defence that stops the attacker's VCT after the attacking move ``attack``
        (the side to move plays it), or None when every defence tried is proven to lose.
        A defence whose search ran out of budget is not proven lost: when no defence is
        proven to hold, the first such one is returned rather than None."""
        pos = self.pos
        pos.play(attack)
        try:
            att = 3 - pos.turn
            att_fives = pos.five_points(att)
            if len(att_fives) >= 2:
                return None
            defences = att_fives or sorted(
                set(pos.points_with(att, P.FLEX4)) | set(pos.points_with(att, P.BLOCK4))
                | set(pos.points_with(pos.turn, P.BLOCK4))
            )
            if not defences:
                return -1  # no threat at all: any move will do
            unknown: int | None = None
            for d in defences:
                if pos.is_foul(pos.turn, d):
                    continue
                pos.play(d)
                try:
                    line = self.vct(depth, vcf_depth)
                finally:
                    pos.undo()
                if line is None and not self.aborted:
                    return d
                if line is None and unknown is None:
                    unknown = d  # unknown: not a proven refutation
            return unknown
        finally:
            pos.undo()


def find_vcf(pos: Position, max_nodes: int = 200_000, deadline: float | None = None, depth: int = 30) -> list[int] | None:
    """The side to move's VCF as a list of points, or None."""
    return ThreatSolver(pos, max_nodes, deadline).vcf(depth)


def find_vct(pos: Position, max_nodes: int = 200_000, deadline: float | None = None, depth: int = 6) -> list[int] | None:
    """The side to move's VCT (fours and open threes) as a list of points, or None."""
    return ThreatSolver(pos, max_nodes, deadline).vct(depth)
