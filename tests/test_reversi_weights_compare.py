"""The weights head-to-head script: paired openings, colour bookkeeping and its score arithmetic."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from tabletop.ai.reversi.eval import default_weights, handmade_weights


def test_openings_are_distinct_and_deterministic(load_script: Callable[[str], ModuleType]) -> None:
    cmp = load_script("compare_reversi_weights")
    a = cmp.random_openings(20, 6, seed=5)
    assert a == cmp.random_openings(20, 6, seed=5)
    assert len(set(a)) == 20
    for p, o, parity in a:  # six plies without a pass: Black to move again
        assert p & o == 0 and (p | o).bit_count() == 4 + 6 and parity == 0


def test_a_table_against_itself_scores_exactly_half(load_script: Callable[[str], ModuleType]) -> None:
    # Both games of a pair are the same game with the colours swapped.
    cmp = load_script("compare_reversi_weights")
    table = default_weights()
    cmp._init(table, table)
    pairs = [cmp._pair((op, 2, 8)) for op in cmp.random_openings(3, 6, seed=2)]
    assert all(a == -b for a, b in pairs)
    assert cmp.summarise(pairs)["score"] == 0.5


def test_different_tables_are_scored_from_the_candidate_side(load_script: Callable[[str], ModuleType]) -> None:
    cmp = load_script("compare_reversi_weights")
    cand, ref = handmade_weights(), default_weights()
    opening = cmp.random_openings(1, 6, seed=4)[0]
    as_black = cmp.play_game(opening, cand, ref, 2, 8)
    as_white = cmp.play_game(opening, ref, cand, 2, 8)
    cmp._init(cand, ref)
    assert cmp._pair((opening, 2, 8)) == (as_black, -as_white)


def test_summary_arithmetic(load_script: Callable[[str], ModuleType]) -> None:
    s = load_script("compare_reversi_weights").summarise([(4, 2), (-6, 0), (10, -2)])
    assert s["games"] == 6 and (s["wins"], s["draws"], s["losses"]) == (3, 1, 2)
    assert s["score"] == pytest.approx((1.0 + 0.25 + 0.5) / 3)
    assert s["discs"] == pytest.approx(8 / 6)


def test_missing_file_gives_a_clear_error(load_script: Callable[[str], ModuleType]) -> None:
    with pytest.raises(SystemExit, match="no such weights file"):
        load_script("compare_reversi_weights").main(["/nonexistent/w.npz"])
