"""The sequential test of ``tabletop match --sprt``: its LLR against an independent computation, and
its verdicts on streams of game pairs drawn from distributions whose Elo is known."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tabletop.tournament import (
    PAIR_SCORES,
    GameResult,
    GameSpec,
    Sprt,
    logistic_elo,
    logistic_score,
    pair_elo,
    pentanomial,
    play_match,
)


def independent_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The same generalised LLR found by a general constrained optimiser (SLSQP) instead of the
    one-dimensional equation for theta: the largest log-likelihood of the observed pentanomial
    frequencies under a distribution with mean score s, at s0 and at s1."""
    from scipy.optimize import minimize  # here: every test worker imports this file, few call it (a CPU-s)

    regular = np.array([c if c else 1e-3 for c in counts], dtype=float)
    total = regular.sum()
    freq = regular / total
    scores = np.array(PAIR_SCORES)

    def best_log_likelihood(s: float) -> float:
        constraints = [{"type": "eq", "fun": lambda p: p.sum() - 1.0},
                       {"type": "eq", "fun": lambda p: p @ scores - s}]
        start = np.full(5, 0.2)
        fit = minimize(lambda p: -(freq * np.log(p)).sum(), start, method="SLSQP", constraints=constraints,
                       bounds=[(1e-12, 1.0)] * 5, options={"ftol": 1e-15, "maxiter": 2000})
        assert fit.success, fit.message
        return float(-fit.fun)

    return float(total * (best_log_likelihood(logistic_score(elo1)) - best_log_likelihood(logistic_score(elo0))))


def pair_distribution(elo: float, draw: float = 0.3) -> list[float]:
    """Pentanomial probabilities of a pair of independent games, each won, drawn or lost so that its
    expected score is that of ``elo`` (logistic) with ``draw`` of the games drawn."""
    s = logistic_score(elo)
    game = {0.0: 1 - s - draw / 2, 0.5: draw, 1.0: s - draw / 2}
    out = [0.0] * 5
    for x, px in game.items():
        for y, py in game.items():
            out[round((x + y) * 2)] += px * py
    return out


def sequential_verdict(sprt: Sprt, distribution: list[float], rng: random.Random, max_pairs: int = 5000) -> str:
    counts = [0] * 5
    for _ in range(max_pairs):
        counts[rng.choices(range(5), distribution)[0]] += 1
        result = sprt.test(counts)
        if result.done:
            return result.verdict
    return "inconclusive"


def test_bounds_are_those_of_alpha_and_beta_five_percent() -> None:
    sprt = Sprt(0, 10)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ([10, 40, 100, 60, 20], 0, 10),
        ([3, 12, 50, 25, 10], 0, 5),
        ([0, 7, 30, 9, 0], -10, 10),
        ([50, 0, 10, 0, 60], 0, 50),
        ([1, 2, 3, 4, 5], 20, 60),
    ],
)
def test_llr_matches_an_independent_constrained_maximum(counts: list[int], elo0: float, elo1: float) -> None:
    ours = Sprt(elo0, elo1).llr(counts)
    assert ours == pytest.approx(independent_llr(counts, elo0, elo1), rel=1e-5, abs=1e-6)


def test_llr_is_near_the_normal_approximation_for_small_elo_steps() -> None:
    # for hypotheses close to each other and to the observed mean, the generalised LLR tends to
    # N (s1 - s0) (2 mean - s0 - s1) / (2 var) (the GSPRT of OpenBench and older fastchess)
    counts = [50, 150, 400, 200, 50]
    n = sum(counts)
    mean = sum(c * a for c, a in zip(counts, PAIR_SCORES)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts, PAIR_SCORES)) / n
    s0, s1 = logistic_score(0), logistic_score(10)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert Sprt(0, 10).llr(counts) == pytest.approx(approx, rel=0.02)


def test_llr_is_zero_with_no_pairs_and_rises_with_good_results() -> None:
    sprt = Sprt(0, 20)
    assert sprt.llr([0, 0, 0, 0, 0]) == 0.0
    assert sprt.llr([0, 1, 2, 3, 4]) > sprt.llr([1, 2, 3, 2, 1]) > sprt.llr([4, 3, 2, 1, 0])


@pytest.mark.parametrize(("true_elo", "verdict"), [(90, "H1 accepted"), (-50, "H0 accepted")])
def test_a_stream_far_from_the_hypotheses_is_always_decided_right(true_elo: float, verdict: str) -> None:
    sprt = Sprt(0, 40)
    rng = random.Random(7)
    verdicts = [sequential_verdict(sprt, pair_distribution(true_elo), rng) for _ in range(50)]
    assert verdicts == [verdict] * 50


@pytest.mark.parametrize(("true_elo", "wrong"), [(0, "H1 accepted"), (40, "H0 accepted")])
def test_errors_at_the_hypotheses_stay_near_alpha_and_beta(true_elo: float, wrong: str) -> None:
    # at Elo = ELO0 the test should accept H1 about alpha = 5% of the time, at ELO1 H0 about beta = 5%
    sprt = Sprt(0, 40)
    rng = random.Random(11)
    verdicts = [sequential_verdict(sprt, pair_distribution(true_elo), rng) for _ in range(60)]
    assert "inconclusive" not in verdicts
    assert verdicts.count(wrong) <= 6


def test_pair_elo_finds_the_true_elo_of_a_large_sample() -> None:
    rng = random.Random(3)
    distribution = pair_distribution(100.0)
    counts = [0] * 5
    for _ in range(20000):
        counts[rng.choices(range(5), distribution)[0]] += 1
    e, lo, hi = pair_elo(counts)
    assert lo < 100.0 < hi and hi - lo < 20 and abs(e - 100.0) < 10
    assert logistic_elo(logistic_score(37.0)) == pytest.approx(37.0)


def test_pentanomial_counts_pairs_by_points() -> None:
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]


def test_play_match_stops_at_the_verdict_and_keeps_whole_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    # games from a known distribution instead of players: A wins 80% of its games
    rng = random.Random(5)

    def fake_game(spec: GameSpec) -> GameResult:
        won = rng.random() < 0.8
        return GameResult(spec.number, 1.0 if won else 0.0, "synthetic", 10)

    monkeypatch.setattr("tabletop.tournament.play_one", fake_game)
    specs = [GameSpec("tictactoe", {}, "a", "b", i % 2 == 0, (), None, i) for i in range(400)]
    report = play_match(specs, sprt=Sprt(0, 50))
    summary = report.summary()["sprt"]
    assert summary["verdict"] == "H1 accepted" and summary["llr"] >= summary["upper"]
    assert len(report.results) == 2 * summary["pairs"] < 400
    assert [r.number for r in report.results] == list(range(len(report.results)))
    assert summary["elo"] > 50


def test_play_match_runs_out_of_games_inconclusively(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tabletop.tournament.play_one",
                        lambda spec: GameResult(spec.number, 0.5, "synthetic", 9))
    specs = [GameSpec("tictactoe", {}, "a", "b", i % 2 == 0, (), None, i) for i in range(6)]
    report = play_match(specs, sprt=Sprt(-10, 10))
    summary = report.summary()["sprt"]
    assert summary["verdict"] == "inconclusive" and summary["pairs"] == 3 and summary["pentanomial"] == [0, 0, 3, 0, 0]


def test_elo0_must_be_below_elo1() -> None:
    with pytest.raises(ValueError, match="must be below"):
        Sprt(5, 5)
