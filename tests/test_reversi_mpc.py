"""Selective search: the shipped Multi-ProbCut table, the cuts' effect, the plain search left exact, the fit."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from tabletop.ai.reversi import kernel
from tabletop.ai.reversi.eval import default_weights
from tabletop.ai.reversi.mpc import MPC_FILE, load_mpc, save_mpc, shallow_depth, table_from_fits
from tabletop.ai.reversi.search import Searcher

START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))


def _random_position(rng: random.Random, plies: int) -> tuple[int, int]:
    p, o = START
    for _ in range(plies):
        moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
        if not moves:
            if not int(kernel.get_moves(np.uint64(o), np.uint64(p))):
                break
            p, o = o, p
            continue
        sq = rng.choice([s for s in range(64) if moves >> s & 1])
        f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
        p, o = o ^ f, p ^ f ^ (1 << sq)
    return p, o


def _minimax(p: int, o: int, depth: int, weights: np.ndarray, passed: bool = False) -> int:
    # Plain negamax over the kernel's evaluation, the search's own definition of a depth-d value.
    moves = int(kernel.get_moves(np.uint64(p), np.uint64(o)))
    if depth <= 0 and (p | o).bit_count() < 64:
        return int(kernel.evaluate(np.uint64(p), np.uint64(o), weights))
    if not moves:
        if passed or not int(kernel.get_moves(np.uint64(o), np.uint64(p))):
            return Searcher.final_score(p, o) * kernel.SCALE
        return -_minimax(o, p, depth, weights, True)
    best = -kernel.INF
    for sq in (s for s in range(64) if moves >> s & 1):
        f = int(kernel.flips(np.uint64(p), np.uint64(o), sq))
        best = max(best, -_minimax(o ^ f, p ^ f ^ (1 << sq), depth - 1, weights))
    return best


def test_the_shipped_table_loads_and_every_used_cell_is_a_sane_fit() -> None:
    table = load_mpc(MPC_FILE)
    assert table is not None, "src/tabletop/ai/reversi/mpc.npz is missing or malformed"
    used = table[:, :, kernel.MPC_SHALLOW] > 0
    assert used[:, 3:12].sum() > 200  # the midgame depths the levels use are fitted
    assert used[14:24, kernel.MPC_END].all()  # and the selective endgame's empties
    depths = np.nonzero(used[:, : kernel.MPC_END])[1]
    shallow = table[:, : kernel.MPC_END, kernel.MPC_SHALLOW][used[:, : kernel.MPC_END]]
    assert (shallow < depths).all()
    b = table[:, :, kernel.MPC_B][used]
    sigma = table[:, :, kernel.MPC_SIGMA][used] / kernel.SCALE
    assert (b > 0.5).all() and (b < 1.5).all()  # deep and shallow values agree in scale
    assert (sigma > 0.5).all() and (sigma < 20).all()  # a few discs, not noise


def test_plain_search_values_are_exactly_negamax_and_exact_at_the_end() -> None:
    rng = random.Random(3)
    weights = default_weights()
    searcher = Searcher(4)
    for _ in range(6):
        p, o = _random_position(rng, rng.randrange(10, 30))
        if not int(kernel.get_moves(np.uint64(p), np.uint64(o))):
            continue
        for depth in (1, 2, 3):
            searcher.clear()
            assert searcher.value(p, o, depth) == _minimax(p, o, depth, weights)
    for _ in range(6):  # a search to the end of the game is the exact final score
        p, o = _random_position(rng, 56)
        if Searcher.is_over(p, o):
            continue
        searcher.clear()
        assert searcher.value(p, o, 64) == int(searcher.solve(p, o).score) * kernel.SCALE


def test_cuts_save_nodes_and_keep_the_value_close() -> None:
    rng = random.Random(11)
    plain_nodes = cut_nodes = 0
    errors = []
    searcher = Searcher(16)
    for _ in range(8):
        p, o = _random_position(rng, rng.randrange(16, 30))
        if not int(kernel.get_moves(np.uint64(p), np.uint64(o))):
            continue
        searcher.clear()
        plain = searcher.search(p, o, depth=9)
        plain_nodes += plain.nodes
        searcher.clear()
        cut = searcher.search(p, o, depth=9, selectivity=1.5)
        cut_nodes += cut.nodes
        errors.append(abs(plain.score - cut.score))
    assert cut_nodes < 0.7 * plain_nodes
    assert np.mean(errors) < 3.0  # discs


def test_a_selective_game_phase_to_the_end_then_the_exact_solve_agree() -> None:
    rng = random.Random(8)
    searcher = Searcher(16)
    for _ in range(4):
        p, o = _random_position(rng, 44)  # 16 empties
        if Searcher.is_over(p, o):
            continue
        searcher.clear()
        exact = searcher.search(p, o, exact_empties=64, depth=4, selectivity=1.5)
        assert exact.exact
        searcher.clear()
        assert exact.score == searcher.solve(p, o).score


def test_shallow_depths_keep_the_parity_and_stay_shallower() -> None:
    for depth in range(3, 30):
        s = shallow_depth(depth)
        assert 1 <= s < depth
        assert (depth - s) % 2 == 0 or s == 1


def test_a_table_round_trips_and_a_bad_one_is_refused(tmp_path: pytest.TempPathFactory) -> None:
    table = table_from_fits({(30, 6): (1.0, 0.9, 40.0)}, {18: (4, -2.0, 1.1, 60.0)})
    path = tmp_path / "mpc.npz"  # type: ignore[operator]
    save_mpc(table, path, made_by="test")
    loaded = load_mpc(path)
    assert loaded is not None and np.array_equal(loaded, table)
    assert tuple(loaded[30, 6]) == (shallow_depth(6), 1.0, np.float32(0.9), 40.0)
    bad = table.copy()
    bad[30, 6, kernel.MPC_B] = -1.0
    with pytest.raises(ValueError, match="positive slope"):
        save_mpc(bad, path)


def test_the_fit_recovers_a_known_line(load_script: Callable[[str], ModuleType]) -> None:
    fit_script = load_script("fit_reversi_mpc")
    rng = np.random.default_rng(4)
    rows = []
    for _ in range(300):  # deep = 5 + 0.8 * shallow + N(0, 24) at every depth
        empties = int(rng.integers(30, 37))
        values = [0] * 8
        for d in range(1, 9):
            s = shallow_depth(d)
            values[d - 1] = (
                int(5 + 0.8 * values[s - 1] + rng.normal(0, 24)) if d > 2 else int(rng.normal(0, 200))
            )
        rows.append(("mid", empties, 0, values, 0.0))
    mid, _, report = fit_script.fit(rows, 8, 20)
    a, b, sigma = mid[(33, 3)]
    assert abs(b - 0.8) < 0.08 and abs(sigma - 24) < 4
    assert any("depth  3" in line for line in report)
