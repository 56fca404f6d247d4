"""The numba alpha-beta search against the plain-Python search it was written from.

``gomoku_reference_search.py`` is the engine's search as it was before it was
compiled (kept here as the oracle).  Both must find the same best score and a
move with that score at every depth on the same positions; the tree they walk
may differ slightly where moves tie in the ordering, so node counts may too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku_boards import board_with, random_board
from gomoku_reference_search import Searcher as ReferenceSearcher
from tabletop.ai.gomoku.book import line_board
from tabletop.ai.gomoku.kernels import (
    LINE,
    MAXPLY,
    SAVED,
    TNODES,
    VCF_DEPTH,
    _vcf_check,
    board_tuple,
    initial_box,
)
from tabletop.ai.gomoku.position import Position, keys_array, signed
from tabletop.ai.gomoku.search import WIN, Searcher
from tabletop.games.mnk import gomoku


def snapshot(pos: Position) -> list[np.ndarray]:
    return [a.copy() for a in (pos.cells, pos.pat, pos.pscore, pos.total, pos.near)]


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
@pytest.mark.parametrize("depth", [2, 4])
def test_same_value_as_the_reference_search(rule: str, depth: int) -> None:
    compared = 0
    for seed in range(8):
        for stones in (6, 14, 24):
            board = random_board(rule, stones, seed)
            pos = Position.from_board(board)
            ref = ReferenceSearcher(pos, width=8, tt_entries=10**7).search(depth)
            got = Searcher(pos, width=8, tt_entries=1 << 20).search(depth)
            assert got.score == ref.score, (rule, seed, stones)
            assert got.depth == ref.depth
            # the move may differ only between moves of the same score
            assert got.best == ref.best or dict(ref.root_scores).get(got.best) == ref.score
            assert got.pv[0] == got.best
            compared += 1
    assert compared == 24


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), stones=st.integers(2, 30), budget=st.integers(1, 5_000),
       rule=st.sampled_from(["freestyle", "renju"]))
def test_a_search_stopped_anywhere_leaves_the_position_as_it_was(seed: int, stones: int, budget: int,
                                                                  rule: str) -> None:
    pos = Position.from_board(random_board(rule, stones, seed))
    before = snapshot(pos)
    h = pos.hash
    result = Searcher(pos, max_nodes=budget, width=10).search(max_depth=12)
    assert all((a == b).all() for a, b in zip(before, snapshot(pos)))
    assert pos.hash == h
    assert result.nodes <= budget + 1
    assert pos.cells[result.best] == 0  # an empty point


def open_three_to_move() -> Position:
    """Black: an open three on row 7 with White scattered; Black to move makes an open four."""
    board = gomoku(15, "freestyle")
    for col, row in [(5, 7), (0, 0), (6, 7), (0, 14), (7, 7), (14, 0)]:
        board.push(board.move_at(col, row))
    return Position.from_board(board)


def test_forced_win_is_scored_as_a_win_with_its_line() -> None:
    pos = open_three_to_move()
    result = Searcher(pos, width=8).search(max_depth=4)
    assert result.score >= WIN - 100
    assert pos.col_row(result.best)[1] == 7 and pos.col_row(result.best)[0] in (4, 8)


def test_deadline_in_the_past_still_answers_a_legal_move() -> None:
    pos = Position.from_board(random_board("freestyle", 12, 3))
    result = Searcher(pos, deadline=0.0, width=8).search(max_depth=10)
    assert pos.cells[result.best] == 0


def test_a_search_does_not_reuse_the_last_ones_table() -> None:
    # the table's arrays are kept between searches; a repeat must walk the same tree
    pos = Position.from_board(random_board("freestyle", 16, 5))
    first = Searcher(pos, width=8).search(max_depth=4)
    again = Searcher(pos, width=8).search(max_depth=4)
    assert (first.nodes, first.score, first.best) == (again.nodes, again.score, again.best)


class _Scripted(Searcher):
    """A searcher whose root children answer from a script: ``values[(move, depth)]`` is the
    move's value; a search of ``abort_on`` at that depth runs out of time (only its search with
    a full window when ``exact_only``)."""

    def __init__(self, pos: Position, values: dict[tuple[int, int], int], abort_on: tuple[int, int],
                 exact_only: bool) -> None:
        super().__init__(pos, width=8, pruning=True)
        self.values = values
        self.abort_on = abort_on
        self.exact_only = exact_only

    def _child(self, args: tuple, depth: int, alpha: int, beta: int, salt: int) -> int:  # type: ignore[type-arg]
        m = self.pos.history[-1]
        if (m, depth) == self.abort_on and (beta > alpha + 1 or not self.exact_only):
            args[3][2] = 1  # the abort flag, as the kernel sets it at the deadline
            return 0
        return self.values[(m, depth)]

    def _line(self, args: tuple, m: int) -> list[int]:  # type: ignore[type-arg]
        return [m]


@pytest.mark.parametrize("proven", [True, False])
def test_an_unfinished_iteration_counts_only_for_a_move_proven_better(proven: bool) -> None:
    """The depth-4 iteration runs out of time: on the second move's exact search after its
    null-window search proved it better than the first (the last iteration's choice), which is
    then played; or on the third move after the second proved no better, and the depth-2 choice
    stays."""
    pos = Position.from_board(random_board("freestyle", 10, 4))
    a, b, *rest = Searcher(pos, width=8, pruning=True).search(max_depth=2).root_scores
    values = {(m, 2): 100 - 10 * i for i, (m, _) in enumerate([a, b, *rest])}
    values |= {(m, 4): 0 for m, _ in [a, b, *rest]}
    values[(a[0], 4)] = 80
    values[(b[0], 4)] = 120 if proven else 60
    abort_on = (b[0], 4) if proven else (rest[0][0], 4)
    result = _Scripted(pos, values, abort_on, exact_only=proven).search(max_depth=4)
    assert result.best == (b[0] if proven else a[0])
    assert result.root_scores[0][0] == result.best
    assert result.depth == 2


# a renju middle game from level 10's games against 618f311's (benchmarks/logs, --think 1), Black
# to move, with fours of both sides on the board: extended fours multiply its tree
FOURS_ON_BOARD = "h8 f10 j7 g11 g7 e9 d8 j8 h7 i7 h6 h5 f6 h12 i13 i9"


def test_without_the_four_extension_a_four_and_its_block_cost_one_ply() -> None:
    pos = Position.from_board(line_board("renju", FOURS_ON_BOARD.split()))
    before = snapshot(pos)
    extended = Searcher(pos, width=12, pruning=True).search(max_depth=6)
    plain = Searcher(pos, width=12, pruning=True, extend_fours=False).search(max_depth=6)
    assert all((a == b).all() for a, b in zip(before, snapshot(pos)))
    assert (extended.depth, plain.depth) == (6, 6)
    assert plain.nodes * 10 < extended.nodes, (plain.nodes, extended.nodes)
    assert pos.cells[plain.best] == 0
    # Black has a forced win here: the extended search proves it at six plies, the plain one
    # at eight, in a small part of the nodes
    assert extended.score >= WIN - 100
    deeper = Searcher(pos, width=12, pruning=True, extend_fours=False).search(max_depth=8)
    assert deeper.score >= WIN - 100 and deeper.best == extended.best
    assert deeper.nodes * 10 < extended.nodes, (deeper.nodes, extended.nodes)
    # the extension off, the open four Black makes from its open three is still scored as won
    # (White cannot block both of its five points)
    won = Searcher(open_three_to_move(), width=8, pruning=True, extend_fours=False).search(max_depth=2)
    assert won.score >= WIN - 100


def test_each_completed_depth_is_reported_once_in_order() -> None:
    pos = Position.from_board(random_board("freestyle", 14, 3))
    seen: list[tuple[int, int]] = []
    result = Searcher(pos, width=8, tt_entries=1 << 16,
                      on_depth=lambda r: seen.append((r.depth, r.nodes))).search(max_depth=6)
    assert [depth for depth, _ in seen] == [2, 4, 6][:len(seen)]
    assert seen and seen[-1][0] == result.depth
    assert [nodes for _, nodes in seen] == sorted(nodes for _, nodes in seen)  # the running count, never less


def test_a_taper_narrows_only_the_nodes_four_plies_or_more_from_the_root() -> None:
    pos = Position.from_board(line_board("renju", FOURS_ON_BOARD.split()[:12]))
    # two plies never reach the fourth (a forced block takes no depth, but a four then ends at the horizon)
    shallow = Searcher(pos, width=12, pruning=True, extend_fours=False).search(max_depth=2)
    tapered = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4).search(max_depth=2)
    assert (shallow.nodes, shallow.score, shallow.best) == (tapered.nodes, tapered.score, tapered.best)
    full = Searcher(pos, width=12, pruning=True, extend_fours=False).search(max_depth=6)
    narrow = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4).search(max_depth=6)
    assert (full.depth, narrow.depth) == (6, 6)
    assert narrow.nodes < full.nodes * 0.9, (narrow.nodes, full.nodes)
    assert pos.cells[narrow.best] == 0


def test_a_second_taper_narrows_only_the_nodes_five_plies_or_more_from_the_root() -> None:
    pos = Position.from_board(line_board("freestyle", FOURS_ON_BOARD.split()[:12]))
    one = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4).search(max_depth=2)
    two = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4, taper2=2).search(max_depth=2)
    assert (one.nodes, one.score, one.best) == (two.nodes, two.score, two.best)
    one = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4).search(max_depth=6)
    two = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4, taper2=2).search(max_depth=6)
    assert (one.depth, two.depth) == (6, 6)
    assert two.nodes < one.nodes * 0.95, (two.nodes, one.nodes)
    assert pos.cells[two.best] == 0


def test_killer_moves_reorder_only_the_pruning_search_and_keep_its_win() -> None:
    pos = Position.from_board(line_board("freestyle", FOURS_ON_BOARD.split()[:12]))
    # the plain search (the reference's) ignores them
    plain = Searcher(pos, width=12).search(max_depth=4)
    asked = Searcher(pos, width=12, killers=True).search(max_depth=4)
    assert (plain.nodes, plain.score, plain.best) == (asked.nodes, asked.score, asked.best)
    without = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4).search(max_depth=6)
    killers = Searcher(pos, width=12, pruning=True, extend_fours=False, taper=4, killers=True).search(max_depth=6)
    assert killers.depth == 6 and killers.nodes != without.nodes, (killers.nodes, without.nodes)
    assert pos.cells[killers.best] == 0
    won = Searcher(open_three_to_move(), width=8, pruning=True, killers=True).search(max_depth=4)
    assert won.score >= WIN - 100


def test_a_vcf_check_that_found_nothing_is_answered_from_its_table_the_next_time() -> None:
    """Black's closed three on row 7 has four points but no VCF; with a closed three on column 8
    as well, the four at (8, 7) is a double four: a VCF, searched again at every check."""
    closed_three = ([(5, 7), (6, 7), (7, 7)], [(4, 7), (0, 0), (14, 14)])
    double_four = ([(5, 7), (6, 7), (7, 7), (8, 3), (8, 4), (8, 5)],
                   [(4, 7), (8, 2), (0, 0), (14, 14), (0, 14), (14, 0)])
    fail = np.zeros((3, 1 << 10), dtype=np.int64)
    rows = MAXPLY + 2 * VCF_DEPTH + 8

    def check(pos: Position, budget: int) -> tuple[int, int]:
        size = pos.cells.shape[0]
        ctl = np.zeros(4, dtype=np.int64)
        k = _vcf_check(board_tuple(pos), initial_box(pos.near, pos.stride), keys_array(size), signed(pos.hash), 1,
                       ctl, np.zeros(4, dtype=np.int64), float("inf"), np.zeros((rows, LINE), dtype=np.int32), 1,
                       fail, np.zeros((rows, SAVED), dtype=np.int64), np.zeros((rows, size), dtype=np.int32),
                       np.zeros((rows, size), dtype=np.int64), budget)
        return k, int(ctl[TNODES])

    none = Position.from_board(board_with(*closed_three))
    k, ticks = check(none, 16)
    assert k == 0 and ticks > 0
    assert check(none, 16) == (0, 0)  # remembered: no threat node this time
    win = Position.from_board(board_with(*double_four))
    for _ in range(2):
        k, ticks = check(win, 16)
        assert k > 0 and ticks > 0  # a found line is searched again (its points are read)
    # a check that ran out of its budget is remembered with its budget, not for a larger one
    assert check(win, 0)[0] == 0
    assert check(win, 0) == (0, 0)
    assert check(win, 16)[0] > 0
