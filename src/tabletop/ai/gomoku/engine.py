"""The Gomoku/Renju engine as players: analysis, levels 1..10, time management.

:func:`analyse` looks for a forced win for the side to move (VCF; VCT where a
setting enables it, trusted only when :func:`vct_holds` finds that it holds against every
defender reply on the rules board), then runs the alpha-beta search
and reports the best root moves, after moving to the back the moves that leave
the opponent a VCF.  Every move
handed back is legal on the rules board it was asked about; a forced win is
replayed on a copy of that board before it is reported.

This module must not speak any protocol or do I/O; :mod:`tabletop.protocols.gomocup`
and the match runner drive it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

from tabletop.ai.base import Analysis, Limit, MoveScore
from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.book import book_move, preload
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.search import VCF_NODES, WIN, Searcher
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.core import BaseBoard, IllegalMoveError, Move

__all__ = ["EngineSettings", "GomokuEngine", "LEVELS", "TT_ENTRIES", "TT_ENTRIES_DEFAULT", "analyse", "level_player", "turn_seconds", "vct_holds", "verified_win", "warm_up"]


@dataclass(frozen=True)
class EngineSettings:
    """What a level may do: search time and depth, threat solvers, mistakes."""

    seconds: float = 3.0
    max_depth: int = 64
    width: int = 14
    vcf_nodes: int = 60_000
    vct_nodes: int = 20_000
    blunder: float = 0.0  # chance of a plausible but unexamined move
    safety_nodes: int = 0  # threat-solver budget per candidate to check the opponent gets no VCF/VCT
    # when the search scores every move lost, the safety check also looks for the opponent's VCT of
    # up to this many threats, so that a move the threat solvers cannot refute is played
    lost_vct: int = 0
    # the safety check also looks for the opponent's VCT of up to this many threats after every
    # move it passes (0: only where the search scores every move lost, with ``lost_vct``)
    safety_vct: int = 0
    extend_fours: bool = True  # a four in the search uses up no depth (see :mod:`.search`)
    # the search's nodes four plies or more from the root consider this many candidates fewer (see
    # :mod:`.search`; level 10: 4, a sequential test against 08574f7 at 0.5 s in renju accepted H1)
    taper: int = 0
    # and those five plies or more from it this many fewer still (see :mod:`.search`)
    taper2: int = 0
    killers: bool = False  # the search tries each ply's last cut-off moves early (see :mod:`.search`)
    # threat nodes of each VCF check inside the search (see :mod:`.search`): 16 at every level, as a larger
    # budget has not been shown stronger in play (benchmarks/HISTORY.md)
    search_vcf: int = VCF_NODES
    book: bool = False  # play the opening book's move where it has one (:mod:`.book`)
    greedy_only: bool = False  # one-ply choice by pattern value (the gentle levels)
    random_only: bool = False  # a random point within two of a stone, nothing more (the beginner)


# The share of a turn the search may use where a safety check follows it (the check has the rest, to
# the turn's end): the VCF check took 0-13 ms at 1 s a turn on the middle games of ``tabletop bench
# gomoku --speed``, the renju check with the opponent's VCT up to four threats 0-156 ms (median 1 ms);
# with 0.9 and 0.8 the undecided turns had ended at 0.91 s and 0.83 s of 1 s.  The share is of the turn
# less TURN_OVERHEAD, what a search runs past its deadline (the kernels read the clock every 1,024
# nodes: some 40 ms on a third of a core) and the answer's own cost: at 0.3 s a turn and load 6 the
# undecided turns had ended at 0.32 s without it.
SEARCH_SHARE = 0.96
SEARCH_SHARE_VCT = 0.9
TURN_OVERHEAD = 0.03

# the transposition table's size bound: 2**21 entries of search.TT_ENTRY_BYTES (40 MB), so the
# default keeps a search well under 300 MB; the Gomocup engine sets it from INFO max_memory
TT_ENTRIES_DEFAULT = 1 << 21
TT_ENTRIES = TT_ENTRIES_DEFAULT

# The ladder: each level is to score 65 % or more against the one below, in both rules.
# Level 1 is a random beginner: any point within two of a stone, fives neither taken nor
# stopped.  Levels 2..5 choose one ply by pattern value with a falling chance of a random pick
# among the twelve best-looking points; 6 adds its own VCF and a safety check; 7 and 8 search 2
# and 4 plies (width 8), 9 searches 6 plies at width 10; 10 searches as deep as its time allows
# over the best 12 candidates (8 from the fourth ply on) with the largest threat budgets, without the four extension that
# levels 7-9 keep (a four costs it a ply: it reaches two to four plies deeper), and plays the opening book's move
# where it has one (:mod:`.book`: the first moves after the match family's three-stone openings,
# to White's eighth stone in the balanced ones, each chosen by a search of 5-6 s, twelve to sixteen
# times a move's length at 0.5 s a turn).
#
# VCT: level 7 searches one, since its 2-ply search alone leaves Black's standing VCTs
# unplayed for many moves in Renju; level 8 leaves it off; level 9 has a small budget (with the
# learned evaluation, 6 plies at width 8 without one scored only 61-63 % against level 8) and
# level 10 the largest.  A claimed VCT is played only after vct_holds has found that it holds
# against every defender reply.  Level 10's safety check looks, after the move its search chose,
# for the opponent's VCF and its VCT of up to four threats (safety_vct), in every rule, and plays
# the best-ranked move that leaves neither: the search's horizon VCF check does not see a VCT that
# starts with threes (renju against 618f311 at 1 s: 89.0 % with it, 82.5 % without; freestyle
# against level 10 with the VCF check alone, from random openings: sequential tests accepted it,
# benchmarks/HISTORY.md "session 10").  When its search
# scores every move lost, the check goes to six threats (lost_vct), so that it plays a move the
# threat solvers cannot refute rather than the first the VCF check passes.
LEVELS: dict[int, EngineSettings] = {
    1: EngineSettings(random_only=True, vcf_nodes=0, vct_nodes=0, safety_nodes=0),
    2: EngineSettings(greedy_only=True, blunder=0.85, vcf_nodes=0, vct_nodes=0, safety_nodes=0),
    3: EngineSettings(greedy_only=True, blunder=0.55, vcf_nodes=0, vct_nodes=0, safety_nodes=0),
    4: EngineSettings(greedy_only=True, blunder=0.3, vcf_nodes=0, vct_nodes=0, safety_nodes=0),
    5: EngineSettings(greedy_only=True, blunder=0.1, vcf_nodes=0, vct_nodes=0, safety_nodes=0),
    6: EngineSettings(greedy_only=True, seconds=0.3, vcf_nodes=2_000, vct_nodes=0, safety_nodes=300),
    7: EngineSettings(seconds=0.4, max_depth=2, width=8, vcf_nodes=3_000, vct_nodes=3_000, safety_nodes=600),
    8: EngineSettings(seconds=0.8, max_depth=4, width=8, vcf_nodes=5_000, vct_nodes=0, safety_nodes=1_000),
    9: EngineSettings(seconds=1.5, max_depth=6, width=10, vcf_nodes=10_000, vct_nodes=5_000, safety_nodes=2_000),
    10: EngineSettings(seconds=4.0, width=12, vcf_nodes=40_000, vct_nodes=20_000, safety_nodes=5_000, lost_vct=6,
                       book=True, extend_fours=False, safety_vct=4, taper=4),
}


def turn_seconds(timeout_turn_ms: int | None, timeout_match_ms: int | None, time_left_ms: int | None,
                 stones: int = 0, default: float = 3.0) -> float:
    """Seconds to think on this move from Gomocup's limits.

    ``timeout_turn`` 0 means "as fast as possible"; the match budget is spread
    over the moves a game still has (about 30 more for each side at most), and a
    safety margin covers the process and pipe overheads: a tenth of the turn and 20 ms (the
    search stops at SEARCH_SHARE of the budget less TURN_OVERHEAD, or SEARCH_SHARE_VCT where the safety
    check looks for VCTs, and the check stops at the budget; with 0.9, 0.8, no overhead and the check
    50 ms past the budget, at 500 ms a turn the replies took at most 0.40 s on a two-core machine with
    three busy processes).
    """
    budget = default
    if timeout_turn_ms is not None:
        if timeout_turn_ms <= 0:
            return 0.0
        budget = min(budget, timeout_turn_ms / 1000 * 0.9 - 0.02)
    left = time_left_ms
    if left is None and timeout_match_ms:
        left = timeout_match_ms
    if left is not None and left < 2_147_483_647:
        moves_to_go = max(8, 30 - stones // 6)
        budget = min(budget, left / 1000 / moves_to_go * 0.8 - 0.05)
    return max(0.0, budget)


def verified_win(board: BaseBoard, pos: Position, line: list[int]) -> list[Move] | None:
    """``line`` as moves if it replays legally on a copy of ``board`` (up to any
    'any move' gap) and, played out in full, wins for the side to move."""
    b = board.copy()
    me = board.turn
    moves: list[Move] = []
    for i, p in enumerate(line):
        if p < 0:
            # the defender has no legal block: the line is cut here, if the rules board agrees
            # that the point the attacker wins on next is forbidden to the defender
            if not moves or i + 1 >= len(line) or line[i + 1] < 0:
                return None
            forbidden = getattr(b, "forbidden", None)
            if forbidden is None or forbidden(pos.to_move(board, line[i + 1])) is None:
                return None
            return moves
        m = pos.to_move(board, p)
        try:
            b.push(m)
        except IllegalMoveError:
            return None
        moves.append(m)
    out = b.outcome()
    if out is None or out.winner is not me:
        return None
    return moves


def _threat_line(board: BaseBoard, pos: Position, solver: ThreatSolver, depth: int) -> bool:
    """Has the side to move a VCF or a VCT of up to ``depth`` threats that replays on ``board``?"""
    line = solver.vcf()
    for d in range(1, depth + 1):
        if line is not None or solver.aborted:
            break
        line = solver.vct(depth=d)
    return line is not None and verified_win(board, pos, line) is not None


def vct_holds(board: BaseBoard, pos: Position, line: list[int], depth: int, nodes: int,
              deadline: float | None = None) -> bool:
    """Does the claimed VCT ``line`` (the side to move's) hold against every defence?

    ``line[0]`` is played and every legal reply of the defender tried on the rules board: the
    reply must not win, and the attacker must then still have a VCF, or a VCT of up to
    ``depth`` threats, that replays on the rules board (each found within ``nodes`` threat
    nodes).  Replies more than four points from every stone and every point of the line
    cannot touch a line of five through them, so one of them stands for all.  False when a
    reply holds or the deadline passes first."""
    attack = pos.to_move(board, line[0])
    after = board.copy()
    after.push(attack)
    out = after.outcome()
    if out is not None:
        return out.winner is board.turn
    stones = ((pos.cells == P.BLACK) | (pos.cells == P.WHITE)).nonzero()[0]
    marks = [pos.col_row(int(p)) for p in stones] + [pos.col_row(p) for p in line if p >= 0]
    far_checked = False
    for reply in list(after.legal_moves):
        if deadline is not None and time.perf_counter() > deadline:
            return False
        near = any(max(abs(reply.col - c), abs(reply.row - r)) <= 4 for c, r in marks)
        if not near:
            if far_checked:
                continue
            far_checked = True
        b = after.copy()
        b.push(reply)
        out = b.outcome()
        if out is not None:
            if out.winner is not board.turn:
                return False
            continue
        pos.play(line[0])
        pos.play(pos.point(reply.col, reply.row))
        try:
            ok = _threat_line(b, pos, ThreatSolver(pos, max_nodes=nodes, deadline=deadline), depth)
        finally:
            pos.undo()
            pos.undo()
        if not ok:
            return False
    return True


def _on_board(board: BaseBoard, pos: Position, p: int) -> bool:
    return p >= 0 and board.on_board(*pos.col_row(p))


def _legal_choice(board: BaseBoard, pos: Position, ranked: list[int]) -> Move:
    for p in ranked:
        if not _on_board(board, pos, p):
            continue
        m = pos.to_move(board, p)
        if board.is_legal(m):
            return m
    moves = board.legal_moves
    if not moves:
        raise IllegalMoveError("no legal move: the game is over")
    centre = (board.width // 2, board.height // 2)
    return min(moves, key=lambda m: abs(m.col - centre[0]) + abs(m.row - centre[1]))


class GomokuEngine:
    """A player at one strength setting; ``choose`` and ``analyse`` as every player."""

    def __init__(self, settings: EngineSettings, name: str = "gomoku-engine", seed: int | None = None) -> None:
        self.settings = settings
        self.name = name
        self.rng = random.Random(seed)
        self.last: Analysis | None = None

    def _seconds(self, limit: Limit | None) -> float:
        # a level's own time is its ceiling: a generous clock does not make level 4 think longer
        s = self.settings.seconds
        if limit is not None and limit.seconds is not None:
            s = min(s, limit.seconds)
        return s

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        if board.is_game_over():
            raise IllegalMoveError("no legal move: the game is over")
        pos = Position.from_board(board)
        if self.settings.random_only:
            cands = pos.candidates()
            self.rng.shuffle(cands)
            return _legal_choice(board, pos, cands)
        if self.settings.greedy_only:
            return self._greedy(board, pos)
        if self.settings.book:
            move = book_move(board)
            if move is not None:
                return move
        result = self.analyse(board, limit)
        ranked = [pos.point(m.move.col, m.move.row) for m in result.scores]
        return _legal_choice(board, pos, ranked)

    def _greedy(self, board: BaseBoard, pos: Position) -> Move:
        """One ply by pattern value: take a five, stop a five, else a good-looking point;
        with the blunder rate, a random one of the few best-looking points."""
        me = pos.turn
        fives = pos.five_points(me) or pos.five_points(3 - me)
        if fives:
            return _legal_choice(board, pos, fives)
        cands = pos.candidates(12)
        if self.settings.blunder and self.rng.random() < self.settings.blunder:
            self.rng.shuffle(cands)
            return _legal_choice(board, pos, cands)
        st = self.settings
        deadline = time.perf_counter() + st.seconds
        if st.vcf_nodes > 0:
            line = ThreatSolver(pos, max_nodes=st.vcf_nodes, deadline=deadline).vcf()
            if line is not None and verified_win(board, pos, line) is not None:
                return pos.to_move(board, line[0])
        if st.safety_nodes > 0:
            cands = safe_first(pos, cands, st.safety_nodes, deadline=deadline)
        return _legal_choice(board, pos, cands)

    def analyse(self, board: BaseBoard, limit: Limit | None = None) -> Analysis:
        started = time.perf_counter()
        seconds = self._seconds(limit)
        deadline = started + seconds
        pos = Position.from_board(board)
        analysis = Analysis()
        if board.is_game_over():
            return analysis
        st = self.settings
        nodes = 0
        if st.vcf_nodes > 0 or st.vct_nodes > 0:
            solver = ThreatSolver(pos, max_nodes=max(st.vcf_nodes, 1), deadline=started + seconds * 0.1 + 0.01)
            line = solver.vcf() if st.vcf_nodes > 0 else None
            nodes += solver.nodes
            if line is None and st.vct_nodes > 0 and seconds > 0:
                solver = ThreatSolver(pos, max_nodes=st.vct_nodes, deadline=started + seconds * 0.2 + 0.01)
                # deepening: a short VCT costs few nodes, while a depth-6 search from the
                # start can spend the whole budget before it reaches one
                vct_depth = 0
                for vct_depth in (2, 4, 6):
                    line = solver.vct(depth=vct_depth)
                    if line is not None or solver.nodes >= st.vct_nodes:
                        break
                nodes += solver.nodes
                if line is not None and not vct_holds(board, pos, line, vct_depth, max(st.vct_nodes // 20, 500),
                                                      started + seconds * 0.35 + 0.02):
                    line = None  # a defence the solver did not consider may hold: not trusted
            if line is not None:
                win = verified_win(board, pos, line)
                if win is not None:
                    analysis.forced_win = win
                    analysis.pv = win
                    analysis.scores = [MoveScore(win[0], float(WIN - len(win)), exact=True)]
                    analysis.nodes = nodes
                    analysis.seconds = time.perf_counter() - started
                    self.last = analysis
                    return analysis
        max_nodes = limit.nodes if limit is not None and limit.nodes is not None else None
        max_depth = st.max_depth
        if limit is not None and limit.depth is not None:
            max_depth = min(max_depth, limit.depth) if st.max_depth < 64 else limit.depth
        if seconds <= 0:
            max_depth = 1
            deadline = started + 0.5
        # the rest of the turn after the search is kept for checking that the chosen move leaves no
        # forced loss (SEARCH_SHARE)
        search_deadline = started + max(0.0, deadline - started - TURN_OVERHEAD) * (
            1.0 if st.safety_nodes == 0 else SEARCH_SHARE_VCT if st.safety_vct else SEARCH_SHARE)
        searcher = Searcher(pos, deadline=search_deadline, max_nodes=max_nodes, width=st.width, tt_entries=TT_ENTRIES,
                            pruning=True, keep_table=True, extend_fours=st.extend_fours, taper=st.taper,
                            taper2=st.taper2, killers=st.killers, vcf_nodes=st.search_vcf)
        result = searcher.search(max_depth=max_depth)
        nodes += result.nodes
        scores = result.root_scores or [(result.best, result.score)]
        if st.safety_nodes > 0 and len(scores) > 1 and scores[0][1] < WIN - 100:
            vct_threats = st.lost_vct if scores[0][1] <= -(WIN - 100) else st.safety_vct
            order = safe_first(pos, [p for p, _ in scores[:10]], st.safety_nodes, vct_threats,
                               deadline=deadline)
            rank = {p: i for i, p in enumerate(order)}
            scores = sorted(scores, key=lambda t: rank.get(t[0], len(rank)))
            if scores[0][0] != result.best:
                result.pv = [scores[0][0]]
        for p, score in scores[:8]:
            if not _on_board(board, pos, p):
                continue
            m = pos.to_move(board, p)
            if board.is_legal(m):
                analysis.scores.append(MoveScore(m, float(score), exact=abs(score) >= WIN - 100))
        analysis.pv = [pos.to_move(board, p) for p in result.pv if _on_board(board, pos, p)]
        analysis.depth = result.depth
        analysis.nodes = nodes
        analysis.seconds = time.perf_counter() - started
        if not analysis.scores:
            m = _legal_choice(board, pos, [p for p, _ in scores])
            analysis.scores = [MoveScore(m, 0.0)]
        self.last = analysis
        return analysis


def opponent_wins_after(pos: Position, p: int, nodes: int, vct_threats: int = 0,
                        deadline: float | None = None) -> bool:
    """Does the opponent have a VCF, or a VCT of up to ``vct_threats`` threats, after we play ``p``?

    The VCT is deepened two threats at a time, each depth with a fresh budget of ``nodes``: a
    short VCT costs few nodes, while a deep search from the start can spend the whole budget
    on other threats before it reaches one."""
    pos.play(p)
    try:
        if ThreatSolver(pos, max_nodes=nodes, deadline=deadline).vcf() is not None:
            return True
        for depth in range(2, vct_threats + 1, 2):
            if ThreatSolver(pos, max_nodes=nodes, deadline=deadline).vct(depth=depth) is not None:
                return True
        return False
    finally:
        pos.undo()


def safe_first(pos: Position, ranked: list[int], nodes: int, vct_threats: int = 0, deadline: float | None = None,
               check: int = 8) -> list[int]:
    """``ranked`` with the best move after which the opponent has no forced win
    brought to the front and the losing ones tried before it moved to the back
    (at most ``check`` moves are tried, until ``deadline``)."""
    lost: list[int] = []
    for i, p in enumerate(ranked):
        if i >= check or (deadline is not None and time.perf_counter() > deadline):
            break
        if not opponent_wins_after(pos, p, nodes, vct_threats, deadline):
            return [p, *ranked[i + 1 :], *lost]
        lost.append(p)
    return [p for p in ranked if p not in lost] + lost


def warm_up() -> None:
    """Load (or, without numba's cache, compile) every kernel a move uses, outside any timed move:
    the position's updates, the threat solvers', the searches' (plain and pruning) and Renju's
    forbidden-point judgement; and the opening books."""
    preload()
    for rule in ("freestyle", "renju"):
        pos = Position(15, 15, rule)
        for col, row in ((7, 7), (8, 8), (6, 8), (9, 9)):
            pos.play(pos.point(col, row))
        ThreatSolver(pos, max_nodes=50).vcf()
        ThreatSolver(pos, max_nodes=50).vct(depth=2)
        Searcher(pos, max_nodes=200, tt_entries=16).search(max_depth=2)
        Searcher(pos, max_nodes=200, tt_entries=16, pruning=True).search(max_depth=4)
        pos.is_foul(1, pos.point(7, 8))
        pos.five_points(1)  # the threat points a VCT defence reads (patterns.points_with)
        pos.undo()
        pos.candidates(4)


def level_player(n: int) -> GomokuEngine:
    """The engine at level ``n`` (1 gentle .. 10 full strength)."""
    if not 1 <= n <= 10:
        raise ValueError(f"level must be 1..10, not {n}")
    return GomokuEngine(LEVELS[n], name=f"level:{n}")


def analyse(board: BaseBoard, limit: Limit | None = None) -> Analysis:
    """Full-strength analysis of ``board`` (default 3 seconds)."""
    if limit is None:
        limit = Limit(seconds=3.0)
    settings = LEVELS[10]
    if limit.seconds is not None:
        settings = replace(settings, seconds=limit.seconds)
    return GomokuEngine(settings, name="analysis").analyse(board, limit)
