"""The weights head-to-head script: paired openings, colour bookkeeping and its score arithmetic."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tabletop.ai.reversi.eval import default_weights, handmade_weights

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "compare_reversi_weights.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_reversi_weights", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_openings_are_distinct_and_deterministic() -> None:
    cmp = _script()
    a = cmp.random_openings(20, 6, seed=5)
    assert a == cmp.random_openings(20, 6, seed=5)
    assert len(set(a)) == 20
    for p, o, parity in a:  # six plies without a pass: Black to move again
        assert p & o == 0 and (p | o).bit_count() == 4 + 6 and parity == 0


def test_a_table_against_itself_scores_exactly_half() -> None:
    # Both games of a pair are the same game with the colours swapped.
    cmp = _script()
    table = default_weights()
    cmp._init(table, table)
    pairs = [cmp._pair((op, 2, 8)) for op in cmp.random_openings(3, 6, seed=2)]
    assert all(a == -b for a, b in pairs)
    assert cmp.summarise(pairs)["score"] == 0.5


def test_different_tables_are_scored_from_the_candidate_side() -> None:
    cmp = _script()
    cand, ref = handmade_weights(), default_weights()
    opening = cmp.random_openings(1, 6, seed=4)[0]
    as_black = cmp.play_game(opening, cand, ref, 2, 8)
    as_white = cmp.play_game(opening, ref, cand, 2, 8)
    cmp._init(cand, ref)
    assert cmp._pair((opening, 2, 8)) == (as_black, -as_white)


def test_summary_arithmetic() -> None:
    s = _script().summarise([(4, 2), (-6, 0), (10, -2)])
    assert s["games"] == 6 and (s["wins"], s["draws"], s["losses"]) == (3, 1, 2)
    assert s["score"] == pytest.approx((1.0 + 0.25 + 0.5) / 3)
    assert s["discs"] == pytest.approx(8 / 6)


def test_missing_file_gives_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="no such weights file"):
        _script().main(["/nonexistent/w.npz"])
