"""Alpha-beta search for Gomoku over candidate moves near the stones, compiled with numba.

Negamax with a principal-variation window, iterative deepening, a
transposition table keyed by the position's Zobrist hash, and threat rules
that keep the tree narrow and honest: a five is taken at once, a lone
opponent five point is the only move (and does not use up depth: the threat
extension), an open four wins, and against an open three or a four only the
blocking points and our own fours are tried.  Leaves are scored by the
incremental pattern evaluation of :mod:`tabletop.ai.gomoku.patterns`.

Without ``extend_fours`` a four uses up a ply like any move (its forced block does not),
so a four and its block cost one ply: with the extension both sides' fours are tried in
every order at no cost, and from four to six plies a renju middle game's tree grew a
hundredfold (level 10 searches without it; the horizon's VCF check still sees the fours).

With ``pruning`` (what the engine plays with) the search also prunes as strong
engines do: aspiration windows around the last iteration's score at the root,
late-move reductions of calm moves (no open three or four made, no four point of the
opponent's taken), futility pruning of quiet moves (no three or four of either side made
or stopped) at the frontier when the static value is far below alpha, a VCF check
(:func:`tabletop.ai.gomoku.kernels.vcf_kernel`, a small node budget) for the side to
move at the horizon wherever it has a four to start one,
and one for the opponent at nodes two plies or more from the horizon, whose VCF
restricts the answers to the points of its line and our own fours (none playable: a
loss).  A check that found nothing is remembered for the position (its transpositions are
not checked again).  With a ``taper`` the nodes four plies or more from the root consider that many
fewer candidates (4 at width 12: to depth 10 on the 20 + 20 middle games of ``tabletop bench gomoku
--speed``, 26-28 % less processor time with the memory of empty checks, the same best move in 35 of 40; level 10 uses 4),
and with a ``taper2`` those five plies or more from it that many fewer still (after a taper of 4, to depth 10
on the same positions: 2, width 6, 17-18 % fewer nodes and the same best move in 38 of 40; 4, width 4, 24 / 37 %
fewer nodes and 36 of 40; neither at level 10: sequential tests against taper 4 alone in freestyle at 0.5 s
accepted H0 for both).
With ``killers`` (and ``pruning``) each node tries, right after the table's move, the last two moves that cut
off at its ply (a sibling's refutation often refutes this line too, and a move tried early is not reduced); no
level uses them (to depth 10 on the 20 freestyle middle games 6.5 % more nodes and the same moves; a sequential
test at level 10 in freestyle at 0.5 s was undecided after 85 games, 52.9 %).
Without ``pruning`` it is the plain search that
``tests/gomoku_reference_search.py`` holds in Python, and the tests compare the two.

The tree is searched by :func:`tabletop.ai.gomoku.kernels.negamax`, a numba kernel working on the
arrays of a :class:`~tabletop.ai.gomoku.position.Position` in place (every
stone it puts it takes back, also when it stops early), scanning only the box of
points within two of a stone (:mod:`tabletop.ai.gomoku.kernels`).  The
transposition table is a fixed array (a power of two in size), so its memory is
known before the search starts; it is kept for the next search.  With
``keep_table`` (the engine's moves) its entries stay valid for the next search
(depth-preferred within a search, a new search's entries replace older ones);
otherwise each search salts its hashes so old entries never match.  Renju's fouls
(:func:`tabletop.ai.gomoku.kernels.is_foul`, judged exactly) are never tried, and a
threat that only a foul would stop is a loss for Black.  The kernel reads the clock
every 1,024 nodes; :class:`Searcher` runs the iterations and keeps the last complete one.

It must not decide legality for the real game nor read the clock beyond the
deadline handed to it.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from tabletop.ai.gomoku.kernels import (
    ABORTED,
    INF,
    KILLERS,
    LINE,
    MAXPLY,
    NODES,
    SAVED,
    TNODES,
    VCF_DEPTH,
    WIN,
    board_tuple,
    initial_box,
    negamax,
)
from tabletop.ai.gomoku.kernels import root_moves as kernel_root_moves
from tabletop.ai.gomoku.position import Position, keys_array, signed

__all__ = ["TT_ENTRY_BYTES", "VCF_NODES", "WIN", "SearchResult", "Searcher"]

TT_ENTRY_BYTES = 21  # key 8, score 4, move 4, depth 2, flag 1, age 2
VCF_NODES = 16  # threat nodes per VCF check inside the search
ASPIRATION = 500  # the root's first window: the last iteration's score +- this


@dataclass
class SearchResult:
    best: int
    score: int
    depth: int
    nodes: int
    pv: list[int]
    root_scores: list[tuple[int, int]] = field(default_factory=list)
    threat_nodes: int = 0


@lru_cache(maxsize=1)
def _table(entries: int) -> tuple[tuple[np.ndarray, ...], np.ndarray, list[int]]:
    """The transposition table's arrays (key, score, depth, flag, move, age), the search's VCF
    failure table and the search counter.  Kept for the process's next search (fresh pages
    cost more than the search of a quick move)."""
    tt = (np.zeros(entries, dtype=np.int64), np.zeros(entries, dtype=np.int32), np.zeros(entries, dtype=np.int16),
          np.zeros(entries, dtype=np.int8), np.zeros(entries, dtype=np.int32), np.zeros(entries, dtype=np.int16))
    # the VCF failure table with a third row: the search's VCF checks that found nothing
    return tt, np.zeros((3, 1 << 16), dtype=np.int64), [0]


class Searcher:
    """One search over ``pos`` (the position is restored when it returns).

    ``tt_entries`` bounds the transposition table (rounded down to a power of
    two, ``TT_ENTRY_BYTES`` an entry); ``deadline`` is a ``time.perf_counter()`` value.
    ``pruning`` turns on the strong engine's pruning (see the module's text);
    ``keep_table`` keeps the table's entries valid for the next search of the same
    rule and width (the engine's moves in one game).  ``taper``: nodes four plies or more from the root
    consider that many candidates fewer than ``width`` (at least one), and ``taper2`` those five plies or more
    from it that many fewer still; with ``killers`` (and ``pruning``) each node tries the moves that last cut off
    a sibling at its ply right after the table's move.  ``on_depth`` is called with the result after each completed iteration (a
    benchmark times the depths with it)."""

    def __init__(
        self,
        pos: Position,
        deadline: float | None = None,
        max_nodes: int | None = None,
        width: int = 14,
        tt_entries: int = 400_000,
        pruning: bool = False,
        keep_table: bool = False,
        vcf_nodes: int = VCF_NODES,
        extend_fours: bool = True,
        taper: int = 0,
        taper2: int = 0,
        killers: bool = False,
        on_depth: Callable[[SearchResult], None] | None = None,
    ) -> None:
        self.pos = pos
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.width = width
        self.tt_size = 1 << max(4, int(math.log2(max(16, tt_entries))))
        self.pruning = pruning
        self.keep_table = keep_table
        self.vcf_nodes = vcf_nodes
        self.extend_fours = extend_fours
        self.taper = taper
        self.taper2 = taper2
        self.killers = killers
        self.on_depth = on_depth
        self.nodes = 0

    def search(self, max_depth: int = 64) -> SearchResult:
        """Iterative deepening until ``max_depth``, the deadline or the node limit."""
        pos = self.pos
        if not pos.history and not pos.near.any():
            centre = pos.candidates(1)
            return SearchResult(centre[0], 0, 1, 0, centre[:1], [(centre[0], 0)])
        size = pos.cells.shape[0]
        tt, vcf_fail, counter = _table(self.tt_size)
        counter[0] = (counter[0] + 1) & 0x7FFF
        if self.keep_table:
            # the same salt for every search of this rule and width: entries carry over
            salt = zlib.crc32(
                f"{pos.rule}/{pos.width}x{pos.height}/{self.width}/{self.pruning}/{self.extend_fours}/{self.taper}/{self.taper2}/{self.killers}".encode()) << 31
        else:
            # a new salt on every hash of this search: the last search's entries no longer match
            salt = random.getrandbits(63)
        rows = MAXPLY + 2 * VCF_DEPTH + 8
        moves = np.zeros((rows, size), dtype=np.int32)
        sortkeys = np.zeros((rows, size), dtype=np.int64)
        saved = np.zeros((rows, SAVED), dtype=np.int64)
        lines = np.zeros((rows, LINE), dtype=np.int32)
        pv = np.zeros((MAXPLY, MAXPLY), dtype=np.int32)
        pvlen = np.zeros(MAXPLY, dtype=np.int32)
        ctl = np.array([0, self.max_nodes if self.max_nodes is not None else 1 << 62, 0, 0], dtype=np.int64)
        vctl = np.zeros(4, dtype=np.int64)
        opts = np.array([self.width, int(self.pruning), self.vcf_nodes, counter[0], int(self.extend_fours),
                         self.taper, self.taper2, int(self.killers and self.pruning)], dtype=np.int64)
        # each ply's last cut-off moves (-1: none), kept from one iteration to the next
        killers = np.full((MAXPLY, KILLERS), -1, dtype=np.int32)
        deadline = self.deadline if self.deadline is not None else math.inf
        B = board_tuple(pos)
        zkeys = keys_array(size)
        n = kernel_root_moves(B, initial_box(pos.near, pos.stride), zkeys, signed(pos.hash) ^ salt, pos.turn, self.width,
                        ctl, vctl, moves, sortkeys, saved, lines, vcf_fail, opts)
        root_moves = [int(x) for x in moves[0, :n]]
        if not root_moves:
            # nothing forced is playable (renju: Black's only block of a five is a foul):
            # search every candidate; point 0 (off the board) only on a board with none
            root_moves = pos.candidates() or [0]
        result = SearchResult(root_moves[0], 0, 0, 0, [root_moves[0]])
        # even depths only: an odd horizon leaves the last word to us and flatters wild attacks
        depths = [1] if max_depth < 2 else list(range(2, max_depth + 1, 2))
        args = (B, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines, vcf_fail, opts, killers)
        prev: int | None = None
        for depth in depths:
            if self.pruning:
                scores, best_line, alpha = self._iteration_pvs(args, root_moves, depth, salt, prev)
            else:
                scores, best_line, alpha = self._iteration(args, root_moves, depth, salt)
            self.nodes = int(ctl[NODES])
            if ctl[ABORTED]:
                # a part of a deeper iteration counts only where it proved a move better than the
                # last iteration's choice (searched first): its score is a bound, not comparable
                if scores and (result.depth == 0 or best_line[0] != result.best):
                    result.best, result.score, result.pv = best_line[0], alpha, best_line
                    # the other moves keep the last iteration's order; their shallower scores are
                    # capped at the new choice's, which the deeper search put above them all
                    rest = [(m, min(s, alpha)) for m, s in result.root_scores if m != best_line[0]]
                    result.root_scores = [(best_line[0], alpha), *rest]
                break
            scores.sort(key=lambda t: -t[1])
            result = SearchResult(scores[0][0], scores[0][1], depth, self.nodes, best_line, scores,
                                  int(ctl[TNODES]))
            if self.on_depth is not None:
                self.on_depth(result)
            prev = scores[0][1]
            root_moves = [m for m, _ in scores]
            if abs(scores[0][1]) >= WIN - 100:
                break
        result.nodes = self.nodes
        result.threat_nodes = int(ctl[TNODES])
        return result

    def _child(self, args: tuple, depth: int, alpha: int, beta: int, salt: int) -> int:  # type: ignore[type-arg]
        """The negamax value of the position after a root move (played on ``pos``), for the
        root, with the root's window (``alpha``, ``beta``)."""
        pos = self.pos
        B, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines, vcf_fail, opts, killers = args
        box = initial_box(pos.near, pos.stride)
        return -int(negamax(B, box, zkeys, tt, ctl, vctl, deadline, moves, sortkeys, saved, pv, pvlen, lines,
                             vcf_fail, opts, killers, pos.turn, signed(pos.hash) ^ salt, depth - 1, -beta, -alpha, 1))

    def _line(self, args: tuple, m: int) -> list[int]:  # type: ignore[type-arg]
        pv, pvlen = args[9], args[10]
        return [m, *(int(x) for x in pv[1, 1 : 1 + pvlen[1]])]

    def _iteration(self, args: tuple, root_moves: list[int], depth: int,  # type: ignore[type-arg]
                   salt: int) -> tuple[list[tuple[int, int]], list[int], int]:
        """One plain iteration: the root's moves, each searched with a window just below the
        best so far (so the others' scores are upper bounds)."""
        # This loop is Python on purpose: a cached njit root calling the recursive kernel crashed
        # (numba 0.68) when it was loaded from numba's cache, while the kernel called from Python loads fine.
        pos = self.pos
        ctl = args[3]
        scores: list[tuple[int, int]] = []
        alpha = -INF
        best_line: list[int] = []
        for m in root_moves:
            pos.play(m)
            try:
                score = self._child(args, depth, alpha - 1 if alpha > -INF else -INF, INF, salt)
            finally:
                pos.undo()
            if ctl[ABORTED]:
                break
            scores.append((m, score))
            if score > alpha:
                alpha = score
                best_line = self._line(args, m)
        return scores, best_line, alpha

    def _iteration_pvs(self, args: tuple, root_moves: list[int], depth: int, salt: int,  # type: ignore[type-arg]
                       prev: int | None) -> tuple[list[tuple[int, int]], list[int], int]:
        """One iteration with an aspiration window around ``prev`` (the last iteration's score),
        widened to the full window when the result falls outside it; the first move with the
        window, the others with a null window first (their scores are upper bounds unless they
        beat the best)."""
        pos = self.pos
        ctl = args[3]
        lo, hi = -INF, INF
        if prev is not None and abs(prev) < WIN - 1000:
            lo, hi = prev - ASPIRATION, prev + ASPIRATION
        while True:
            scores: list[tuple[int, int]] = []
            alpha = lo
            best = -INF
            best_line: list[int] = []
            for i, m in enumerate(root_moves):
                pos.play(m)
                try:
                    if i == 0:
                        score = self._child(args, depth, alpha, hi, salt)
                    else:
                        score = self._child(args, depth, alpha, alpha + 1, salt)
                        if not ctl[ABORTED] and alpha < score < hi:
                            probe = score
                            score = self._child(args, depth, alpha, hi, salt)
                            if ctl[ABORTED]:
                                # the null window proved it better than the best so far: keep
                                # it, with its bound, even though the exact search ran out of time
                                scores.append((m, probe))
                                best, best_line = probe, [m]
                finally:
                    pos.undo()
                if ctl[ABORTED]:
                    break
                scores.append((m, score))
                if score > best:
                    best = score
                    best_line = self._line(args, m)
                if score > alpha:
                    alpha = score
                if score >= hi:
                    break
            if ctl[ABORTED]:
                return scores, best_line, best
            if best <= lo and lo > -INF:
                lo = -INF  # failed low: search again with the full window
                continue
            if best >= hi and hi < INF:
                hi = INF  # failed high
                continue
            return scores, best_line, best
