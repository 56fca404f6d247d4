"""Searches over the compiled kernel: iterative deepening, the exact endgame, time and stop control.

:class:`Searcher` owns the transposition tables, the evaluation weights and a
stop flag that another thread may raise (:meth:`Searcher.stop`); the search then
returns the best move of the last finished iteration.  Positions are given as
two bitboards (side to move, opponent), squares as ``row * 8 + col`` (a1 = 0,
top-left) and ``-1`` for a pass.  This module must not know about board objects
or players; :mod:`tabletop.ai.reversi` converts.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import default_weights
from tabletop.ai.reversi.mpc import default_mpc

__all__ = [
    "RootScore",
    "SearchResult",
    "Searcher",
    "estimated_solve_seconds",
    "is_critical",
    "square_name",
    "time_for_move",
]

DEFAULT_TT_MEGABYTES = 32.0
ASPIRATION = 2  # discs either side of the midgame estimate for the first exact search
ORDERING_DEPTH = 8  # midgame plies that order the root moves before an exact solve
END_SELECTIVITY = 1.0  # standard deviations of the selective endgame search before an exact solve
UNSTABLE_DROP = 2 * kernel.SCALE  # a score falling this much between iterations makes a position critical
UNSTABLE_STRETCH = 1.6  # ... and stretches the time target by this factor (up to the hard limit)
# Exact solves in self-play positions on this machine: about SOLVE_SECONDS_AT_20 at 20 empties,
# growing SOLVE_GROWTH times per extra empty square (scripts/fit_reversi_mpc.py --solve-times).
MOVE_OVERHEAD = 0.02  # seconds a move costs beyond its search (Python, threads, the caller)
SOLVE_SECONDS_AT_20 = 2.0
SOLVE_GROWTH = 1.9


def is_critical(previous: tuple[int, int], best: int, score: int) -> bool:
    """Whether an iteration's (``best`` move, ``score``) after the ``previous`` iteration's marks
    a critical position: the best move changed, or its score fell by ``UNSTABLE_DROP`` or more."""
    return best != previous[0] or score <= previous[1] - UNSTABLE_DROP


def estimated_solve_seconds(empties: int) -> float:
    """About how long an exact solve from ``empties`` empty squares takes here."""
    return SOLVE_SECONDS_AT_20 * SOLVE_GROWTH ** (empties - 20)


def square_name(sq: int) -> str:
    """``0`` -> ``a1`` (top-left), ``-1`` -> ``pass``."""
    if sq < 0:
        return "pass"
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def time_for_move(remaining: float, increment: float, empties: int) -> float:
    """Seconds to spend on this move with ``remaining`` on the clock and ``increment`` per move.

    Our remaining moves are about half the empty squares; the last dozen are solved
    exactly and cheaply, so the budget is spread over the moves before them, after a
    reserve of ``MOVE_OVERHEAD`` for each of our moves to the end.
    """
    reserve = min(0.5 * remaining, MOVE_OVERHEAD * ((empties + 1) // 2))
    spare = max(0.0, remaining - reserve)
    moves_left = max(2, (empties - 10) // 2)
    budget = spare / moves_left + 0.8 * increment
    return max(0.001, min(budget, 0.5 * spare + 0.8 * increment))


@dataclass(frozen=True)
class RootScore:
    """One legal root move with its score in discs from the mover's side."""

    square: int
    score: float
    exact: bool
    book: bool = False  # the opening book's value, not a search's


@dataclass
class SearchResult:
    """What a search found: the best move first in ``scores``."""

    best: int
    scores: list[RootScore] = field(default_factory=list)
    pv: list[int] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    exact: bool = False
    book: bool = False  # the move comes from the opening book

    @property
    def score(self) -> float:
        return self.scores[0].score if self.scores else 0.0


def _squares(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Searcher:
    """An engine instance: tables sized by ``tt_megabytes`` (split between midgame and endgame)."""

    def __init__(
        self,
        tt_megabytes: float = DEFAULT_TT_MEGABYTES,
        weights: np.ndarray | None = None,
        mpc: np.ndarray | None = None,
    ) -> None:
        if not tt_megabytes > 0:
            raise ValueError(f"the table size must be positive, not {tt_megabytes} MB")
        self.weights = np.ascontiguousarray(
            weights if weights is not None else default_weights(), dtype=np.float32
        )
        self.mpc = np.ascontiguousarray(mpc if mpc is not None else default_mpc(), dtype=np.float32)
        self._mpc_t = 0.0  # the running search's selectivity
        self.mid_keys, self.mid_vals = kernel.new_tables(tt_megabytes / 2)
        self.end_keys, self.end_vals = kernel.new_tables(tt_megabytes / 2)
        self.scratch = kernel.new_scratch()
        self._stop = np.zeros(1, dtype=np.int64)
        self._nodes = np.zeros(2, dtype=np.int64)

    # ------------------------------------------------------------------ control
    def stop(self) -> None:
        """Ask a running search (in another thread) to return as soon as it can."""
        self._stop[0] = 1

    @property
    def stopped(self) -> bool:
        return bool(self._stop[0])

    def clear(self) -> None:
        """Forget the tables (a new game)."""
        self.mid_keys[:] = 0
        self.mid_vals[:] = 0
        self.mid_vals[:, kernel.TT_DEPTH] = -1
        self.end_keys[:] = 0
        self.end_vals[:] = 0
        self.end_vals[:, kernel.TT_DEPTH] = -1

    # ------------------------------------------------------------------ searches
    @staticmethod
    def is_over(player: int, opponent: int) -> bool:
        """Neither side can place a disc."""
        p, o = np.uint64(player), np.uint64(opponent)
        return int(kernel.get_moves(p, o)) == 0 and int(kernel.get_moves(o, p)) == 0

    @staticmethod
    def final_score(player: int, opponent: int) -> int:
        """Disc difference of a finished game from ``player``'s side, empties to the winner."""
        diff = player.bit_count() - opponent.bit_count()
        empties = 64 - (player | opponent).bit_count()
        return diff + empties if diff > 0 else diff - empties if diff < 0 else 0

    def search(
        self,
        player: int,
        opponent: int,
        *,
        depth: int | None = None,
        seconds: float | None = None,
        nodes: int | None = None,
        exact_empties: int = 0,
        all_moves: bool = False,
        selectivity: float = 0.0,
        target_seconds: float | None = None,
    ) -> SearchResult:
        """Iterative deepening to ``depth`` (or until ``seconds``/``nodes`` run out), then an
        exact solve when at most ``exact_empties`` squares are empty.  ``all_moves`` gives
        every root move a true score instead of a bound (slower; for analysis).

        ``selectivity`` > 0 prunes the midgame with Multi-ProbCut at that many standard
        deviations and runs a selective search to the end before an exact solve.
        ``target_seconds`` (at most ``seconds``, the hard limit) is the time the move should
        take; it stretches when the best move changes or the score drops between iterations."""
        if player & opponent:
            raise ValueError("impossible position: the two sides share a square")
        if selectivity < 0:
            raise ValueError(f"the selectivity must be 0 (none) or positive, not {selectivity}")
        start = time.perf_counter()
        self._stop[0] = 0
        self._nodes[0] = 0
        self._nodes[1] = nodes or 0
        self._mpc_t = float(selectivity)
        timer = None
        if seconds is not None:
            timer = threading.Timer(max(0.0, seconds), self.stop)
            timer.daemon = True
            timer.start()
        target = seconds if target_seconds is None else min(target_seconds, seconds or target_seconds)
        try:
            return self._search(player, opponent, depth, seconds, target, exact_empties, all_moves, start)
        finally:
            if timer is not None:
                timer.cancel()

    def value(self, player: int, opponent: int, depth: int, selectivity: float = 0.0) -> int:
        """The position's value to ``depth`` plies (``kernel.SCALE`` units, mover's side); a
        ``depth`` of at least the empty squares searches to the end of the game."""
        if player & opponent:
            raise ValueError("impossible position: the two sides share a square")
        self._stop[0] = 0
        self._nodes[1] = 0
        p, o = np.uint64(player), np.uint64(opponent)
        inf = kernel.INF
        return int(
            kernel._search(
                p,
                o,
                depth,
                -inf,
                inf,
                False,
                0,
                self.weights,
                self.mid_keys,
                self.mid_vals,
                self._nodes,
                self._stop,
                self.scratch,
                self.mpc,
                float(selectivity),
            )
        )

    def solve(
        self, player: int, opponent: int, *, all_moves: bool = False, seconds: float | None = None
    ) -> SearchResult:
        """The exact result (disc difference, empties to the winner) and a best move."""
        return self.search(player, opponent, seconds=seconds, exact_empties=64, all_moves=all_moves)

    def _search(
        self,
        player: int,
        opponent: int,
        depth: int | None,
        seconds: float | None,
        target: float | None,
        exact_empties: int,
        all_moves: bool,
        start: float,
    ) -> SearchResult:
        p = np.uint64(player)
        o = np.uint64(opponent)
        empties = 64 - (player | opponent).bit_count()
        moves = _squares(int(kernel.get_moves(p, o)))
        if not moves:
            if int(kernel.get_moves(o, p)) == 0:
                raise ValueError("the game is over: there is no move to search")
            moves = [-1]
        max_depth = empties if depth is None else min(depth, empties)
        solve = empties <= exact_empties
        if solve:
            # A shallow pass only orders the root moves for the solver.
            max_depth = min(max_depth, ORDERING_DEPTH if empties > 14 else 2 if empties > 8 else 0)
        result = SearchResult(best=moves[0], scores=[RootScore(sq, 0.0, False) for sq in moves])
        order = list(moves)
        previous: tuple[int, int] | None = None  # (best move, its score) of the last iteration
        for d in range(1, max_depth + 1):
            scores = self._iteration(p, o, order, d, all_moves)
            if scores is None:
                break
            order = sorted(scores, key=lambda sq: -scores[sq])
            result = SearchResult(
                best=order[0],
                scores=[RootScore(sq, round(scores[sq] / kernel.SCALE, 2), False) for sq in order],
                depth=d,
            )
            critical = previous is not None and d >= 6 and is_critical(previous, order[0], scores[order[0]])
            if target is not None and seconds is not None and critical:
                # A critical position (the best move changed, or its score fell): take more time.
                target = min(seconds, target * UNSTABLE_STRETCH)
            previous = (order[0], scores[order[0]])
            if target is not None and time.perf_counter() - start > 0.4 * target:
                break  # the next iteration would not finish in time
        if solve and self._mpc_t > 0 and result.depth and not self.stopped:
            # A selective search to the end first: a good guess and order for the exact one,
            # and a far better answer than the midgame's if the time runs out during the solve.
            t, self._mpc_t = self._mpc_t, END_SELECTIVITY
            ends = self._iteration(p, o, order, empties, all_moves)
            self._mpc_t = t
            if ends is not None:
                order = sorted(ends, key=lambda sq: -ends[sq])
                result = SearchResult(
                    best=order[0],
                    scores=[RootScore(sq, round(ends[sq] / kernel.SCALE, 2), False) for sq in order],
                    depth=empties,
                )
        if solve and not self.stopped:
            guess = int(round(result.scores[0].score)) if result.depth else None
            exact = self._solve_root(p, o, order, all_moves, guess)
            if exact is not None:
                order = sorted(exact, key=lambda sq: -exact[sq])
                result = SearchResult(
                    best=order[0],
                    # Without all_moves only the best score is exact: the others are the
                    # null-window bounds (at most the best) that proved them no better.
                    scores=[RootScore(sq, float(exact[sq]), all_moves or sq == order[0]) for sq in order],
                    depth=empties,
                    exact=True,
                )
        result.pv = self._pv(player, opponent, result.best, result.exact)
        result.nodes = int(self._nodes[0])
        result.seconds = time.perf_counter() - start
        return result

    def _iteration(
        self, p: np.uint64, o: np.uint64, order: list[int], depth: int, all_moves: bool
    ) -> dict[int, int] | None:
        inf = kernel.INF
        scores: dict[int, int] = {}
        alpha = -inf
        args = (
            self.weights,
            self.mid_keys,
            self.mid_vals,
            self._nodes,
            self._stop,
            self.scratch,
            self.mpc,
            self._mpc_t,
        )
        for i, sq in enumerate(order):
            if all_moves or i == 0:
                v = kernel.search_root_move(p, o, sq, depth, -inf, inf, *args)
            else:
                v = kernel.search_root_move(p, o, sq, depth, alpha, alpha + 1, *args)
                if v > alpha and not self._stop[0]:
                    v = kernel.search_root_move(p, o, sq, depth, alpha, inf, *args)
            if self._stop[0]:
                return None
            scores[sq] = int(v)
            alpha = max(alpha, int(v))
        return scores

    def _solve_root(
        self, p: np.uint64, o: np.uint64, order: list[int], all_moves: bool, guess: int | None = None
    ) -> dict[int, int] | None:
        scores: dict[int, int] = {}
        best = -65
        args = (self.end_keys, self.end_vals, self._nodes, self._stop, self.scratch, self.weights)
        for i, sq in enumerate(order):
            if i == 0 and not all_moves and guess is not None:
                # Aspiration: a narrow window around the midgame estimate, widened on failure.
                lo, hi = max(-64, guess - ASPIRATION), min(64, guess + ASPIRATION)
                v = kernel.solve_root_move(p, o, sq, lo, hi, *args)
                if v <= lo and not self._stop[0]:
                    v = kernel.solve_root_move(p, o, sq, -64, v + 1, *args)
                elif v >= hi and not self._stop[0]:
                    v = kernel.solve_root_move(p, o, sq, v - 1, 64, *args)
            elif all_moves or i == 0:
                v = kernel.solve_root_move(p, o, sq, -64, 64, *args)
            else:
                v = kernel.solve_root_move(p, o, sq, best, best + 1, *args)
                if v > best and not self._stop[0]:
                    v = kernel.solve_root_move(p, o, sq, best, 64, *args)
            if self._stop[0]:
                return None
            scores[sq] = int(v)
            best = max(best, int(v))
        return scores

    def _pv(self, player: int, opponent: int, first: int, exact: bool) -> list[int]:
        keys, vals = (self.end_keys, self.end_vals) if exact else (self.mid_keys, self.mid_vals)
        pv = [first]
        p, o = np.uint64(player), np.uint64(opponent)
        sq = first
        for _ in range(30):
            if sq >= 0:
                f = kernel.flips(p, o, sq)
                if f == 0:
                    break
                p, o = o ^ f, p ^ f ^ (np.uint64(1) << np.uint64(sq))
            else:
                p, o = o, p
            if int(kernel.get_moves(p, o)) == 0:
                if int(kernel.get_moves(o, p)) == 0:
                    break
                sq = -1
            else:
                sq = int(kernel.tt_best_move(p, o, keys, vals))
                if sq < 0 or int(kernel.flips(p, o, sq)) == 0:
                    break
            pv.append(sq)
        return pv
