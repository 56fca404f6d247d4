"""Glicko-2 ratings: one :class:`Rating` per player and :class:`Pool`, updated after rated games.

The update is the one of Glickman's "Example of the Glicko-2 system" (steps 1-8, the Illinois
algorithm for the new volatility); each rated game is its own rating period, as on Lichess, so
:func:`rate_game` gives both players' new ratings from one result.  A rating starts at
1500 / RD 350 / volatility 0.06 and its RD never exceeds 350; while RD is above 110 the rating is
provisional and shows with a question mark (``"1500?"``).

A pool is what makes two ratings comparable: the game, its rule or board size, and the class of
its time control (:func:`pool_for`).  This module is pure arithmetic: no storage, no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT",
    "MAX_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "Pool",
    "Rating",
    "Result",
    "pool_for",
    "rate_game",
    "speed_of",
    "update",
]

SCALE = 173.7178  # Glicko-2's factor between the Glicko scale and its own (400 / ln 10)
TAU = 0.5  # the system constant: how fast volatility may change (the paper's example uses 0.5)
EPSILON = 0.000001  # convergence tolerance of the volatility iteration (the paper's value)
MAX_DEVIATION = 350.0  # an unrated player's RD, and the most any RD may grow to
PROVISIONAL_DEVIATION = 110.0  # above this RD a rating is shown as provisional

Speed = Literal["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "untimed"]


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: ``rating``, its deviation (RD) and ``volatility``."""

    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise ValueError(f"a rating must be a finite number, not {self.rating}")
        if not 0 < self.deviation <= MAX_DEVIATION:
            raise ValueError(f"a rating deviation must be above 0 and at most {MAX_DEVIATION:g}, not {self.deviation}")
        if not 0 < self.volatility < 1:
            raise ValueError(f"a volatility must be between 0 and 1, not {self.volatility}")

    @property
    def provisional(self) -> bool:
        """Too uncertain to be shown as settled: RD above 110."""
        return self.deviation > PROVISIONAL_DEVIATION

    def display(self) -> str:
        """The rating rounded, with ``?`` while provisional: ``"1500?"``, ``"1623"``."""
        return f"{round(self.rating)}{'?' if self.provisional else ''}"

    def __str__(self) -> str:
        return self.display()


DEFAULT = Rating()


@dataclass(frozen=True)
class Result:
    """One game of a rating period: the opponent's rating before it and the score (1, 0.5 or 0)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0, 0.5, 1):
            raise ValueError(f"a game's score is 1, 0.5 or 0, not {self.score}")


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility, the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def update(player: Rating, results: Sequence[Result], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results`` (steps 1-8 of the paper).

    A period without games only widens the deviation by the volatility (step 6 alone).

    >>> new = update(Rating(1500, 200), [Result(Rating(1400, 30), 1), Result(Rating(1550, 100), 0),
    ...                                  Result(Rating(1700, 300), 0)])
    >>> round(new.rating, 1), round(new.deviation, 1), round(new.volatility, 6)
    (1464.1, 151.5, 0.059996)
    """
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, _capped(SCALE * math.sqrt(phi * phi + sigma * sigma)), sigma)
    inverse_v = 0.0
    improvement = 0.0  # the sum of g(phi_j) (s_j - E) over the period's games
    for result in results:
        mu_j = (result.opponent.rating - 1500) / SCALE
        phi_j = result.opponent.deviation / SCALE
        g_j = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        inverse_v += g_j * g_j * expected * (1 - expected)
        improvement += g_j * (result.score - expected)
    v = 1 / inverse_v
    delta = v * improvement
    new_sigma = _volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(SCALE * new_mu + 1500, _capped(SCALE * new_phi), new_sigma)


def _capped(deviation: float) -> float:
    # an opponent of very uncertain rating teaches almost nothing, and step 6 alone always widens
    # RD: without the cap a long absence or such a game could leave a player less known than a new one
    return min(deviation, MAX_DEVIATION)


def rate_game(black: Rating, white: Rating, black_score: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players' ratings after one game that Black scored ``black_score`` in (1, 0.5 or 0)."""
    return (update(black, [Result(white, black_score)], tau),
            update(white, [Result(black, 1 - black_score)], tau))


# -- pools -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pool:
    """The ratings that compare with each other: one game, rule or board size, and speed.

    Its ``key`` names it in storage and URLs: ``reversi-8-blitz``, ``gomoku-renju-rapid``,
    ``gomoku-freestyle-19-blitz``, ``tictactoe-untimed``.
    """

    game: str
    variant: str  # the rule or board size that changes the game ("8", "renju", "freestyle-19"); "" if none
    speed: Speed

    @property
    def key(self) -> str:
        return "-".join(part for part in (self.game, self.variant, self.speed) if part)

    def __str__(self) -> str:
        return self.key

    @classmethod
    def from_key(cls, key: str) -> Pool:
        """The pool a key names; ``ValueError`` for a key no pool has."""
        game, _, rest = key.partition("-")
        variant, _, speed = rest.rpartition("-")
        if game not in GAMES or speed not in SPEEDS:
            raise ValueError(f"there is no rating pool {key!r}")
        pool = cls(game, variant, speed)
        if pool.key != key:
            raise ValueError(f"there is no rating pool {key!r}")
        return pool


GAMES = ("reversi", "gomoku", "tictactoe")
SPEEDS: tuple[Speed, ...] = ("ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "untimed")
# the upper bounds of each class on a game's estimated length, initial + 40 increments (Lichess's)
_SPEED_LIMITS: tuple[tuple[float, Speed], ...] = (
    (29, "ultrabullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid"))


def speed_of(initial: float | None, increment: float = 0.0, days: float | None = None) -> Speed:
    """The time-control class of a clock: ``initial`` seconds plus ``increment`` per move, ``days`` per
    move for correspondence, neither for an untimed game.

    >>> speed_of(180, 2), speed_of(600, 0), speed_of(None), speed_of(None, days=3)
    ('blitz', 'rapid', 'untimed', 'correspondence')
    """
    if days is not None:
        return "correspondence"
    if initial is None:
        return "untimed"
    estimate = initial + 40 * increment
    for limit, speed in _SPEED_LIMITS:
        if estimate <= limit:
            return speed
    return "classical"


_GOMOKU_SIZE = 15


def pool_for(game: str, options: Mapping[str, object], clock: Mapping[str, float | None] | None) -> Pool:
    """The pool of a game with ``options`` (``size``, ``rule``) and ``clock`` (``initial``,
    ``increment``, ``days``; ``None`` for no clock).

    >>> pool_for("reversi", {}, {"initial": 300, "increment": 3}).key
    'reversi-8-blitz'
    >>> pool_for("gomoku", {"rule": "renju"}, None).key
    'gomoku-renju-untimed'
    """
    if game == "reversi":
        variant = str(options.get("size", 8))
    elif game == "gomoku":
        variant = str(options.get("rule", "freestyle"))
        size = options.get("size", _GOMOKU_SIZE)
        if size != _GOMOKU_SIZE:
            variant += f"-{size}"
    elif game == "tictactoe":
        variant = ""
    else:
        raise ValueError(f"no rating pool for the game {game!r}: choose one of {', '.join(GAMES)}")
    if clock is None:
        speed = speed_of(None)
    else:
        speed = speed_of(clock.get("initial"), clock.get("increment") or 0.0, clock.get("days"))
    return Pool(game, variant, speed)
