"""Both opening books' searches through the training runner: one shard a searched position (or lost line).

``scripts/build_reversi_book.py`` and ``scripts/build_gomoku_book.py`` decide which positions to
search, layer by layer, and write the books; the searches themselves run here as runner jobs, on
local processes or a Ray cluster, each result a checked shard named after its position and the
search's settings (so a stopped build finds the results it already has, whichever order they came
in).  A shard holds one JSON object, the row the scripts keep in their record.

- :class:`ReversiBookSearch`: every move of a Reversi position searched to ``depth`` plies;
- :class:`GomokuBookSearch`: a Gomoku position analysed by level 10 for ``seconds``;
- :class:`GomokuLearn`: a lost Gomoku line searched for the move that should have been played
  (:func:`learn_line`).

The Reversi searches are fixed-depth (the same seed and settings give the same values); the
Gomoku searches stop on the clock, so their results depend on the machine's speed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tabletop.ai.gomoku.search import WIN
from tabletop.ai.reversi.book import position_key

__all__ = ["PROVEN", "GomokuBookSearch", "GomokuLearn", "ReversiBookSearch", "analyse_gomoku", "learn_line"]

# a child's score (its side to move, the opponent) that the Gomoku engine reads as a proven win
PROVEN = WIN - 100

_WORKER: dict[str, Any] = {}  # per worker process: the Reversi searcher, whether Gomoku's kernels are loaded


def _name(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class ReversiBookSearch:
    """Shard ``index``: every move of ``positions[index]`` ((side to move, opponent) bitboards)
    searched to ``depth`` plies at the MPC ``selectivity``."""

    depth: int
    selectivity: float
    positions: tuple[tuple[int, int], ...]

    def shard_name(self, index: int) -> str:
        key = position_key(*self.positions[index])
        return f"reversi-book-d{self.depth}-s{self.selectivity:g}-{key:016x}.shard"

    def make(self, index: int) -> bytes:
        from tabletop.ai.reversi.search import Searcher

        searcher = _WORKER.get("reversi")
        if searcher is None:
            searcher = _WORKER["reversi"] = Searcher(32.0)
        p, o = self.positions[index]
        result = searcher.search(p, o, depth=self.depth, all_moves=True, selectivity=self.selectivity)
        return json.dumps({"p": p, "o": o, "scores": [(s.square, float(s.score)) for s in result.scores]}).encode()


def _warm_gomoku() -> None:
    """Load the Gomoku engine's kernels once a process, before any position is timed."""
    if not _WORKER.get("gomoku"):
        from tabletop.ai.gomoku.engine import warm_up

        warm_up()
        _WORKER["gomoku"] = True


def analyse_gomoku(rule: str, stones: list[str], seconds: float) -> dict[str, object]:
    """Level 10's analysis (no book) of the 15x15 position after ``stones``: the best move, its score,
    the depth and the eight best moves ranked."""
    from dataclasses import replace

    from tabletop.ai.base import Limit
    from tabletop.ai.gomoku.book import line_board
    from tabletop.ai.gomoku.engine import LEVELS, GomokuEngine

    board = line_board(rule, stones)
    settings = replace(LEVELS[10], seconds=seconds, book=False)
    analysis = GomokuEngine(settings, name="book").analyse(board, Limit(seconds=seconds))
    ranked = [str(m.move) for m in analysis.scores]
    return {"stones": " ".join(stones), "move": ranked[0], "score": analysis.scores[0].score,
            "depth": analysis.depth, "ranked": ranked[:8], "seconds": seconds}


@dataclass(frozen=True)
class GomokuBookSearch:
    """Shard ``index``: ``positions[index]`` (stones in order, space-separated) analysed for ``seconds``."""

    rule: str
    seconds: float
    positions: tuple[str, ...]

    def shard_name(self, index: int) -> str:
        return f"{self.rule}-{self.seconds:g}s-{_name(self.positions[index])}.shard"

    def make(self, index: int) -> bytes:
        _warm_gomoku()
        return json.dumps(analyse_gomoku(self.rule, self.positions[index].split(), self.seconds)).encode()


def learn_line(rule: str, line: list[str], black: bool, seconds: float, width: int, replies: int = 2,
               analyse: Callable[[str, list[str], float], dict[str, object]] | None = None) -> dict[str, object]:
    """The move side A (Black when ``black``) should have played on ``line``, a game it lost:
    a row as :func:`analyse_gomoku` writes, for the position where it differs from the game, with
    ``learned_from`` (the line), ``avoids`` (the move played there) and ``follow`` (the rows of
    the opponent's position after the move and of A's after each of the opponent's ``replies``
    best answers there, so the book goes on past it); or only ``learned_from`` and ``avoids``
    None where no move within the line can be found that is not proved lost."""
    search = analyse or analyse_gomoku
    memo: dict[str, dict[str, object]] = {}

    def row(stones: list[str]) -> dict[str, object]:
        key = " ".join(stones)
        if key not in memo:
            memo[key] = search(rule, stones, seconds)
        return memo[key]

    def lost(stones: list[str]) -> bool:
        """The opponent, to move after ``stones``, has a proven win."""
        return float(row(stones)["score"]) >= PROVEN  # type: ignore[arg-type]

    ours = [i for i in range(3, len(line)) if (i % 2 == 0) == black]  # stones before each of A's moves
    first = None
    for i in reversed(ours):  # the earliest of the last run of A's moves proved lost
        if lost(line[:i + 1]):
            first = i
        elif first is not None:
            break
    base = {"learned_from": " ".join(line)}
    if first is None:
        return base | {"avoids": None}
    for i in reversed([i for i in ours if i <= first]):
        for move in list(row(line[:i])["ranked"])[:width]:  # type: ignore[call-overload]
            if move != line[i] and not lost(line[:i] + [move]):
                after = line[:i] + [move]
                child = row(after)
                answers = [row(after + [r]) for r in list(child["ranked"])[:replies]]  # type: ignore[call-overload]
                return row(line[:i]) | {"move": move, "score": -float(child["score"]),  # type: ignore[arg-type]
                                        "depth": int(child["depth"]) + 1,  # type: ignore[call-overload]
                                        "avoids": line[i], "follow": [child, *answers]} | base
    return base | {"avoids": None}


@dataclass(frozen=True)
class GomokuLearn:
    """Shard ``index``: :func:`learn_line` on ``lines[index]`` (the line's stones, space-separated,
    and whether side A had Black)."""

    rule: str
    seconds: float
    width: int
    replies: int
    lines: tuple[tuple[str, bool], ...]

    def shard_name(self, index: int) -> str:
        line, black = self.lines[index]
        return f"{self.rule}-learn-{self.seconds:g}s-w{self.width}-r{self.replies}-{_name(f'{line} {black}')}.shard"

    def make(self, index: int) -> bytes:
        _warm_gomoku()
        line, black = self.lines[index]
        return json.dumps(learn_line(self.rule, line.split(), black, self.seconds, self.width, self.replies)).encode()
