"""Alpha-beta search for Gomoku over candidate moves near the stones, compiled with numba.

Negamax with a principal-variation window, iterative deepening, a
transposition table keyed by the position's Zobrist hash, and threat rules
that keep the tree narrow and honest: a five is taken at once, a lone
opponent five point is the only move (and does not use up depth: the threat
extension), an open four wins, and against an open three or a four only the
blocking points and our own fours are tried.  Leaves are scored by the
incremental pattern evaluation of :mod:`tabletop.ai.gomoku.patterns`.

The tree is searched by :func:`_negamax`, a numba kernel working on the
arrays of a :class:`~tabletop.ai.gomoku.position.Position` in place (every
stone it puts it takes back, also when it stops early).  The transposition
table is a fixed array (always-replace, a power of two in size), so its memory
is known before the search starts; it is kept for the next search, whose
hashes carry a new random salt so that old entries never match.  The kernel
reads the clock every 1,024 nodes; :class:`Searcher` runs the iterations and
keeps the last complete one.
``tests/gomoku_reference_search.py`` holds the same search in plain Python, and
the tests compare the two.

It must not decide legality for the real game nor read the clock beyond the
deadline handed to it.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numba import njit, objmode

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.position import Position, zobrist_keys

__all__ = ["TT_ENTRY_BYTES", "WIN", "SearchResult", "Searcher"]

WIN = 1_000_000
INF = 2 * WIN
_EXACT, _LOWER, _UPPER = 0, 1, 2
MAXPLY = 96  # deeper lines are scored statically (forced blocks and fours do not use up depth)
EXTEND_PLIES = 24  # a four extends the search only this close to the root
ROOT_WIDTH = 24
TT_ENTRY_BYTES = 19  # key 8, score 4, move 4, depth 2, flag 1

# ctl: the kernel's counters and limits
_NODES, _MAX_NODES, _ABORTED = 0, 1, 2


@dataclass
class SearchResult:
    best: int
    score: int
    depth: int
    nodes: int
    pv: list[int]
    root_scores: list[tuple[int, int]] = field(default_factory=list)


@lru_cache(maxsize=8)
def _keys_array(size: int) -> np.ndarray:
    """The position's Zobrist keys as int64 (the same bits), colour by point."""
    black, white = zobrist_keys(size)
    return np.array([black, white], dtype=np.uint64).view(np.int64)


@lru_cache(maxsize=1)
def _table(entries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The transposition table's arrays: key, score, depth, flag, move.  Kept for the
    process's next search (fresh pages cost more than the search of a quick move)."""
    return (np.zeros(entries, dtype=np.int64), np.zeros(entries, dtype=np.int32), np.zeros(entries, dtype=np.int16),
            np.zeros(entries, dtype=np.int8), np.zeros(entries, dtype=np.int32))


def _signed(h: int) -> int:
    return h - (1 << 64) if h >= 1 << 63 else h


@njit(cache=True)
def _foul(renju: bool, cells: np.ndarray, pat: np.ndarray, dfours: np.ndarray, dirs: np.ndarray,
          color: int, p: int) -> bool:
    return renju and color == 1 and P.black_foul(cells, pat, dfours, dirs, p)


@njit(cache=True)
def _insert(out: np.ndarray, keys: np.ndarray, n: int, limit: int, q: int, k: int) -> int:
    """Put point ``q`` with sort key ``k`` into ``out[:n]`` (kept in key order, a new point after
    its equals), dropping the last when ``limit`` are there (-1: no limit); returns the new count."""
    if n == limit:
        if k >= keys[n - 1]:
            return n
        n -= 1
    i = n
    while i > 0 and keys[i - 1] > k:
        keys[i] = keys[i - 1]
        out[i] = out[i - 1]
        i -= 1
    keys[i] = k
    out[i] = q
    return n + 1


@njit(cache=True)
def _candidates(cells: np.ndarray, pat: np.ndarray, pscore: np.ndarray, near: np.ndarray, dfours: np.ndarray,
                dirs: np.ndarray, renju: bool, me: int, limit: int, out: np.ndarray, keys: np.ndarray) -> int:
    """The ``limit`` best empty points near stones (attack x5 + defence x4 + neighbours),
    ties in board order, as :meth:`Position.candidates` ranks them; Black's fouls
    dropped under renju after the cut.  Returns how many were written to ``out``."""
    opp = 2 - me
    c = me - 1
    n = 0
    for q in range(cells.shape[0]):
        if cells[q] != P.EMPTY or near[q] == 0:
            continue
        n = _insert(out, keys, n, limit, q, -(pscore[c, q] * 5 + pscore[opp, q] * 4 + near[q]))
    if renju and me == 1:
        m = 0
        for i in range(n):
            if not P.black_foul(cells, pat, dfours, dirs, out[i]):
                out[m] = out[i]
                m += 1
        n = m
    return n


@njit(cache=True)
def _scan(cells: np.ndarray, pat: np.ndarray, near: np.ndarray, dfours: np.ndarray, dirs: np.ndarray, renju: bool,
          me: int, row: np.ndarray) -> tuple[bool, int, int, bool, bool, bool, int]:
    """One pass over the board for the side ``me``: whether it has a five point, the opponent's
    five points (how many, the first), whether either side has an open four that is not a
    foul, whether any point is empty; the points where either side makes a four go to
    ``row`` (their count is the last value)."""
    opp = 3 - me
    c = me - 1
    oc = opp - 1
    my_five = False
    opp_fives = 0
    opp_five_point = -1
    my_open_four = False
    opp_open_four = False
    any_empty = False
    nblock = 0
    for q in range(cells.shape[0]):
        if cells[q] != P.EMPTY:
            continue
        any_empty = True
        if near[q] == 0:
            continue
        bm = P.best_pattern(pat, c, q)
        bo = P.best_pattern(pat, oc, q)
        if bm == P.FIVE:
            my_five = True
        if bo == P.FIVE:
            opp_fives += 1
            if opp_five_point < 0:
                opp_five_point = q
        if bm >= P.FLEX4 and not my_open_four and not _foul(renju, cells, pat, dfours, dirs, me, q):
            my_open_four = True
        if bo >= P.FLEX4 and not opp_open_four and not _foul(renju, cells, pat, dfours, dirs, opp, q):
            opp_open_four = True
        if bo >= P.BLOCK4 or bm >= P.BLOCK4:
            row[nblock] = q
            nblock += 1
    return my_five, opp_fives, opp_five_point, my_open_four, opp_open_four, any_empty, nblock


@njit(cache=True)
def _moves(cells: np.ndarray, pat: np.ndarray, pscore: np.ndarray, near: np.ndarray, dfours: np.ndarray,
           dirs: np.ndarray, renju: bool, me: int, limit: int, opp_five_point: int, opp_open_four: bool,
           nblock: int, row: np.ndarray, keys: np.ndarray) -> int:
    """The moves worth trying after :func:`_scan` (which left ``nblock`` four points in ``row``):
    the block of the opponent's first five point; against an open four the four points, best
    first; else the ``limit`` best candidates.  Never a foul of ours; returns the count."""
    c = me - 1
    oc = 2 - me
    if opp_five_point >= 0:
        if _foul(renju, cells, pat, dfours, dirs, me, opp_five_point):
            return 0
        row[0] = opp_five_point
        return 1
    if opp_open_four:
        n = 0
        for j in range(nblock):
            q = row[j]
            if not _foul(renju, cells, pat, dfours, dirs, me, q):
                n = _insert(row, keys, n, -1, q, -(pscore[c, q] * 5 + pscore[oc, q] * 4))
        return n
    return _candidates(cells, pat, pscore, near, dfours, dirs, renju, me, limit, row, keys)


@njit(cache=True)
def _negamax(cells: np.ndarray, pat: np.ndarray, pscore: np.ndarray, total: np.ndarray, near: np.ndarray,
             tables: np.ndarray, kinds: np.ndarray, dirs: np.ndarray, stride: int, zkeys: np.ndarray,
             dfours: np.ndarray, renju: bool, width: int,
             tt_key: np.ndarray, tt_score: np.ndarray, tt_depth: np.ndarray, tt_flag: np.ndarray,
             tt_move: np.ndarray, ctl: np.ndarray, deadline: float,
             moves: np.ndarray, sortkeys: np.ndarray, saved: np.ndarray, pv: np.ndarray, pvlen: np.ndarray,
             turn: int, h: int, depth: int, alpha: int, beta: int, ply: int) -> int:
    ctl[_NODES] += 1
    if ctl[_NODES] > ctl[_MAX_NODES]:
        ctl[_ABORTED] = 1
        return 0
    if (ctl[_NODES] & 1023) == 0:
        with objmode(now="float64"):
            now = time.perf_counter()
        if now > deadline:
            ctl[_ABORTED] = 1
            return 0
    pvlen[ply] = 0
    me = turn
    opp = 3 - me
    c = me - 1
    oc = opp - 1
    row = moves[ply]
    keys = sortkeys[ply]
    my_five, opp_fives, opp_five_point, my_open_four, opp_open_four, any_empty, nblock = _scan(
        cells, pat, near, dfours, dirs, renju, me, row)
    if my_five:
        return WIN - ply - 1
    if opp_fives >= 2:
        return -(WIN - ply - 2)
    if opp_fives == 0:
        if my_open_four:
            return WIN - ply - 3
        if depth <= 0 or ply >= MAXPLY - 2:
            return int(total[c] - total[oc] * 9 // 10)
    key = h ^ me
    slot = key & (tt_key.shape[0] - 1)
    hint = -1
    if tt_key[slot] == key:
        hint = tt_move[slot]
        e_score = tt_score[slot]
        e_flag = tt_flag[slot]
        usable = e_flag == _EXACT or (e_flag == _LOWER and e_score >= beta) or (e_flag == _UPPER and e_score <= alpha)
        if tt_depth[slot] >= depth and usable:  # ply >= 1: the root loop is in Searcher
            return int(e_score)
    # the moves worth trying (no depth used for the block of a lone five point)
    forced = opp_fives == 1
    n = _moves(cells, pat, pscore, near, dfours, dirs, renju, me, width, opp_five_point, opp_open_four, nblock,
               row, keys)
    if n == 0:
        if not any_empty or opp_fives > 0:
            return 0 if opp_fives == 0 else -(WIN - ply - 2)
        return int(total[c] - total[oc] * 9 // 10)
    if hint >= 0:
        for j in range(n):
            if row[j] == hint:
                while j > 0:
                    row[j] = row[j - 1]
                    j -= 1
                row[0] = hint
                break
    best = -INF
    best_move = row[0]
    alpha0 = alpha
    for i in range(n):
        m = row[i]
        next_depth = depth if forced else depth - 1
        if ply < EXTEND_PLIES and P.best_pattern(pat, c, m) >= P.BLOCK4:
            next_depth = max(next_depth, depth)  # threat extension: a four does not use up depth
        P.make_move_saving(cells, pat, pscore, total, near, tables, kinds, dirs, stride, m, me, saved[ply])
        h2 = h ^ zkeys[c, m]
        if i == 0:
            score = -_negamax(cells, pat, pscore, total, near, tables, kinds, dirs, stride, zkeys, dfours, renju,
                              width, tt_key, tt_score, tt_depth, tt_flag, tt_move, ctl, deadline, moves, sortkeys,
                              saved, pv, pvlen, opp, h2, next_depth, -beta, -alpha, ply + 1)
        else:
            score = -_negamax(cells, pat, pscore, total, near, tables, kinds, dirs, stride, zkeys, dfours, renju,
                              width, tt_key, tt_score, tt_depth, tt_flag, tt_move, ctl, deadline, moves, sortkeys,
                              saved, pv, pvlen, opp, h2, next_depth, -alpha - 1, -alpha, ply + 1)
            if ctl[_ABORTED] == 0 and alpha < score < beta:
                score = -_negamax(cells, pat, pscore, total, near, tables, kinds, dirs, stride, zkeys, dfours,
                                  renju, width, tt_key, tt_score, tt_depth, tt_flag, tt_move, ctl, deadline, moves,
                                  sortkeys, saved, pv, pvlen, opp, h2, next_depth, -beta, -alpha, ply + 1)
        P.undo_saved(cells, pat, pscore, total, near, dirs, stride, m, saved[ply])
        if ctl[_ABORTED] != 0:
            return 0
        if score > best:
            best = score
            best_move = m
            pv[ply, ply] = m
            k = pvlen[ply + 1]
            for j in range(k):
                pv[ply, ply + 1 + j] = pv[ply + 1, ply + 1 + j]
            pvlen[ply] = k + 1
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    flag = _EXACT if alpha0 < best < beta else (_LOWER if best >= beta else _UPPER)
    tt_key[slot] = key
    tt_score[slot] = best
    tt_depth[slot] = depth
    tt_flag[slot] = flag
    tt_move[slot] = best_move
    return best


@njit(cache=True)
def _root_moves(cells: np.ndarray, pat: np.ndarray, pscore: np.ndarray, near: np.ndarray, dfours: np.ndarray,
                dirs: np.ndarray, renju: bool, me: int, width: int, out: np.ndarray, keys: np.ndarray) -> int:
    """The moves the root tries, by the same rules as every node (at least 24 candidates)."""
    _, _, opp_five_point, _, opp_open_four, _, nblock = _scan(cells, pat, near, dfours, dirs, renju, me, out)
    return _moves(cells, pat, pscore, near, dfours, dirs, renju, me, max(width, ROOT_WIDTH), opp_five_point,
                  opp_open_four, nblock, out, keys)


class Searcher:
    """One search over ``pos`` (the position is restored when it returns).

    ``tt_entries`` bounds the transposition table (rounded down to a power of
    two, ``TT_ENTRY_BYTES`` an entry); ``deadline`` is a ``time.perf_counter()`` value."""

    def __init__(
        self,
        pos: Position,
        deadline: float | None = None,
        max_nodes: int | None = None,
        width: int = 14,
        tt_entries: int = 400_000,
    ) -> None:
        self.pos = pos
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.width = width
        self.tt_size = 1 << max(4, int(math.log2(max(16, tt_entries))))
        self.nodes = 0

    def _moves(self) -> list[int]:
        pos = self.pos
        size = pos.cells.shape[0]
        out = np.zeros(size, dtype=np.int32)
        keys = np.zeros(size, dtype=np.int64)
        n = _root_moves(pos.cells, pos.pat, pos.pscore, pos.near, pos.double_fours, pos.dirs, pos.renju,
                        pos.turn, self.width, out, keys)
        return [int(x) for x in out[:n]]

    def search(self, max_depth: int = 64) -> SearchResult:
        """Iterative deepening until ``max_depth``, the deadline or the node limit."""
        pos = self.pos
        if not pos.history and not pos.near.any():
            centre = pos.candidates(1)
            return SearchResult(centre[0], 0, 1, 0, centre[:1], [(centre[0], 0)])
        root_moves = self._moves()
        if not root_moves:
            # nothing forced is playable (renju: Black's only block of a five is a foul):
            # search every candidate; point 0 (off the board) only on a board with none
            root_moves = pos.candidates() or [0]
        result = SearchResult(root_moves[0], 0, 0, 0, [root_moves[0]])
        size = pos.cells.shape[0]
        tt_key, tt_score, tt_depth, tt_flag, tt_move = _table(self.tt_size)
        # a new salt on every hash of this search: the last search's entries no longer match
        salt = random.getrandbits(63)
        moves = np.zeros((MAXPLY, size), dtype=np.int32)
        sortkeys = np.zeros((MAXPLY, size), dtype=np.int64)
        saved = np.zeros((MAXPLY, 130), dtype=np.int64)
        pv = np.zeros((MAXPLY, MAXPLY), dtype=np.int32)
        pvlen = np.zeros(MAXPLY, dtype=np.int32)
        ctl = np.array([0, self.max_nodes if self.max_nodes is not None else 1 << 62, 0], dtype=np.int64)
        deadline = self.deadline if self.deadline is not None else math.inf
        # even depths only: an odd horizon leaves the last word to us and flatters wild attacks
        depths = [1] if max_depth < 2 else list(range(2, max_depth + 1, 2))
        board = (pos.cells, pos.pat, pos.pscore, pos.total, pos.near, pos.tables, pos.kinds, pos.dirs, pos.stride,
                 _keys_array(size), pos.double_fours, pos.renju, self.width, tt_key, tt_score, tt_depth, tt_flag,
                 tt_move, ctl, deadline, moves, sortkeys, saved, pv, pvlen)
        for depth in depths:
            # the root's moves, each searched with a window just below the best so far
            # (so the others' scores are upper bounds).  This loop is Python on purpose: a
            # cached njit root calling the recursive kernel crashed (numba 0.68) when it was
            # loaded from numba's cache, while the kernel called from Python loads fine.
            scores: list[tuple[int, int]] = []
            alpha = -INF
            best_line: list[int] = []
            for m in root_moves:
                pos.play(m)
                try:
                    upper = -alpha + 1 if alpha > -INF else INF
                    score = -int(_negamax(*board, pos.turn, _signed(pos.hash) ^ salt, depth - 1, -INF, upper, 1))
                finally:
                    pos.undo()
                if ctl[_ABORTED]:
                    break
                scores.append((m, score))
                if score > alpha:
                    alpha = score
                    best_line = [m, *(int(x) for x in pv[1, 1 : 1 + pvlen[1]])]
            self.nodes = int(ctl[_NODES])
            if ctl[_ABORTED]:
                # only completed iterations count: a part of a deeper one compares badly with them
                if result.depth == 0 and scores:
                    result.best, result.score, result.pv = best_line[0], alpha, best_line
                break
            scores.sort(key=lambda t: -t[1])
            result = SearchResult(scores[0][0], scores[0][1], depth, self.nodes, best_line, scores)
            root_moves = [m for m, _ in scores]
            if abs(scores[0][1]) >= WIN - 100:
                break
        result.nodes = self.nodes
        return result

