"""What every player offers: ``choose`` a move, and where it can, ``analyse`` a position.

Generic players work on every game through the board protocol alone; the
per-game engines (``ai/reversi``, ``ai/gomoku``) may know a game's insides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from tabletop.games.core import BaseBoard, Move

__all__ = ["Analysis", "Limit", "MoveScore", "Player"]


@dataclass(frozen=True)
class Limit:
    """How long a search may run, as in python-chess: any of seconds, depth, nodes."""

    seconds: float | None = None
    depth: int | None = None
    nodes: int | None = None


@dataclass(frozen=True)
class MoveScore:
    """A move with its score from the mover's side.  ``exact`` marks a proven value
    (a solved endgame, a forced win); units are the game's own (disc difference in
    Reversi, +-1 win/loss elsewhere unless the engine says otherwise)."""

    move: Move
    score: float
    exact: bool = False
    book: bool = False  # the score comes from the engine's opening book, not a search

    def to_dict(self) -> dict[str, object]:
        return {"move": str(self.move), "score": self.score, "exact": self.exact, "book": self.book}


@dataclass
class Analysis:
    """The result of analysing a position: scores best first, the principal variation."""

    scores: list[MoveScore] = field(default_factory=list)
    pv: list[Move] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    forced_win: list[Move] | None = None

    @property
    def best(self) -> Move | None:
        return self.scores[0].move if self.scores else (self.pv[0] if self.pv else None)

    def to_dict(self) -> dict[str, object]:
        return {
            "scores": [s.to_dict() for s in self.scores],
            "pv": [str(m) for m in self.pv],
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "forced_win": None if self.forced_win is None else [str(m) for m in self.forced_win],
        }


@runtime_checkable
class Player(Protocol):
    """A computer player: ``choose(board, limit)`` returns a legal move and leaves
    ``board`` as it found it."""

    name: str

    def choose(self, board: BaseBoard, limit: Limit | None = None) -> Move: ...
