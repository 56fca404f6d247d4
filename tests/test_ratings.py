"""Glicko-2 (tabletop.ratings): Glickman's worked example, provisional display, pools, properties."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop import ratings
from tabletop.ratings import (
    DEFAULT,
    MAX_DEVIATION,
    Pool,
    Rating,
    Result,
    pool_for,
    rate_game,
    speed_of,
    update,
)

SCALE = 173.7178

# "Example of the Glicko-2 system" (Glickman, 2013): a 1500/200/0.06 player against three opponents
PAPER_PLAYER = Rating(1500, 200, 0.06)
PAPER_GAMES = [Result(Rating(1400, 30), 1), Result(Rating(1550, 100), 0), Result(Rating(1700, 300), 0)]


def test_the_papers_worked_example_on_the_glicko2_scale() -> None:
    # the paper prints mu' = -0.2069, phi' = 0.8722 and sigma' = 0.05999 (its digits, cut not rounded)
    new = update(PAPER_PLAYER, PAPER_GAMES)
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.deviation / SCALE, 4) == 0.8722
    assert 0.05999 <= new.volatility < 0.06000


def test_the_papers_worked_example_on_the_glicko_scale() -> None:
    # the paper converts its rounded mu' and phi' (four places) back: 1464.06 and 151.52, so the exact
    # values lie within 173.7178 * 0.00005 (plus the two printed places) of them
    new = update(PAPER_PLAYER, PAPER_GAMES)
    assert new.rating == pytest.approx(1464.06, abs=SCALE * 0.00005 + 0.005)
    assert new.deviation == pytest.approx(151.52, abs=SCALE * 0.00005 + 0.005)
    assert round(new.rating, 1) == 1464.1 and round(new.deviation, 1) == 151.5


def test_the_volatility_iteration_reaches_the_papers_root() -> None:
    # step 5 alone, with the paper's v = 1.7785 and Delta = -0.4834: sigma' = 0.05999
    sigma = ratings._volatility(0.06, 200 / SCALE, 1.7785, -0.4834, 0.5)
    assert 0.05999 <= sigma < 0.06000


def test_a_new_rating_is_1500_350_006_and_provisional() -> None:
    assert (DEFAULT.rating, DEFAULT.deviation, DEFAULT.volatility) == (1500, 350, 0.06)
    assert DEFAULT.provisional and DEFAULT.display() == "1500?" and str(DEFAULT) == "1500?"


def test_a_rating_is_provisional_only_above_rd_110() -> None:
    assert Rating(1623.4, 110).display() == "1623"
    assert Rating(1623.6, 110.01).display() == "1624?"
    assert not Rating(1500, 50).provisional


def test_a_game_between_equals_moves_them_apart_by_the_same_amount() -> None:
    black, white = rate_game(DEFAULT, DEFAULT, 1)
    assert black.rating > 1500 > white.rating
    assert black.rating - 1500 == pytest.approx(1500 - white.rating)
    assert black.deviation == pytest.approx(white.deviation) and black.deviation < 350
    drawn_black, drawn_white = rate_game(DEFAULT, DEFAULT, 0.5)
    assert drawn_black.rating == pytest.approx(1500) and drawn_white.rating == pytest.approx(1500)


def test_a_period_without_games_widens_rd_up_to_350() -> None:
    assert update(Rating(1500, 100, 0.06), []).deviation == pytest.approx(SCALE * math.hypot(100 / SCALE, 0.06))
    assert update(Rating(1500, 349.9, 0.06), []).deviation == MAX_DEVIATION


@pytest.mark.parametrize(("rating", "message"), [
    (lambda: Rating(1500, 0), "deviation"), (lambda: Rating(1500, 351), "deviation"),
    (lambda: Rating(math.nan), "finite"), (lambda: Rating(1500, 100, 0), "volatility"),
    (lambda: Result(DEFAULT, 2), "score"),
])
def test_bad_values_are_refused_with_a_clear_error(rating: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rating()  # type: ignore[operator]


@pytest.mark.parametrize(("clock", "speed"), [
    (None, "untimed"), ({"initial": 15, "increment": 0}, "ultrabullet"), ({"initial": 60, "increment": 1}, "bullet"),
    ({"initial": 180, "increment": 2}, "blitz"), ({"initial": 300, "increment": 5}, "rapid"),
    ({"initial": 1800, "increment": 10}, "classical"), ({"initial": 300, "increment": 0, "days": 2}, "correspondence"),
])
def test_time_controls_fall_into_classes_by_their_estimated_length(clock: dict[str, float] | None, speed: str) -> None:
    assert pool_for("reversi", {}, clock).speed == speed


def test_speed_boundaries_are_lichess_estimates() -> None:
    # initial + 40 increments: under 30 s ultrabullet, under 3 min bullet, under 8 min blitz, under 25 min rapid
    assert [speed_of(t) for t in (29, 30, 179, 180, 479, 480, 1499, 1500)] == [
        "ultrabullet", "bullet", "bullet", "blitz", "blitz", "rapid", "rapid", "classical"]


@pytest.mark.parametrize(("game", "options", "key"), [
    ("reversi", {}, "reversi-8-blitz"), ("reversi", {"size": 10}, "reversi-10-blitz"),
    ("gomoku", {}, "gomoku-freestyle-blitz"), ("gomoku", {"rule": "renju", "opening": "swap2"}, "gomoku-renju-blitz"),
    ("gomoku", {"rule": "freestyle", "size": 19}, "gomoku-freestyle-19-blitz"), ("tictactoe", {}, "tictactoe-blitz"),
])
def test_pools_are_named_by_game_rule_or_size_and_speed(game: str, options: dict[str, object], key: str) -> None:
    pool = pool_for(game, options, {"initial": 180, "increment": 0})
    assert pool.key == key == str(pool)
    assert Pool.from_key(key) == pool


@pytest.mark.parametrize("key", ["chess-blitz", "reversi-8-hyper", "reversi", "", "tictactoe--blitz"])
def test_an_unknown_pool_key_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match="no rating pool"):
        Pool.from_key(key)


def test_an_unknown_game_has_no_pool() -> None:
    with pytest.raises(ValueError, match="no rating pool for the game 'chess'"):
        pool_for("chess", {}, None)


def test_the_module_doctests_pass() -> None:
    failures, tried = doctest.testmod(ratings)
    assert tried >= 4 and failures == 0


# -- properties ------------------------------------------------------------------------------------
ratings_ = st.builds(Rating, st.floats(100, 3500), st.floats(30, 350), st.floats(0.01, 0.2))
scores = st.sampled_from([0.0, 0.5, 1.0])


@given(ratings_, st.lists(st.tuples(ratings_, scores), max_size=12))
def test_rd_never_grows_past_350(player: Rating, games: list[tuple[Rating, float]]) -> None:
    new = update(player, [Result(opponent, score) for opponent, score in games])
    assert 0 < new.deviation <= MAX_DEVIATION and math.isfinite(new.rating)


@given(ratings_, ratings_)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_one(winner: Rating, loser: Rating) -> None:
    new_winner, new_loser = rate_game(winner, loser, 1)
    assert new_winner.rating >= winner.rating
    assert new_loser.rating <= loser.rating


@given(ratings_, ratings_)
def test_a_game_never_widens_rd_beyond_the_periods_own_growth(a: Rating, b: Rating) -> None:
    # a game adds information: the deviation after it is below sqrt(phi^2 + sigma'^2), the no-game RD
    new_a, _ = rate_game(a, b, 0.5)
    assert new_a.deviation <= SCALE * math.hypot(a.deviation / SCALE, new_a.volatility) + 1e-9
