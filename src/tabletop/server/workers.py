"""The process pool where computer seats think and positions are analysed.

Searching is CPU work; done on the event loop it would freeze every room of
the server.  Each job gets plain values (game, options, start position, moves)
and rebuilds its own board, so nothing but text crosses the process boundary.
This module must not touch the store, the bus or any socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.queues import SimpleQueue
from typing import Any

import psutil

__all__ = ["AnalysisUnavailable", "Pool", "analyse_job", "choose_job", "evaluate_job", "opening_job"]


class AnalysisUnavailable(ValueError):
    """The engine cannot analyse this position (a board size it does not play, say).

    Distinct from a bad position (a plain ``ValueError``) so the server can say
    which of the two went wrong; defined here so it crosses the process pool."""


def _analyse(board: Any, seconds: float) -> Any:
    from tabletop.ai import Limit, analyse

    try:
        return analyse(board, Limit(seconds=seconds))
    except (ValueError, NotImplementedError) as exc:
        raise AnalysisUnavailable(f"no analysis for this position: {exc}") from None


def _board(game: str, options: dict[str, Any], position: str | None, moves: list[str]) -> Any:
    from tabletop.games import new_board

    board_options = {k: v for k, v in options.items() if k != "opening"}
    board = new_board(game, board_options, position)
    for text in moves:
        board.push(board.parse_move(text))
    return board


def choose_job(game: str, options: dict[str, Any], position: str | None, moves: list[str], spec: str) -> str:
    """The move the player ``spec`` chooses after ``moves``."""
    from tabletop.players import player

    board = _board(game, options, position, moves)
    return str(player(spec, game=game).choose(board, None))


def opening_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], opening: dict[str, Any], seed: int
) -> dict[str, object]:
    """A computer seat's answer to the pending step of a swap/swap2 opening (``opening``: the phase
    as :meth:`OpeningPhase.to_dict` gives it): ``{"choice", "stones", "score", "options"}``, the
    choice ``None`` when the seat only places stones."""
    from tabletop.ai.gomoku.openings import decide_opening
    from tabletop.games.core import BLACK, WHITE
    from tabletop.games.openings import OpeningPhase

    board = _board(game, options, position, moves)
    phase = OpeningPhase(
        str(opening["rule"]),
        stage=str(opening["stage"]),
        actor=BLACK if opening["actor"] == "black" else WHITE,
        stones_left=int(opening["stones_left"]),
        options=tuple(opening["options"]),
        stones_placed=int(opening["stones_placed"]),
    )
    decision = decide_opening(board, phase, seed=seed)
    return {
        "choice": decision.choice,
        "stones": [str(m) for m in decision.stones],
        "score": decision.score,
        "options": decision.options,
    }


def analyse_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], seconds: float
) -> dict[str, object]:
    """The engine's analysis of the position after ``moves``: ``ValueError`` for a
    bad position or move, :class:`AnalysisUnavailable` when no engine can analyse it."""
    board = _board(game, options, position, moves)
    if board.is_game_over():
        return {"scores": [], "pv": [], "depth": 0, "nodes": 0, "seconds": 0.0, "forced_win": None}
    result: dict[str, object] = _analyse(board, seconds).to_dict()
    return result


def evaluate_job(
    game: str, options: dict[str, Any], position: str | None, moves: list[str], seconds: float
) -> list[float | None]:
    """A score for every ply (0 = start) from Black's side: the best move's score
    for the side to move, or the result once the game is over; ``None`` where the
    engine gave none (or cannot analyse the board at all)."""
    from tabletop.games.core import BLACK

    board = _board(game, options, position, [])
    scores: list[float | None] = []
    for i in range(len(moves) + 1):
        if board.is_game_over():
            outcome = board.outcome()
            black, white = outcome.score if outcome is not None else (0, 0)
            scores.append(
                float(black - white) if game == "reversi" else float((black > white) - (white > black))
            )
        else:
            try:
                analysis = _analyse(board, seconds)
                best = analysis.scores[0].score if analysis.scores else None
            except AnalysisUnavailable:
                best = None
            scores.append(None if best is None else (best if board.turn is BLACK else -best))
        if i < len(moves):
            board.push(board.parse_move(moves[i]))
    return scores


def _report_pid(started: SimpleQueue[int]) -> None:
    """A worker's initializer: tell the pool which process it is, so that it can be ended."""
    started.put(os.getpid())


class Pool:
    """A lazily started process pool (``forkserver``: safe beside the server's threads).

    :class:`~concurrent.futures.ProcessPoolExecutor` can cancel a job that waits but
    not end one that runs, and has no public list of its workers: each worker
    reports its process id when it starts, so :meth:`close` can end them."""

    def __init__(self, workers: int = 2, executor: Executor | None = None) -> None:
        self.workers = max(1, workers)
        self._executor = executor
        self._started: SimpleQueue[int] | None = None  # the pids of this executor's workers
        self._reported: list[psutil.Process] = []

    def _get(self) -> Executor:
        if self._executor is None:
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            self._started = context.SimpleQueue()
            self._reported = []
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_report_pid, initargs=(self._started,)
            )
        return self._executor

    async def run(self, fn: Any, *args: Any) -> Any:
        executor = self._get()
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            # A worker died (a crash in native code, say): this job fails, the next gets a new pool
            if self._executor is executor:
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise

    def _workers(self) -> list[psutil.Process]:
        """The current executor's worker processes that have reported (and still run)."""
        started = self._started
        while started is not None and not started.empty():
            with contextlib.suppress(psutil.Error):
                # psutil.Process remembers the start time: a pid reused later is not ended
                self._reported.append(psutil.Process(started.get()))
        return [p for p in self._reported if p.is_running()]

    def close(self) -> None:
        """Stop the pool at once: a search still running is ended, not waited for
        (its room stored nothing for it, and thinks again after a restart)."""
        if self._executor is not None:
            workers = self._workers()
            executor, self._executor = self._executor, None
            executor.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                with contextlib.suppress(psutil.Error):
                    process.terminate()
            psutil.wait_procs(workers, timeout=2)
