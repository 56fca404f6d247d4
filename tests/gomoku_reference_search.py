"""The test oracle for :mod:`tabletop.ai.gomoku.search`: the same alpha-beta search in plain Python.

This was the engine's search until it was compiled with numba; it stays here,
unchanged in what it computes, so that tests can check the compiled kernel
against it (``tests/test_gomoku_search.py``).

Negamax with a principal-variation window, iterative deepening, a
transposition table keyed by the position's Zobrist hash, and threat rules
that keep the tree narrow and honest: a five is taken at once, a lone
opponent five point is the only move (and does not use up depth: the threat
extension), an open four wins, and against an open three only the blocking
points and our own fours are tried.  Leaves are scored by the incremental
pattern evaluation of :mod:`tabletop.ai.gomoku.patterns`.

It must not decide legality for the real game nor read the clock beyond the
deadline handed to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.position import Position

__all__ = ["WIN", "SearchResult", "Searcher"]

WIN = 1_000_000
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Timeout(Exception):
    pass


@dataclass
class SearchResult:
    best: int
    score: int
    depth: int
    nodes: int
    pv: list[int]
    root_scores: list[tuple[int, int]] = field(default_factory=list)


class Searcher:
    """One search over ``pos`` (the position is restored when it returns)."""

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
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.tt_entries = tt_entries
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if (self.nodes & 127) == 0 and self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _Timeout

    # -- move generation -------------------------------------------------------------
    def _moves(self, ply: int) -> tuple[list[int], bool]:
        """The moves worth trying and whether they are forced (no depth used)."""
        pos = self.pos
        me = pos.turn
        opp = 3 - me
        opp_fives = pos.five_points(opp)
        if opp_fives:
            return [p for p in opp_fives[:1] if not pos.is_foul(me, p)], True
        opp_threats = [p for p in pos.points_with(opp, P.FLEX4) if not pos.is_foul(opp, p)]
        if opp_threats:
            blocks = set(opp_threats)
            blocks.update(pos.points_with(opp, P.BLOCK4))
            blocks.update(pos.points_with(me, P.BLOCK4))
            moves = [p for p in blocks if not pos.is_foul(me, p)]
            moves.sort(key=lambda p: -int(pos.pscore[me - 1, p] * 5 + pos.pscore[opp - 1, p] * 4))
            return moves, False
        width = self.width if ply > 0 else max(self.width, 24)
        return pos.candidates(width), False

    # -- search --------------------------------------------------------------------------
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, pv: list[int]) -> int:
        self._tick()
        pos = self.pos
        me = pos.turn
        opp = 3 - me
        if pos.five_points(me):
            return WIN - ply - 1
        opp_fives = pos.five_points(opp)
        if len(opp_fives) >= 2:
            return -(WIN - ply - 2)
        if not opp_fives:
            if any(not pos.is_foul(me, p) for p in pos.points_with(me, P.FLEX4)):
                return WIN - ply - 3
            if depth <= 0:
                return pos.evaluate()
        key = pos.hash ^ me
        entry = self.tt.get(key)
        tt_move = -1
        if entry is not None:
            e_depth, e_score, e_flag, tt_move = entry
            usable = e_flag == _EXACT or (e_flag == _LOWER and e_score >= beta) or (e_flag == _UPPER and e_score <= alpha)
            if e_depth >= depth and ply > 0 and usable:
                return e_score
        moves, forced = self._moves(ply)
        if not moves:
            if pos.is_full() or opp_fives:
                return 0 if not opp_fives else -(WIN - ply - 2)
            return pos.evaluate()
        if tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        best = -WIN * 2
        best_move = moves[0]
        alpha0 = alpha
        child_pv: list[int] = []
        for i, m in enumerate(moves):
            makes_four = pos.pattern(me, m) >= P.BLOCK4
            next_depth = depth if forced else depth - 1
            if makes_four and ply < 24:
                next_depth = max(next_depth, depth)  # threat extension: a four does not use up depth
            pos.play(m)
            line: list[int] = []
            try:
                if i == 0:
                    score = -self._negamax(next_depth, -beta, -alpha, ply + 1, line)
                else:
                    score = -self._negamax(next_depth, -alpha - 1, -alpha, ply + 1, line)
                    if alpha < score < beta:
                        line = []
                        score = -self._negamax(next_depth, -beta, -alpha, ply + 1, line)
            finally:
                pos.undo()
            if score > best:
                best = score
                best_move = m
                child_pv = [m, *line]
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        flag = _EXACT if alpha0 < best < beta else (_LOWER if best >= beta else _UPPER)
        if len(self.tt) >= self.tt_entries:
            self.tt.clear()  # a crude bound on memory (Gomocup's max_memory)
        self.tt[key] = (depth, best, flag, best_move)
        pv[:] = child_pv
        return best

    def search(self, max_depth: int = 64) -> SearchResult:
        """Iterative deepening until ``max_depth``, the deadline or the node limit."""
        pos = self.pos
        root_moves, _ = self._moves(0)
        if not root_moves:
            # nothing forced is playable (renju: Black's only block of a five is a foul):
            # search every candidate; point 0 (off the board) only on a board with none
            root_moves = pos.candidates() or [0]
        result = SearchResult(root_moves[0], 0, 0, 0, [root_moves[0]])
        # even depths only: an odd horizon leaves the last word to us and flatters wild attacks
        depths = [1] if max_depth < 2 else list(range(2, max_depth + 1, 2))
        for depth in depths:
            scores: list[tuple[int, int]] = []
            alpha = -WIN * 2
            best_line: list[int] = []
            try:
                for m in root_moves:
                    pos.play(m)
                    line: list[int] = []
                    try:
                        score = -self._negamax(depth - 1, -WIN * 2, -alpha + 1 if alpha > -WIN * 2 else WIN * 2, 1, line)
                    finally:
                        pos.undo()
                    scores.append((m, score))
                    if score > alpha:
                        alpha = score
                        best_line = [m, *line]
            except _Timeout:
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
