"""Matches between two players through :class:`~tabletop.match.Match`: openings, Elo, SPRT, failures.

A match is a list of games in pairs: both games of a pair start from the same opening, A playing
Black in the first and White in the second, so neither player profits from a lucky start.  Gomoku
and Renju games start from three stones that the engine scores about even
(:func:`tabletop.ai.gomoku.openings.balanced_openings`): from two stones near the centre the first
player won nearly every game between the upper levels, whatever their strength.  Reversi games start
from distinct positions four plies in; Tic-tac-toe from the empty board.  Gomoku can also start from
openings outside that family (:data:`OPENING_KINDS`): the 26 standard renju openings on 15x15, or three
stones (Black, White, Black) placed at random in the middle half of the board.

Each game is a :class:`Match` between two seats.  A player that fails loses that game, and the
failure is kept with its kind and reason (:class:`Failure`: ``crash``, ``timeout`` or ``bad answer``),
so a crashed opponent is never read as a win.  Results are from A's side: score, Elo with a 95%
interval, and with :class:`Sprt` a sequential test on game pairs that stops as soon as the evidence
is strong enough.

This module plays and counts; it never prints (``tabletop match`` in :mod:`tabletop.cli.match` does).
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from tabletop.ai.base import Limit, Player
from tabletop.games import GAMES, new_board
from tabletop.games.core import BLACK, WHITE, BaseBoard, Color
from tabletop.match import Match, MatchError
from tabletop.players import player

__all__ = [
    "Failure", "GameResult", "GameSpec", "MatchReport", "Sprt", "SprtResult", "check_players", "elo",
    "GameLog", "GameLogError", "logistic_elo", "openings", "pair_elo", "pentanomial", "play_match", "play_one",
    "schedule",
]

FAILURE_KINDS = ("crash", "timeout", "bad answer")


@dataclass(frozen=True)
class GameSpec:
    """One game to play: the players' SPECs, A's colour and the opening moves."""

    game: str
    options: dict[str, Any]
    a: str
    b: str
    a_is_black: bool
    opening: tuple[str, ...]
    think: float | None
    number: int = 0  # 0-based; games 2k and 2k+1 are pair k

    @property
    def pair(self) -> int:
        return self.number // 2


@dataclass(frozen=True)
class Failure:
    """A player that crashed, ran out of time or answered badly, and so lost the game."""

    player: str  # "A" or "B"
    spec: str
    color: str  # "black" or "white"
    kind: str  # one of FAILURE_KINDS
    reason: str  # what went wrong, in the player's or the rules' words

    def describe(self) -> str:
        return f"{self.player} ({self.spec}) as {self.color}: {self.kind}: {self.reason}"


@dataclass(frozen=True)
class GameResult:
    """How one game ended, from A's side; the times are the seconds spent in ``choose``."""

    number: int
    a_score: float  # 1 win, 0.5 draw, 0 loss
    reason: str  # the outcome's reason ("disc count", "five", ...) or the failure's description
    plies: int
    black_score: float = 0.5  # the same from Black's side: how the openings treat the colours
    failure: Failure | None = None
    a_is_black: bool = True
    opening: tuple[str, ...] = ()
    seconds: dict[str, float] = field(default_factory=lambda: {"A": 0.0, "B": 0.0})
    moves: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    line: tuple[str, ...] = ()  # every move of the game in order, the opening's first: a lost game can be replayed


def check_players(game: str, specs: dict[str, str]) -> None:
    """Raise :class:`~tabletop.players.SpecError` (naming the flag) for a SPEC that cannot be read,
    or ``ValueError`` for an unknown game, before any game starts."""
    from tabletop.players import SpecError

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    for name, spec in specs.items():
        try:
            player(spec, game=game)
        except SpecError as exc:
            raise SpecError(f"{name}: {exc}") from None


def failure_kind(exc: BaseException) -> str:
    """``timeout`` for an engine out of time, ``bad answer`` for a move it may not play, else ``crash``.

    The external engines' controllers raise one error type for every fault and say which in the
    message ("did not answer ... in time", "sent an illegal move"), so the message is read here.
    """
    kind = getattr(exc, "kind", None)
    if kind in FAILURE_KINDS:
        return str(kind)
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, MatchError):
        return "bad answer"
    text = str(exc).lower()
    if "in time" in text or "timed out" in text or "timeout" in text:
        return "timeout"
    if "illegal" in text or "malformed" in text:
        return "bad answer"
    return "crash"


def play_one(spec: GameSpec) -> GameResult:
    """Play one game to the end through a :class:`Match`; a player that fails loses it."""
    board = new_board(spec.game, spec.options)
    for mv in spec.opening:
        board.push(mv)
    a_color = BLACK if spec.a_is_black else WHITE
    match = Match(board, {a_color: spec.a, a_color.other: spec.b}, local=False)
    names = {a_color: "A", a_color.other: "B"}
    limit = Limit(seconds=spec.think) if spec.think is not None else None
    seconds = {"A": 0.0, "B": 0.0}
    moves = {"A": 0, "B": 0}
    failure: Failure | None = None
    players: dict[Color, Player] = {}
    try:
        match.start()
        while not match.is_over():
            color = match.board.turn
            name = names[color]
            try:
                players[color] = match.player_for(color)  # made once per seat by the Match
                started = time.perf_counter()
                move = players[color].choose(match.board.copy(), limit)
                seconds[name] += time.perf_counter() - started
                moves[name] += 1
                match.play(color, move)
            except Exception as exc:  # any fault of a player loses its game; the reason is kept
                failure = Failure(name, spec.a if name == "A" else spec.b, color.label, failure_kind(exc), str(exc))
                match.resign(color)
    finally:
        for p in players.values():  # an external engine's process ends with its game
            close = getattr(p, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):  # the game is decided; a failed shutdown changes nothing
                    close()
    return _result(spec, match, a_color, failure, seconds, moves)


def _result(spec: GameSpec, match: Match, a_color: Color, failure: Failure | None, seconds: dict[str, float],
            moves: dict[str, int]) -> GameResult:
    outcome = match.outcome()
    assert outcome is not None
    if outcome.winner is None:
        a_score, black_score = 0.5, 0.5
    else:
        a_score = 1.0 if outcome.winner is a_color else 0.0
        black_score = 1.0 if outcome.winner is BLACK else 0.0
    reason = failure.describe() if failure is not None else outcome.reason
    return GameResult(spec.number, a_score, reason, len(match.board.move_stack), black_score, failure,
                      spec.a_is_black, spec.opening, seconds, moves, tuple(str(m) for m in match.board.move_stack))


OPENING_KINDS = {
    "balanced": "the engine's balanced three-stone starts (Gomoku), positions four plies in (Reversi)",
    "renju26": "the 26 standard renju openings in their order, from the seed's place on (Gomoku 15x15)",
    "random3": "three stones, Black, White, Black, at random points of the middle half of the board (Gomoku)",
}


def openings(game: str, board: BaseBoard, count: int, seed: int, kind: str = "balanced") -> list[tuple[str, ...]]:
    """Distinct short openings for a fair match: Reversi's positions after 4 plies,
    Gomoku's balanced three-stone starts (two-stone starts near the centre where the
    board is too small for them); none for Tic-tac-toe.  ``kind`` (:data:`OPENING_KINDS`) picks
    Gomoku's other families; a ``ValueError`` names a kind the game or board cannot have."""
    if kind not in OPENING_KINDS:
        raise ValueError(f"unknown openings {kind!r} (known: {', '.join(OPENING_KINDS)})")
    if kind != "balanced":
        if game != "gomoku":
            raise ValueError(f"openings {kind!r} are for gomoku, not {game}")
        return renju_openings(board, count, seed) if kind == "renju26" else random_openings(board, count, seed)
    rng = random.Random(seed)
    if game == "tictactoe":
        return [()]
    if game == "gomoku":
        from tabletop.ai.gomoku.openings import balanced_openings

        book = [tuple(str(m) for m in line) for line in balanced_openings(board, count, seed)]
        if book:
            return book
    seen: set[str] = set()
    out: list[tuple[str, ...]] = []
    plies = 4 if game == "reversi" else 2
    tries = 0
    while len(out) < count and tries < count * 50:
        tries += 1
        b = board.copy()
        line: list[str] = []
        for _ in range(plies):
            moves = b.legal_moves
            if game != "reversi":
                cx, cy = b.width // 2, b.height // 2
                moves = [m for m in moves if abs(m.col - cx) <= 2 and abs(m.row - cy) <= 2]
            if not moves:
                break
            m = rng.choice(moves)
            b.push(m)
            line.append(str(m))
        key = b.to_text()
        if key not in seen:
            seen.add(key)
            out.append(tuple(line))
    return out or [()]


def renju_openings(board: BaseBoard, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` of the 26 standard renju openings (the three stones of each), in the order of
    :func:`tabletop.games.opening_names.renju_openings` from the ``seed``-th on and round again: a
    match of 52 games plays each once with each colour.  Only on 15x15, where they are defined."""
    from tabletop.games.opening_names import renju_openings as named

    if (board.width, board.height) != (15, 15):
        raise ValueError(f"the standard renju openings are for 15x15, not {board.width}x{board.height}")
    lines = [moves for _, _, moves in named()]
    start = seed % len(lines)
    return [lines[(start + i) % len(lines)] for i in range(max(1, count))]


def random_openings(board: BaseBoard, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` distinct openings of three stones, Black, White, Black, each at a random empty
    point of the middle half of ``board`` (a quarter of each side left out on every edge: 4..10 of
    0..14 on 15x15), none of them a foul; seeded."""
    rng = random.Random(seed)
    lo_col, lo_row = round(board.width / 4), round(board.height / 4)
    cols = range(lo_col, board.width - lo_col)
    rows = range(lo_row, board.height - lo_row)
    out: list[tuple[str, ...]] = []
    seen: set[str] = set()
    tries = 0
    while len(out) < max(1, count) and tries < 100 * max(1, count):
        tries += 1
        b = board.copy()
        line: list[str] = []
        for _ in range(3):
            moves = [m for m in b.legal_moves if m.col in cols and m.row in rows]
            m = rng.choice(moves)
            b.push(m)
            line.append(str(m))
        if b.to_text() not in seen:
            seen.add(b.to_text())
            out.append(tuple(line))
    return out


def schedule(game: str, options: dict[str, Any], a: str, b: str, games: int, book: list[tuple[str, ...]],
             think: float | None) -> list[GameSpec]:
    """The games in order: pairs from one opening, A Black in the first game of a pair and White in the second."""
    return [GameSpec(game, options, a, b, i % 2 == 0, book[(i // 2) % len(book)], think, i) for i in range(games)]


# -- Elo -------------------------------------------------------------------------------------------------


def logistic_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (clamped to 0.001..0.999)."""
    p = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / p - 1.0)


def logistic_score(elo_difference: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10 ** (-elo / 400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo_difference / 400.0))


def elo(score: float, games: int, per_game: list[float]) -> tuple[float, float, float]:
    """Elo difference for a score fraction, with a 95% interval from the spread of the games' results."""
    p = score / games
    var = sum((x - p) ** 2 for x in per_game) / games
    se = math.sqrt(var / games)
    return logistic_elo(p), logistic_elo(p - 1.96 * se), logistic_elo(p + 1.96 * se)


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per game: LL, LD, WL or DD, WD, WW


def pentanomial(pair_points: list[float]) -> list[int]:
    """Counts of pairs by A's points in the pair (0, 0.5, 1, 1.5, 2): ``[LL, LD, WL+DD, WD, WW]``."""
    counts = [0] * 5
    for points in pair_points:
        counts[round(points * 2)] += 1
    return counts


def pair_elo(counts: list[int]) -> tuple[float, float, float]:
    """Elo and its 95% interval from pentanomial counts: the pairs, not the games, are the samples,
    so the interval is not narrowed by the correlation between a pair's two games."""
    n = sum(counts)
    mean = sum(c * a for c, a in zip(counts, PAIR_SCORES)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts, PAIR_SCORES)) / n
    se = math.sqrt(var / n)
    return logistic_elo(mean), logistic_elo(mean - 1.96 * se), logistic_elo(mean + 1.96 * se)


# -- SPRT ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float
    verdict: str  # "H1 accepted", "H0 accepted" or "inconclusive"

    @property
    def done(self) -> bool:
        return self.verdict != "inconclusive"


@dataclass(frozen=True)
class Sprt:
    """The sequential probability ratio test on game pairs, pentanomial model, logistic Elo.

    H0: A's Elo over B is ``elo0``; H1: it is ``elo1`` (logistic Elo: the Elo of the expected
    score, ``1 / (1 + 10 ** (-elo / 400))``).  After each pair the log-likelihood ratio is compared
    with ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``: below the first H0 is accepted,
    above the second H1.

    The LLR is the generalised one that fastchess computes: for each hypothesis the pentanomial
    distribution nearest the observed frequencies (maximum likelihood) whose mean score is that
    hypothesis' score, ``p_i = f_i / (1 + theta * (a_i - s))`` with ``theta`` solving
    ``sum f_i (a_i - s) / (1 + theta (a_i - s)) = 0`` (M. Van den Bergh, "Comments on Normalized Elo",
    proposition 1.1); ``LLR = N * sum f_i log(p1_i / p0_i)``.  An empty class counts as 0.001 pairs
    so that the logarithms stay finite.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT: ELO0 ({self.elo0:g}) must be below ELO1 ({self.elo1:g})")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta must lie between 0 and 1 and sum to less than 1")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: list[int]) -> float:
        """The log-likelihood ratio of H1 against H0 for pentanomial ``counts`` (see :func:`pentanomial`)."""
        if sum(counts) == 0:
            return 0.0
        regular = [float(c) if c > 0 else 1e-3 for c in counts]
        total = sum(regular)
        freq = [c / total for c in regular]
        p0 = _nearest_with_mean(freq, logistic_score(self.elo0))
        p1 = _nearest_with_mean(freq, logistic_score(self.elo1))
        return total * sum(f * (math.log(b) - math.log(a)) for f, a, b in zip(freq, p0, p1))

    def test(self, counts: list[int]) -> SprtResult:
        value = self.llr(counts)
        if value >= self.upper:
            verdict = "H1 accepted"
        elif value <= self.lower:
            verdict = "H0 accepted"
        else:
            verdict = "inconclusive"
        return SprtResult(value, self.lower, self.upper, verdict)


def _nearest_with_mean(freq: list[float], s: float) -> list[float]:
    """The distribution on PAIR_SCORES with mean ``s`` that maximises the likelihood of ``freq``."""
    d = [a - s for a in PAIR_SCORES]

    def slope(theta: float) -> float:  # strictly decreasing in theta on the open interval below
        return sum(f * x / (1.0 + theta * x) for f, x in zip(freq, d))

    lo, hi = -1.0 / max(d), -1.0 / min(d)  # where 1 + theta * d_i stays positive for every i
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15 * max(1.0, abs(mid)):
            break
    theta = 0.5 * (lo + hi)
    p = [f / (1.0 + theta * x) for f, x in zip(freq, d)]
    norm = sum(p)
    return [x / norm for x in p]


# -- the game log: a match that survives an interruption ----------------------------------------------


class GameLogError(ValueError):
    """A game log that cannot be read, or that belongs to another match."""


def _spec_key(spec: GameSpec) -> dict[str, Any]:
    return {"game": spec.game, "options": spec.options, "a": spec.a, "b": spec.b, "a_is_black": spec.a_is_black,
            "opening": list(spec.opening), "think": spec.think, "number": spec.number}


def _result_from(data: dict[str, Any]) -> GameResult:
    failure = Failure(**data["failure"]) if data.get("failure") else None
    return GameResult(int(data["number"]), float(data["a_score"]), str(data["reason"]), int(data["plies"]),
                      float(data["black_score"]), failure, bool(data["a_is_black"]), tuple(data["opening"]),
                      {k: float(v) for k, v in data["seconds"].items()}, {k: int(v) for k, v in data["moves"].items()},
                      tuple(str(m) for m in data.get("line", ())))


class GameLog:
    """A JSON-lines file with one line per finished game (the game's spec and its result), written as each
    game ends and flushed to disk, so a match stopped at any point restarts where it was: the games in the
    log are not played again.  A log that names other players, openings or time belongs to another match
    and is refused; a last line cut short by a kill is dropped."""

    def __init__(self, path: str) -> None:
        self.path = path

    def finished(self, specs: list[GameSpec]) -> list[GameResult]:
        """The results already in the log for ``specs`` (empty if there is no log yet)."""
        if not os.path.exists(self.path):
            return []
        by_number = {spec.number: spec for spec in specs}
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        complete = lines[:-1]  # a line without its newline was cut short while being written
        out: dict[int, GameResult] = {}
        for n, line in enumerate(complete, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                number = int(data["spec"]["number"])
                result = _result_from(data["result"])
            except (ValueError, KeyError, TypeError) as exc:
                raise GameLogError(f"{self.path} line {n}: not a game of a match log ({exc})") from None
            spec = by_number.get(number)
            if spec is None or data["spec"] != json.loads(json.dumps(_spec_key(spec))):
                raise GameLogError(f"{self.path} line {n}: game {number + 1} of another match "
                                   f"(other players, openings, time or number of games); use a new log file")
            out[number] = result
        if lines[-1].strip():
            self._truncate(len("\n".join(complete)) + (1 if complete else 0))
        return [out[k] for k in sorted(out)]

    def _truncate(self, size: int) -> None:
        with open(self.path, "r+b") as f:
            f.truncate(size)

    def append(self, spec: GameSpec, result: GameResult) -> None:
        """Write one finished game and flush it to disk."""
        failure = None
        if result.failure is not None:
            f = result.failure
            failure = {"player": f.player, "spec": f.spec, "color": f.color, "kind": f.kind, "reason": f.reason}
        data = {"spec": _spec_key(spec), "result": {
            "number": result.number, "a_score": result.a_score, "reason": result.reason, "plies": result.plies,
            "black_score": result.black_score, "failure": failure, "a_is_black": result.a_is_black,
            "opening": list(result.opening), "seconds": result.seconds, "moves": result.moves,
            "line": list(result.line)}}
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(data) + "\n")
            out.flush()
            os.fsync(out.fileno())


# -- the match -------------------------------------------------------------------------------------------


@dataclass
class MatchReport:
    """The games played (by number) and, for a sequential test, its result."""

    results: list[GameResult]
    sprt: Sprt | None = None
    sprt_result: SprtResult | None = None

    def pair_points(self) -> list[float]:
        """A's points in each pair whose two games were both played."""
        by_pair: dict[int, list[float]] = {}
        for r in self.results:
            by_pair.setdefault(r.number // 2, []).append(r.a_score)
        return [sum(scores) for _, scores in sorted(by_pair.items()) if len(scores) == 2]

    def summary(self) -> dict[str, Any]:
        """The JSON object of ``tabletop match --json`` (docs/DESIGN.md names the first eight keys)."""
        results = self.results
        n = len(results)
        wins = sum(1 for r in results if r.a_score == 1.0)
        draws = sum(1 for r in results if r.a_score == 0.5)
        score = wins + 0.5 * draws
        e, lo, hi = elo(score, n, [r.a_score for r in results])
        out: dict[str, Any] = {
            "games": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "score": round(score / n, 4), "elo": round(e, 1), "elo_low": round(lo, 1), "elo_high": round(hi, 1),
            "black_wins": sum(1 for r in results if r.black_score == 1.0),
            "white_wins": sum(1 for r in results if r.black_score == 0.0),
            "failures": [{"game": r.number + 1, "player": r.failure.player, "spec": r.failure.spec,
                          "color": r.failure.color, "kind": r.failure.kind, "reason": r.failure.reason}
                         for r in results if r.failure is not None],
        }
        for side in ("A", "B"):
            count = sum(r.moves[side] for r in results)
            out[f"{side.lower()}_seconds_per_move"] = round(sum(r.seconds[side] for r in results) / max(1, count), 6)
        if self.sprt is not None:
            out["sprt"] = self._sprt_summary()
        return out

    def _sprt_summary(self) -> dict[str, Any]:
        assert self.sprt is not None
        counts = pentanomial(self.pair_points())
        result = self.sprt_result or self.sprt.test(counts)
        e, lo, hi = pair_elo(counts) if sum(counts) else (0.0, -math.inf, math.inf)
        return {
            "elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha, "beta": self.sprt.beta,
            "model": "pentanomial, logistic Elo", "pairs": sum(counts), "pentanomial": counts,
            "llr": round(result.llr, 3), "lower": round(result.lower, 3), "upper": round(result.upper, 3),
            "verdict": result.verdict, "elo": round(e, 1), "elo_low": round(lo, 1), "elo_high": round(hi, 1),
        }


def play_match(specs: list[GameSpec], jobs: int = 1, sprt: Sprt | None = None,
               on_game: Callable[[GameResult], None] | None = None, log: GameLog | None = None) -> MatchReport:
    """Play ``specs`` (``jobs`` games at a time in worker processes) and report.

    With ``sprt`` the games are played in pairs until the test accepts a hypothesis or ``specs`` run
    out; games still being played when it decides are abandoned, and only whole pairs are kept.
    ``on_game`` hears of each finished game (a progress bar).  With ``log`` each finished game is
    written down as it ends and the games already there are taken from it, not played again.
    """
    results: list[GameResult] = []
    verdict: SprtResult | None = None
    done_pairs: dict[int, int] = {}
    earlier = log.finished(specs) if log is not None else []
    by_number = {spec.number: spec for spec in specs}
    played = {r.number for r in earlier}
    todo = [spec for spec in specs if spec.number not in played]

    def finished_games() -> Generator[GameResult, None, None]:
        yield from earlier
        with contextlib.closing(_results(todo, jobs)) as fresh:
            for result in fresh:
                if log is not None:
                    log.append(by_number[result.number], result)
                yield result

    with contextlib.closing(finished_games()) as finished:
        for result in finished:
            results.append(result)
            if on_game is not None:
                on_game(result)
            if sprt is None:
                continue
            done_pairs[result.number // 2] = done_pairs.get(result.number // 2, 0) + 1
            if done_pairs[result.number // 2] == 2:
                verdict = sprt.test(pentanomial(MatchReport(results).pair_points()))
                if verdict.done:
                    break
    if sprt is not None:
        whole = {pair for pair, count in done_pairs.items() if count == 2}
        results = [r for r in results if r.number // 2 in whole]
    results.sort(key=lambda r: r.number)
    return MatchReport(results, sprt, verdict)


def _results(specs: list[GameSpec], jobs: int) -> Generator[GameResult, None, None]:
    """The games' results in the order they finish; leaving the loop early abandons the rest."""
    if jobs == 1:
        for spec in specs:
            yield play_one(spec)
        return
    pool = multiprocessing.Pool(processes=jobs)
    try:
        yield from pool.imap_unordered(play_one, specs)
        pool.close()
    finally:
        pool.terminate()  # stops games still running when a sequential test has decided
        pool.join()
