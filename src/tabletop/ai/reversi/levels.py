"""Levels 1..10 of the Reversi engine and the player object that plays them.

Low levels search one or two plies and add noise to their scores (a beginner's
misjudgements); higher levels search deeper and solve the endgame exactly from
more empty squares; level 10 is full strength.  Fixed depths rather than time
keep the ladder reproducible and the low levels fast.  Levels 6-10 open from the
book (:mod:`.book`), choosing at random (seeded) among moves within
``BOOK_TOLERANCE`` discs of the best, and prune with Multi-ProbCut.  On a clock
(:attr:`EnginePlayer.clock`) level 10 spends more time in critical positions,
solves exactly when the solve fits its budget, and stays inside the clock.  This
module must not change the boards it is given.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from tabletop.ai.base import Analysis, Limit, MoveScore, Player
from tabletop.ai.reversi.book import Book, default_book
from tabletop.ai.reversi.search import (
    RootScore,
    Searcher,
    SearchResult,
    estimated_solve_seconds,
    time_for_move,
)
from tabletop.games.core import PASS, BaseBoard, Color, Move

__all__ = [
    "LEVELS",
    "EnginePlayer",
    "Level",
    "analysis_lock",
    "analysis_of",
    "book_result",
    "clock_budget",
    "level_player",
    "shared_searcher",
    "sides",
]


@dataclass(frozen=True)
class Level:
    """A strength setting: midgame ``depth``, exact solve from ``exact_empties``, score ``noise`` in discs."""

    depth: int
    exact_empties: int
    noise: float = 0.0
    seconds: float | None = None
    deepens_with_time: bool = False  # given a time limit, search as deep as it allows
    selectivity: float = 0.0  # Multi-ProbCut at this many standard deviations (0: none)
    book: bool = False  # open from the book


BOOK_TOLERANCE = 1  # discs: book moves this close to the best are all played
HARD_STRETCH = 3.0  # a move may take up to this many times its target in a critical position
CLOCK_RESERVE = 0.25  # ... but never more than this share of the remaining time (plus the increment)


LEVELS: dict[int, Level] = {
    1: Level(depth=1, exact_empties=0, noise=16.0),
    2: Level(depth=1, exact_empties=4, noise=6.0),
    3: Level(depth=2, exact_empties=6, noise=3.0),
    4: Level(depth=3, exact_empties=8, noise=1.0),
    5: Level(depth=4, exact_empties=10),
    # Multi-ProbCut at 1.5 sigmas leaves a half to a fifth of a depth's nodes, so these levels
    # search one or two plies deeper than the plain search could in the same time; each depth is
    # set so the level scores 65 % or more against the one below.
    6: Level(depth=5, exact_empties=12, selectivity=1.5, book=True),
    7: Level(depth=7, exact_empties=14, selectivity=1.5, book=True),
    8: Level(depth=9, exact_empties=16, selectivity=1.5, book=True),
    9: Level(depth=11, exact_empties=18, selectivity=1.5, book=True),
    10: Level(depth=14, exact_empties=20, deepens_with_time=True, selectivity=1.5, book=True),
}


def sides(board: BaseBoard) -> tuple[int, int]:
    """(side to move, opponent) bitboards of an 8x8 Reversi board."""
    bitboards = getattr(board, "bitboards", None)
    if board.game != "reversi" or bitboards is None or (board.width, board.height) != (8, 8):
        raise ValueError("the Reversi engine plays 8x8 Reversi boards only")
    black, white = bitboards()
    return (black, white) if board.turn is Color.BLACK else (white, black)


def _move(board: BaseBoard, sq: int) -> Move:
    return PASS if sq < 0 else board.move_at(sq % 8, sq // 8)


def analysis_of(board: BaseBoard, result: SearchResult) -> Analysis:
    """The search result in the shared :class:`Analysis` form."""
    return Analysis(
        scores=[MoveScore(_move(board, s.square), s.score, s.exact, s.book) for s in result.scores],
        pv=_pv_moves(board, result.pv),
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
    )


def book_result(
    player: int, opponent: int, rng: random.Random, book: Book | None = None
) -> SearchResult | None:
    """The book's answer for the position: every move with its book value, ``best`` chosen at
    random among those within ``BOOK_TOLERANCE`` of the best; None out of the book."""
    book = book if book is not None else default_book()
    scores = book.scores(player, opponent)
    if scores is None:
        return None
    best = book.choose(player, opponent, rng, BOOK_TOLERANCE)
    assert best is not None
    return SearchResult(
        best=best,
        scores=[RootScore(sq, float(v), False, book=True) for sq, v in scores],
        pv=[best],
        book=True,
    )


def clock_budget(remaining: float, increment: float, empties: int) -> tuple[float, float]:
    """(target, hard limit) in seconds for a move on a clock: the target is the move's even
    share; a critical position may stretch it up to the hard limit, which always leaves most
    of the clock for the moves after it."""
    target = time_for_move(remaining, increment, empties)
    hard = min(HARD_STRETCH * target, CLOCK_RESERVE * remaining + 0.8 * increment)
    return min(target, hard), max(0.005, hard)


def _pv_moves(board: BaseBoard, pv: list[int]) -> list[Move]:
    # Name the moves on a copy, so passes and squares get the board's own notation.
    b = board.copy()
    out: list[Move] = []
    for sq in pv:
        mv = _move(b, sq)
        if not b.is_legal(mv):
            break
        b.push(mv)
        out.append(mv)
    return out


_shared: Searcher | None = None
_shared_lock = threading.Lock()
analysis_lock = threading.Lock()


def shared_searcher() -> Searcher:
    """The process-wide searcher used by :func:`tabletop.ai.reversi.analyse`."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Searcher()
        return _shared


class EnginePlayer:
    """Plays a :class:`Level`.  ``clock`` = (remaining, increment) seconds switches to clock-based
    time management; ``limit`` given to :meth:`choose` overrides the level's depth or time."""

    def __init__(self, level: Level, name: str, seed: int | None = None, tt_megabytes: float = 32.0) -> None:
        self.level = level
        self.name = name
        self.rng = random.Random(seed)
        self.clock: tuple[float, float] | None = None
        self._tt_megabytes = tt_megabytes
        self._searcher: Searcher | None = None
        self._fallback: Player | None = None

    @property
    def searcher(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self._tt_megabytes)
        return self._searcher

    def stop(self) -> None:
        """Stop a search running in another thread; it returns its best move so far."""
        if self._searcher is not None:
            self._searcher.stop()

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move:
        if board.game != "reversi" or (board.width, board.height) != (8, 8):
            return self._generic(board, limit)
        legal = board.legal_moves
        if not legal:
            raise ValueError("the game is over: there is no move to choose")
        if legal == [PASS]:
            return PASS
        return _move(board, self.search(board, limit).best)

    def search(self, board: BaseBoard, limit: Limit | None = None) -> SearchResult:
        """The level's search of ``board`` (noise applied to the choice in ``best``); a book
        move when the level opens from the book and the position is in it."""
        player, opponent = sides(board)
        level = self.level
        if level.book:
            found = book_result(player, opponent, self.rng)
            if found is not None:
                return found
        depth = level.depth
        seconds = level.seconds
        target: float | None = None
        nodes = None
        exact_empties = level.exact_empties
        empties = 64 - (player | opponent).bit_count()
        if self.clock is not None:
            target, seconds = clock_budget(self.clock[0], self.clock[1], empties)
            if level.deepens_with_time:
                depth = 60
                # Solve exactly when the solve fits the budget; otherwise search selectively to
                # the end (the iterations reach it) and never start a solve that cannot finish.
                exact_empties = empties if estimated_solve_seconds(empties) <= target else 0
        if limit is not None:
            if limit.depth is not None:
                depth = limit.depth
            if limit.seconds is not None:
                seconds = limit.seconds
                target = None
                if limit.depth is None and level.deepens_with_time:
                    depth = 60
            nodes = limit.nodes
        noisy = level.noise > 0
        result = self.searcher.search(
            player,
            opponent,
            depth=depth,
            seconds=seconds,
            nodes=nodes,
            exact_empties=exact_empties,
            all_moves=noisy,
            selectivity=level.selectivity,
            target_seconds=target,
        )
        if noisy and not result.exact and len(result.scores) > 1:
            best = max(result.scores, key=lambda s: s.score + self.rng.gauss(0.0, level.noise))
            result.best = best.square
        return result

    def analyse(self, board: BaseBoard, limit: Limit | None = None) -> Analysis:
        player, opponent = sides(board)
        limit = limit or Limit(seconds=1.0)
        if self.level.book and limit.depth is None and limit.nodes is None:
            # In the book the analysis is the book's, unless a depth or node limit asks for a search.
            found = book_result(player, opponent, self.rng)
            if found is not None:
                return analysis_of(board, found)
        result = self.searcher.search(
            player,
            opponent,
            depth=limit.depth,
            seconds=limit.seconds,
            nodes=limit.nodes,
            exact_empties=self.level.exact_empties,
            all_moves=True,
            selectivity=self.level.selectivity,
        )
        return analysis_of(board, result)

    def _generic(self, board: BaseBoard, limit: Limit | None) -> Move:
        if self._fallback is None:
            from tabletop.ai.levels import generic_level

            self._fallback = generic_level(int(self.name.rpartition(":")[2] or 10))
        return self._fallback.choose(board, limit)


def level_player(n: int, seed: int | None = None) -> EnginePlayer:
    """The ``level:N`` player for Reversi (1 weakest .. 10 full strength)."""
    if n not in LEVELS:
        raise ValueError(f"level must be 1..10, not {n}")
    return EnginePlayer(LEVELS[n], name=f"level:{n}", seed=seed)
