"""Threat-space search: VCF (victory by continuous fours) and VCT (continuous threats).

Both solvers work on a :class:`~tabletop.ai.gomoku.position.Position` for the
side to move (the *attacker*) and return the winning sequence as a list of
points, attacker's and defender's moves alternating and ending in the five, or
``None`` when none was found within the budget.  Under Renju the attacker's
Black stones are never fouls, and Black as defender never blocks on a foul.

- VCF: every attacking move is a four, so the defence is forced (the single
  point that completes the five).  A four that also leaves a second five
  point (an open four) wins at once.
- VCT: attacking moves are fours and open threes.  Against a three the
  defender tries every blocking point of the threatened line and every four
  of its own; one refutation disproves the move.

This module must not read the clock itself beyond the deadline it is given, nor
touch a rules board: callers verify a sequence on the rules board before
claiming a win (:func:`tabletop.ai.gomoku.engine.verified_win`).
"""

from __future__ import annotations

import time

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.position import Position

__all__ = ["ThreatSolver", "find_vcf", "find_vct"]


class _OutOfBudget(Exception):
    pass


class ThreatSolver:
    """VCF/VCT over one position; ``nodes`` counts the moves tried."""

    def __init__(self, pos: Position, max_nodes: int = 200_000, deadline: float | None = None) -> None:
        self.pos = pos
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self._vcf_failed: dict[int, int] = {}
        self._vct_failed: dict[int, int] = {}

    # -- helpers ----------------------------------------------------------------------
    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _OutOfBudget
        if self.deadline is not None and (self.nodes & 255) == 0 and time.perf_counter() > self.deadline:
            raise _OutOfBudget

    def _four_moves(self, me: int) -> list[int]:
        pos = self.pos
        moves = [p for p in pos.points_with(me, P.BLOCK4) if not pos.is_foul(me, p)]
        # open fours and double fours first: they end the line at once
        moves.sort(key=lambda p: -int(pos.pscore[me - 1, p]))
        return moves

    def _threat_points(self, me: int) -> list[int]:
        """Points where ``me`` would make an open four or five: the open threes' ends."""
        pos = self.pos
        return [p for p in pos.points_with(me, P.FLEX4) if not pos.is_foul(me, p)]

    # -- VCF ---------------------------------------------------------------------------
    def _unwind(self, plies: int) -> None:
        """Take back the stones a search left on the position when the budget ran out
        in the middle of a line (the recursion's own undo calls are skipped then)."""
        while len(self.pos.history) > plies:
            self.pos.undo()

    def vcf(self, depth: int = 30) -> list[int] | None:
        plies = len(self.pos.history)
        try:
            return self._vcf(depth)
        except _OutOfBudget:
            self._unwind(plies)
            return None

    def _vcf(self, depth: int) -> list[int] | None:
        pos = self.pos
        me = pos.turn
        opp = 3 - me
        fives = pos.five_points(me)
        if fives:
            return [fives[0]]
        if depth <= 0:
            return None
        key = pos.hash ^ me
        if self._vcf_failed.get(key, -1) >= depth:
            return None
        opp_fives = pos.five_points(opp)
        if len(opp_fives) >= 2:
            return None
        moves = self._four_moves(me)
        if opp_fives:
            moves = [p for p in moves if p == opp_fives[0]]
        for m in moves:
            self._tick()
            pos.play(m)
            replies = pos.five_points(me)
            line: list[int] | None = None
            if len(replies) >= 2:
                line = [m, *self._open_four_end(opp, replies)]
            elif len(replies) == 1:
                block = replies[0]
                if pos.is_foul(opp, block):
                    # Black cannot block on a foul under Renju: any reply, then the five
                    line = [m, -1, block]
                else:
                    pos.play(block)
                    rest = self._vcf(depth - 1)
                    pos.undo()
                    if rest is not None:
                        line = [m, block, *rest]
            pos.undo()
            if line is not None:
                return line
        self._vcf_failed[key] = depth
        return None

    # -- VCT ---------------------------------------------------------------------------
    def vct(self, depth: int = 8, vcf_depth: int = 20) -> list[int] | None:
        self.vcf_depth = vcf_depth
        plies = len(self.pos.history)
        try:
            return self._vct(depth)
        except _OutOfBudget:
            self._unwind(plies)
            return None

    def _vct(self, depth: int) -> list[int] | None:
        pos = self.pos
        me = pos.turn
        opp = 3 - me
        fives = pos.five_points(me)
        if fives:
            return [fives[0]]
        opp_fives = pos.five_points(opp)
        if len(opp_fives) >= 2:
            return None
        if opp_fives:
            # a forced block; the defender then moves again against our standing threats
            block = opp_fives[0]
            if pos.is_foul(me, block):
                return None
            self._tick()
            pos.play(block)
            rest = self._defend(depth)
            pos.undo()
            return None if rest is None else [block, *rest]
        line = self._vcf(self.vcf_depth)
        if line is not None:
            return line
        if depth <= 0:
            return None
        key = pos.hash ^ me
        if self._vct_failed.get(key, -1) >= depth:
            return None
        moves = self._four_moves(me)
        if not self._threat_points(opp):
            # threes only make sense when the defender has no open three of its own:
            # otherwise it answers a three with an open four
            moves += [p for p in pos.points_with(me, P.FLEX3) if pos.pattern(me, p) == P.FLEX3 and not pos.is_foul(me, p)]
        moves.sort(key=lambda p: -int(pos.pscore[me - 1, p]))
        for m in moves:
            self._tick()
            pos.play(m)
            rest = self._defend(depth - 1)
            pos.undo()
            if rest is not None:
                return [m, *rest]
        self._vct_failed[key] = depth
        return None

    def _defend(self, depth: int) -> list[int] | None:
        """Defender to move against the attacker's threats: the attacker's winning
        line if every defence fails (starting with the defender's move), else None."""
        pos = self.pos
        me = pos.turn  # the defender
        att = 3 - me
        att_fives = pos.five_points(att)
        if len(att_fives) >= 2:
            if pos.five_points(me):
                return None
            return self._open_four_end(me, att_fives)
        if pos.five_points(me):
            return None  # the defender completes a five first
        if att_fives:
            defences = [att_fives[0]]
            if pos.is_foul(me, att_fives[0]):
                return [-1, att_fives[0]]
        else:
            threats = self._threat_points(att)
            if not threats or self._threat_points(me):
                return None  # no threat left, or the defender's own open four comes first
            blocks = set(threats)
            blocks.update(pos.points_with(att, P.BLOCK4))
            blocks.update(pos.points_with(me, P.BLOCK4))
            defences = [p for p in blocks if not pos.is_foul(me, p)]
            defences.sort(key=lambda p: -int(pos.pscore[me - 1, p] + pos.pscore[att - 1, p]))
            if not defences:
                return [-1, *self._threat_line(att)]
        principal: list[int] | None = None
        for d in defences:
            self._tick()
            pos.play(d)
            rest = self._vct(depth)
            pos.undo()
            if rest is None:
                return None
            if principal is None:
                principal = [d, *rest]
        return principal

    def refutation(self, attack: int, depth: int = 6, vcf_depth: int = 20) -> int | None:
        """A defence that stops the attacker's VCT after the attacking move ``attack``
        (the side to move plays it), or None when every defence tried is proven to lose.
        A defence whose search ran out of budget is not proven lost: when no defence is
        proven to hold, the first such one is returned rather than None."""
        self.vcf_depth = vcf_depth
        pos = self.pos
        pos.play(attack)
        try:
            att = 3 - pos.turn
            if len(pos.five_points(att)) >= 2:
                return None
            defences = pos.five_points(att) or sorted(
                set(self._threat_points(att)) | set(pos.points_with(att, P.BLOCK4)) | set(pos.points_with(pos.turn, P.BLOCK4))
            )
            if not defences:
                return -1  # no threat at all: any move will do
            unknown: int | None = None
            for d in defences:
                if pos.is_foul(pos.turn, d):
                    continue
                plies = len(pos.history)
                pos.play(d)
                try:
                    line = self._vct(depth)
                except _OutOfBudget:
                    line = []  # unknown: not a proven refutation
                finally:
                    self._unwind(plies)
                if line is None:
                    return d
                if not line and unknown is None:
                    unknown = d
            return unknown
        finally:
            pos.undo()

    def _open_four_end(self, defender: int, fives: list[int]) -> list[int]:
        """The defender's block and the attacker's five against two or more five
        points: the block is a point the defender may play (under Renju Black
        cannot block on a foul; with no legal block the reply is 'any move', -1)."""
        for i, b in enumerate(fives):
            if not self.pos.is_foul(defender, b):
                return [b, fives[1 - i] if i < 2 else fives[0]]
        return [-1, fives[0]]

    def _threat_line(self, att: int) -> list[int]:
        t = self._threat_points(att)
        return t[:1]


def find_vcf(pos: Position, max_nodes: int = 200_000, deadline: float | None = None, depth: int = 30) -> list[int] | None:
    """The side to move's VCF as a list of points, or None."""
    return ThreatSolver(pos, max_nodes, deadline).vcf(depth)


def find_vct(pos: Position, max_nodes: int = 200_000, deadline: float | None = None, depth: int = 6) -> list[int] | None:
    """The side to move's VCT (fours and open threes) as a list of points, or None."""
    return ThreatSolver(pos, max_nodes, deadline).vct(depth)
