"""Opening decisions for the ``swap`` and ``swap2`` rules, from the engine's own evaluation.

:func:`decide_opening` answers one pending step of an opening
(:class:`tabletop.games.openings.OpeningPhase`) for a computer seat, with the
engine's score behind the answer:

- the opener's three stones (Black, White, Black): one of the family of
  :func:`opening_candidates` whose score is even within :data:`EVEN_MARGIN`;
- the second's colour after three stones (swap), or in swap2 a colour or
  ``"place"`` with two more stones (White's, then Black's) chosen to leave the
  position even, after which the opener chooses;
- the opener's colour after those five stones.

Scores are the engine's (:func:`tabletop.ai.gomoku.engine.GomokuEngine.analyse`
at a fixed depth and node count, in evaluation units) made relative to an *even
point*: the median score of reference openings of the match runner's family,
which equal engine levels split about evenly with either colour
(benchmarks/HISTORY.md, level table).  The raw score of a quiet opening is far
from 0 (for White to move at three stones about +400 in freestyle and -1,100 in renju, at five
+260 and -1,800): the even-depth search ends each line on the opponent's move, which biases the
side to move's score.  Measuring against the even point cancels that bias, which also keeps the
decisions right when the search changes.  :func:`opening_score` gives that
relative score for the side to move.

:func:`choose_swap_opening`, :func:`choose_swap_action` and
:func:`choose_swap2_action` are the same decisions for callers without an
opening phase (the Gomocup ``SWAP2BOARD`` command).

- :func:`balanced_openings`: short starting positions for engine matches
  (``tabletop match gomoku``), drawn at random near the centre for a seed and
  kept when a fixed-depth search, with no clock, scores them about even
  (:func:`opening_balance`), so the same seed always gives the same set.

This module decides; it does not apply anything: :mod:`tabletop.games.openings`
and :class:`tabletop.match.Match` own the opening's state.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass, field
from functools import lru_cache

from tabletop.ai.base import Analysis, Limit
from tabletop.ai.gomoku.book import smallest_image
from tabletop.ai.gomoku.engine import EngineSettings, GomokuEngine
from tabletop.ai.gomoku.position import Position, rule_of
from tabletop.ai.gomoku.search import Searcher
from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, BaseBoard, IllegalMoveError, Move
from tabletop.games.openings import OpeningPhase

__all__ = [
    "BALANCE_DEPTH", "BALANCE_NODES", "BLACK_RING", "EVEN_MARGIN", "OPENING_DEPTH",
    "OPENING_NODES", "WHITE_RADIUS", "OpeningDecision", "SwapDecision", "balance_window", "balanced_openings", "black_ring",
    "choose_swap2_action", "choose_swap_action", "choose_swap_opening", "decide_opening", "even_point",
    "opening_balance", "opening_candidates", "opening_score", "reference_openings",
]

# The search behind every decision: the engine's own analysis at a fixed depth and node count, so a
# decision does not depend on the machine's load (the seconds given are only a ceiling per search).
OPENING_DEPTH = 4
OPENING_NODES = 20_000
OPENING_SETTINGS = EngineSettings(seconds=2.0, max_depth=OPENING_DEPTH, width=10, vcf_nodes=5_000, vct_nodes=0,
                                  safety_nodes=0)
# Within this many evaluation units of the even point an opening counts as even (200 is 0.13 of a
# unit of log-odds): the middle half of the reference openings, which equal levels split about
# evenly, lie within about +-200 of it, the rest within +-900.
EVEN_MARGIN = 200
REFERENCES = 8  # reference openings behind the even point (each costs one to three searches, once a process)
PLACE_TRIES = 3  # swap2's extra stones: White's best few moves, each with Black's best few replies


@dataclass(frozen=True)
class OpeningDecision:
    """A seat's answer to one opening step.

    ``choice`` is ``"black"``, ``"white"``, ``"place"`` or ``None`` (stones
    only); ``stones`` the stones it puts down, in order; ``score`` the engine's
    score of the outcome for the deciding seat, relative to the even point
    (evaluation units, 0 = even); ``options`` the score of each option it weighed."""

    choice: str | None
    stones: tuple[Move, ...] = ()
    score: int = 0
    options: dict[str, int] = field(default_factory=dict)


SwapDecision = OpeningDecision  # the name the Gomocup protocol knows


def _analysis(board: BaseBoard, seconds: float) -> Analysis:
    """The decision search's analysis of ``board`` (best moves first, scores for the side to move)."""
    limit = Limit(seconds=seconds, depth=OPENING_DEPTH, nodes=OPENING_NODES)
    return GomokuEngine(OPENING_SETTINGS, name="opening").analyse(board, limit)


def _raw(board: BaseBoard, seconds: float) -> tuple[int, list[Move]]:
    """The side to move's raw score of ``board`` and its best moves, best first."""
    analysis = _analysis(board, seconds)
    moves = [s.move for s in analysis.scores]
    return (int(analysis.scores[0].score) if analysis.scores else 0), moves


def _variant_key(board: BaseBoard) -> tuple[tuple[str, object], ...]:
    return tuple(sorted(board.variant().items()))


def _stones(board: BaseBoard) -> int:
    return sum(1 for c, r in board.squares() if board.piece_at(c, r) is not None)


@lru_cache(maxsize=8)
def _references(variant: tuple[tuple[str, object], ...], seconds: float) -> tuple[tuple[tuple[Move, ...], int, Move | None], ...]:
    """The reference openings of a board variant: (stones, raw score for White to move, White's best move)."""
    empty = new_board("gomoku", dict(variant))
    lines = opening_candidates(empty)
    random.Random(0).shuffle(lines)  # a fixed sample of the family, spread over its shapes
    out = []
    for line in lines[:REFERENCES]:
        b = empty.copy()
        for m in line:
            b.push(m)
        raw, moves = _raw(b, seconds)
        out.append((tuple(line), raw, moves[0] if moves else None))
    return tuple(out)


@lru_cache(maxsize=8)
def _even_five(variant: tuple[tuple[str, object], ...], seconds: float) -> int:
    """The even point at five stones: the reference openings with the engine's best White stone and
    Black's best reply added, scored for White to move (best play is taken to keep an even opening even)."""
    empty = new_board("gomoku", dict(variant))
    scores = []
    for line, _, white in _references(variant, seconds):
        if white is None:
            continue
        b = empty.copy()
        for m in (*line, white):
            b.push(m)
        _, replies = _raw(b, seconds)
        if not replies:
            continue
        b.push(replies[0])
        scores.append(_raw(b, seconds)[0])
    return int(statistics.median(scores)) if scores else 0


def reference_openings(board: BaseBoard, seconds: float = 1.0) -> list[tuple[list[Move], int]]:
    """The reference openings of ``board``'s variant with their scores relative to the even point (White to move)."""
    refs = _references(_variant_key(board), seconds)
    point = even_point(board, 3, seconds)
    return [(list(line), raw - point) for line, raw, _ in refs]


def even_point(board: BaseBoard, stones: int, seconds: float = 1.0) -> int:
    """The decision search's raw score, for White to move, of an even opening of ``stones`` stones
    (three, or five for anything past three) on ``board``'s variant; 0 where the board has no
    reference openings (too small for the family)."""
    variant = _variant_key(board)
    if stones > 3:
        return _even_five(variant, seconds)
    refs = _references(variant, seconds)
    return int(statistics.median(raw for _, raw, _ in refs)) if refs else 0


def opening_score(board: BaseBoard, seconds: float = 1.0) -> int:
    """The side to move's score of an opening position (White to move after three or five stones),
    relative to the even point: above 0 the side to move stands better than in an even opening."""
    return _raw(board, seconds)[0] - even_point(board, _stones(board), seconds)


def _colour(board: BaseBoard, seconds: float) -> OpeningDecision:
    """Take the colour the engine prefers: the side to move when its score is at least even."""
    value = opening_score(board, seconds)
    mover = board.turn.label
    other = WHITE.label if board.turn is BLACK else BLACK.label
    options = {mover: value, other: -value}
    choice = mover if value >= 0 else other
    return OpeningDecision(choice, (), options[choice], options)


def _opener_stones(board: BaseBoard, seed: int, seconds: float) -> OpeningDecision:
    """The opener's stones: a reference opening within the margin of even (a seeded pick among them,
    so games differ), else the most even one; on a board that already holds the first stones of
    some (a server restarted between them), the rest of one of those.  The score is the opener's
    outlook: the second takes the better colour, so at best ``-|score|``."""
    placed = list(board.move_stack)
    refs = []
    if len(placed) < 3 and _stones(board) == len(placed):
        refs = [(line, value) for line, value in reference_openings(board, seconds) if line[: len(placed)] == placed]
    if not refs:  # a board too small for the family, or other stones: the engine's best stone, one at a time
        return _best_stone(board, seconds)
    even = [r for r in refs if abs(r[1]) <= EVEN_MARGIN]
    line, value = random.Random(seed).choice(even) if even else min(refs, key=lambda r: abs(r[1]))
    return OpeningDecision(None, tuple(line[len(placed) :]), -abs(value))


def _best_stone(board: BaseBoard, seconds: float) -> OpeningDecision:
    """The engine's best stone for the side to move (an opening step with nothing better to go on)."""
    raw, moves = _raw(board, seconds)
    if not moves:
        raise IllegalMoveError("no stone can be placed: the game is over")
    return OpeningDecision(None, (moves[0],), raw)


def _evenest_black(board: BaseBoard, seconds: float, tries: int = PLACE_TRIES) -> tuple[Move, int] | None:
    """Black's stone among its best few that leaves the five-stone position most even (White to move)."""
    _, replies = _raw(board, seconds)
    best: tuple[Move, int] | None = None
    for reply in replies[:tries]:
        board.push(reply)
        try:
            value = opening_score(board, seconds)
        finally:
            board.pop()
        if best is None or abs(value) < abs(best[1]):
            best = (reply, value)
    return best


def _evenest_pair(board: BaseBoard, whites: list[Move], seconds: float) -> tuple[Move, Move, int] | None:
    """swap2's two extra stones: White's and Black's, among the best few of each, that leave the
    position most even; with its score for White to move."""
    best: tuple[Move, Move, int] | None = None
    for white in whites[:PLACE_TRIES]:
        board.push(white)
        try:
            found = _evenest_black(board, seconds)
        finally:
            board.pop()
        if found is not None and (best is None or abs(found[1]) < abs(best[2])):
            best = (white, found[0], found[1])
    return best


def _second_choice(board: BaseBoard, options: tuple[str, ...], seconds: float) -> OpeningDecision:
    """The second's answer after three stones.  A colour whose score is clearly better (beyond
    EVEN_MARGIN) is taken.  Within the margin the engine cannot tell the colours apart, and in swap2
    it places the two stones that leave the position most even, so the opener's choice hands it no
    more than an even game; a colour is taken when no such pair is found."""
    raw, whites = _raw(board, seconds)
    value = raw - even_point(board, 3, seconds)
    scores = {"white": value, "black": -value}
    if "place" in options and abs(value) <= EVEN_MARGIN:
        pair = _evenest_pair(board, whites, seconds)
        if pair is not None:
            white, black, five = pair
            scores["place"] = -abs(five)  # the opener then takes the better colour
            if abs(five) <= EVEN_MARGIN:
                return OpeningDecision("place", (white, black), scores["place"], scores)
    choice = "white" if value >= 0 else "black"
    return OpeningDecision(choice, (), scores[choice], scores)


def decide_opening(board: BaseBoard, phase: OpeningPhase, seed: int = 0, seconds: float = 1.0) -> OpeningDecision:
    """The answer of the seat that acts in ``phase`` on ``board`` (the position so far).

    ``seed`` varies the opener's pick among the even openings; ``seconds`` is a ceiling per search
    (the searches stop at a fixed depth and node count first).  Raises ``ValueError`` when the
    phase has nothing to decide."""
    if phase.done:
        raise ValueError("the opening is over: there is nothing to decide")
    if phase.stage == "choose":
        if phase.options == ("black", "white") and phase.actor is BLACK:  # swap2: the opener after five stones
            return _colour(board, seconds)
        return _second_choice(board, phase.options, seconds)
    if phase.actor is BLACK:  # the opener places the first three stones
        return _opener_stones(board, seed, seconds)
    # the second's two extra stones of swap2
    if phase.stones_left >= 2:
        _, whites = _raw(board, seconds)
        pair = _evenest_pair(board, whites, seconds)
        if pair is None:
            return _best_stone(board, seconds)
        return OpeningDecision(None, (pair[0], pair[1]), -abs(pair[2]))
    found = _evenest_black(board, seconds)
    if found is None:
        return _best_stone(board, seconds)
    return OpeningDecision(None, (found[0],), -abs(found[1]))


def choose_swap_opening(board: BaseBoard, seconds: float = 0.6, seed: int = 0) -> list[Move]:
    """Three opening stones for an empty ``board``: an even one of the family (see :func:`decide_opening`)."""
    return list(_opener_stones(board, seed, seconds).stones)


def choose_swap_action(board: BaseBoard, seconds: float = 0.5) -> str:
    """After the opener's stones: the colour the engine would rather play."""
    choice = _colour(board, seconds).choice
    assert choice is not None
    return choice


def choose_swap2_action(board: BaseBoard, seconds: float = 0.8) -> OpeningDecision:
    """The swap2 choice at three stones (``black``/``white``/``place`` two stones) or at five (a colour)."""
    if _stones(board) <= 3:
        return _second_choice(board, ("black", "white", "place"), seconds)
    return _colour(board, seconds)


# -- balanced openings for engine matches ----------------------------------------------------------
# Three stones, White to move: Black on the centre, White within WHITE_RADIUS of it, and Black's
# second stone on the ring at BLACK_RING[rule] from the centre (Chebyshev distance).  From two-stone
# openings, or three stones close together, the first player wins most freestyle games between the
# engine's levels 6 and 7 (Black won 38 of 40 in a 7 vs 6 match); a second black stone three points
# away helps Black less, and equal levels then win about as often with either colour.  Renju's
# fouls already hold Black back: with the ring at 3 White won 26 and Black 10 of 40 games between
# two level 5 players, with the ring at 2 Black 18 and White 14 (figures in benchmarks/HISTORY.md,
# level table).  Each candidate is then scored by a fixed-depth search with a
# node cap and no deadline (:func:`opening_balance`, for White, the side to move), and the ones
# kept lie in the middle half of the family's scores (:func:`balance_window`, between the
# quartiles): outliers that the search thinks clearly better for one side are dropped.  The
# window comes from the family itself, so it follows the evaluation's scale when that changes.
WHITE_RADIUS = 2
BLACK_RING: dict[str, int] = {"freestyle": 3, "standard": 3, "renju": 2}
BALANCE_DEPTH = 4
BALANCE_NODES = 20_000


def opening_balance(board: BaseBoard) -> int:
    """The side to move's score of ``board`` by a fixed-depth, node-capped search (deterministic)."""
    pos = Position.from_board(board)
    return Searcher(pos, width=10, max_nodes=BALANCE_NODES).search(max_depth=BALANCE_DEPTH).score


def _symmetry_key(board: BaseBoard, stones: list[Move]) -> tuple[tuple[int, int, int], ...]:
    """The smallest image of the stones under the board's symmetries (colour by move parity)."""
    return smallest_image([(i % 2, m.col, m.row) for i, m in enumerate(stones)], board.width, board.height)[0]


def black_ring(board: BaseBoard) -> int:
    """How far from the centre Black's second opening stone goes under ``board``'s rule."""
    return BLACK_RING.get(rule_of(board), 3)


def opening_candidates(board: BaseBoard, ring: int | None = None) -> list[list[Move]]:
    """Every opening of the family on ``board`` that the rules allow, one per symmetry class, in a
    fixed order; ``ring`` puts Black's second stone on another ring than the rule's own."""
    cx, cy = board.width // 2, board.height // 2
    centre = board.move_at(cx, cy)
    out: list[list[Move]] = []
    seen: set[tuple[tuple[int, int, int], ...]] = set()
    ring = black_ring(board) if ring is None else ring
    span = range(-ring, ring + 1)
    for dc, dr in ((c, r) for r in range(-WHITE_RADIUS, WHITE_RADIUS + 1) for c in range(-WHITE_RADIUS, WHITE_RADIUS + 1)):
        if (dc, dr) == (0, 0) or not board.on_board(cx + dc, cy + dr):
            continue
        white = board.move_at(cx + dc, cy + dr)
        for ec, er in ((c, r) for r in span for c in span):
            if max(abs(ec), abs(er)) != ring or not board.on_board(cx + ec, cy + er):
                continue
            line = [centre, white, board.move_at(cx + ec, cy + er)]
            key = _symmetry_key(board, line)
            if key in seen:
                continue
            b = board.copy()
            try:
                for m in line:
                    b.push(m)
            except IllegalMoveError:
                continue
            seen.add(key)
            out.append(line)
    return out


@lru_cache(maxsize=8)
def _family_balances(variant: tuple[tuple[str, object], ...]) -> tuple[int, ...]:
    """:func:`opening_balance` of each of :func:`opening_candidates` of a variant's empty board, in
    their order (about a second, once a process)."""
    empty = new_board("gomoku", dict(variant))
    out = []
    for line in opening_candidates(empty):
        b = empty.copy()
        for m in line:
            b.push(m)
        out.append(opening_balance(b))
    return tuple(out)


def balance_window(board: BaseBoard) -> tuple[int, int]:
    """The lower and upper quartile of the balances of the family's openings on ``board``'s variant."""
    scores = sorted(_family_balances(_variant_key(board)))
    if not scores:
        return 0, -1
    return scores[(len(scores) - 1) // 4], scores[(3 * (len(scores) - 1) + 3) // 4]


def balanced_openings(board: BaseBoard, count: int, seed: int) -> list[list[Move]]:
    """Up to ``count`` distinct openings for an empty ``board``, the same for the same ``seed``:
    the family's candidates in a seeded random order, kept when :func:`opening_balance` lies
    in :func:`balance_window`."""
    lo, hi = balance_window(board)
    scored = list(zip(opening_candidates(board), _family_balances(_variant_key(board)), strict=True))
    random.Random(seed).shuffle(scored)
    return [line for line, score in scored if lo <= score <= hi][:count]
