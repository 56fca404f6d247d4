"""The numba kernels stay inside their arrays, whatever the position and whatever depth is asked.

``make test`` runs this file (with the kernels' own tests) a second time with numba's bounds
checking on (``NUMBA_BOUNDSCHECK=1``, its own cache folder; ``make bounds``): an index past an
array's end then raises ``IndexError`` instead of writing over other memory.  In the plain run
the same cases check what the kernels return: a line that is found is a real line of the
position, and every stone a solver puts is taken back.

Gomoku: the threat solvers and the search under all four rules on boards of 9-20, random
reachable positions, nearly full boards, and positions built to drive the solvers deep: a side
with a chain of 15 fours in a row (each a four the other must block, none winning) facing a
fork, which is what made the VCT kernel run past its scratch rows.  Reversi: the search and
the exact solver on random positions, positions with passes and full boards, and the level
players on every board size 4-16.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.engine import level_player as gomoku_level
from tabletop.ai.gomoku.engine import opponent_wins_after
from tabletop.ai.gomoku.kernels import LINE, SAVED, STACK, board_tuple, initial_box, vcf_kernel, vct_kernel
from tabletop.ai.gomoku.position import Position, keys_array, signed
from tabletop.ai.gomoku.search import Searcher
from tabletop.ai.gomoku.threats import ThreatSolver, new_fail_table
from tabletop.ai.reversi import kernel as reversi_kernel
from tabletop.ai.reversi.levels import level_player as reversi_level
from tabletop.ai.reversi.levels import sides
from tabletop.ai.reversi.search import Searcher as ReversiSearcher
from tabletop.games import new_board

RULES = ("freestyle", "standard", "renju", "caro")
QUICK = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- helpers -------------------------------------------------------------------------------


def snapshot(pos: Position) -> tuple[bytes, ...]:
    return (pos.cells.tobytes(), pos.pat.tobytes(), pos.codes.tobytes(), pos.pscore.tobytes(),
            pos.total.tobytes(), pos.near.tobytes(), bytes(str(pos.hash), "ascii"))


def assert_line_is_playable(pos: Position, line: list[int]) -> None:
    """A solver's line: points on the board, each empty when its turn comes (-1: any move)."""
    taken: set[int] = set()
    for p in line:
        if p < 0:
            continue
        assert 0 <= p < pos.cells.shape[0]
        assert pos.cells[p] == 0 and p not in taken, f"{pos.col_row(p)} is not free in {line}"
        taken.add(p)


def random_reachable(rng: random.Random, rule: str, size: int, stones: int) -> Position:
    """A position reached by legal moves from the empty board, stopped before the game ends
    (a move that would end it is skipped while another is legal)."""
    board = new_board("gomoku", {"rule": rule, "size": size})
    for _ in range(stones):
        moves = board.legal_moves
        rng.shuffle(moves)
        for m in moves:
            board.push(m)
            if not board.is_game_over():
                break
            board.pop()
        else:
            break
    return Position.from_board(board)


def four_chain(size: int, rule: str, attacker: int) -> Position:
    """``attacker`` to move with a fork of two open threes to make, the other side with a dead
    four to make in every group of a row pattern ``A D D D . .`` (rows three apart, the middle
    band left to the fork): each of those fours must be blocked, none leads anywhere."""
    pos = Position(size, size, rule)
    defender = 3 - attacker
    mid = size // 2
    for r in range(0, size, 3):
        if mid - 2 <= r <= mid + 2:
            continue
        for g in range(0, size - 5, 6):
            pos._put(pos.point(g, r), attacker)
            for c in (g + 1, g + 2, g + 3):
                pos._put(pos.point(c, r), defender)
    for c, r in ((mid - 2, mid), (mid - 1, mid), (mid, mid + 1), (mid, mid + 2)):
        pos._put(pos.point(c, r), attacker)
    pos.turn = attacker
    return pos


# -- the bounds-checked pass is real ------------------------------------------------------


def test_the_bounds_checked_pass_turns_numba_bounds_checking_on() -> None:
    """Under ``make bounds`` (TABLETOP_BOUNDSCHECK=1) numba must check indices: a compiled
    read one past an array's end raises instead of reading other memory."""
    if os.environ.get("TABLETOP_BOUNDSCHECK") != "1":
        pytest.skip("checked only in the bounds-checked pass (make bounds)")
    from numba import config, njit

    assert config.BOUNDSCHECK

    @njit
    def past_the_end(a: np.ndarray) -> int:
        return int(a[a.shape[0]])

    with pytest.raises(IndexError):
        past_the_end(np.zeros(3, dtype=np.int64))


# -- Gomoku: constructed deep cases --------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("size", [15, 20])
def test_a_chain_of_fours_against_a_fork_keeps_the_vct_inside_its_arrays(rule: str, size: int) -> None:
    # Black's fork is a foul under renju: there White attacks
    attacker = 2 if rule == "renju" else 1
    pos = four_chain(size, rule, attacker)
    before = snapshot(pos)
    for depth, vcf_depth in ((2, 4), (4, 20), (8, 20), (8, 60), (40, 500)):
        solver = ThreatSolver(pos, max_nodes=20_000)
        line = solver.vct(depth=depth, vcf_depth=vcf_depth)
        assert snapshot(pos) == before
        if line is not None:
            assert_line_is_playable(pos, line)
    # the defender's own chain of fours, as a VCF search of any depth
    pos.turn = 3 - attacker
    for depth in (5, 30, 60, 127, 1000):
        line = ThreatSolver(pos, max_nodes=20_000).vcf(depth)
        assert snapshot(pos) == before
        if line is not None:
            assert_line_is_playable(pos, line)


def test_the_chain_position_has_the_fours_it_is_built_for() -> None:
    pos = four_chain(20, "freestyle", 1)
    # five rows of three groups; White (the defender) makes a four in each group at two points
    fours = [p for p in range(pos.cells.shape[0]) if pos.cells[p] == 0 and _makes_four(pos, p, 2)]
    assert len(fours) >= 30
    # and Black's fork: one point makes two open threes
    fork = pos.point(10, 10)
    pos.play(fork)
    assert len(pos.points_with(1, P.FLEX4)) >= 4
    pos.undo()


def _makes_four(pos: Position, p: int, colour: int) -> bool:
    turn = pos.turn
    pos.turn = colour
    pos.play(p)
    try:
        return bool(pos.five_points(colour))
    finally:
        pos.undo()
        pos.turn = turn


@pytest.mark.parametrize("rows", [1, 2, 3, 5, 9])
def test_the_vcf_kernel_cuts_its_depth_to_the_rows_it_is_given(rows: int) -> None:
    pos = four_chain(20, "freestyle", 1)
    pos.turn = 2  # White's 36 four points
    before = snapshot(pos)
    size = pos.cells.shape[0]
    lines = np.zeros((rows, LINE), dtype=np.int32)
    saved = np.zeros((rows, SAVED), dtype=np.int64)
    mv = np.zeros((rows, size), dtype=np.int32)
    ky = np.zeros((rows, size), dtype=np.int64)
    ctl = np.array([0, 50_000, 0, 0], dtype=np.int64)
    k = vcf_kernel(board_tuple(pos), initial_box(pos.near, pos.stride), keys_array(size), signed(pos.hash), 2,
                   STACK + 50, ctl, float("inf"), lines, 0, new_fail_table(), saved, mv, ky)
    assert snapshot(pos) == before
    assert 0 <= k <= rows  # a line of at most (rows - 1) // 2 fours, its blocks and a five


@pytest.mark.parametrize("rows", [1, 2, 4, 7])
def test_the_vct_kernel_stops_at_the_last_row_it_is_given(rows: int) -> None:
    pos = four_chain(20, "freestyle", 1)
    before = snapshot(pos)
    size = pos.cells.shape[0]
    ctl = np.array([0, 50_000, 0, 0], dtype=np.int64)
    k = vct_kernel(board_tuple(pos), initial_box(pos.near, pos.stride), keys_array(size), signed(pos.hash), 1,
                   False, 8, 20, ctl, float("inf"), np.zeros((rows, LINE), dtype=np.int32), 0, new_fail_table(),
                   new_fail_table(), np.zeros((rows, SAVED), dtype=np.int64), np.zeros((rows, size), dtype=np.int32),
                   np.zeros((rows, size), dtype=np.int64))
    assert snapshot(pos) == before
    assert 0 <= k <= rows + 1


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
def test_the_search_stays_inside_its_arrays_in_long_chains_of_fours(rule: str) -> None:
    attacker = 2 if rule == "renju" else 1
    for turn in (attacker, 3 - attacker):
        pos = four_chain(20, rule, attacker)
        pos.turn = turn
        before = snapshot(pos)
        for pruning in (False, True):
            result = Searcher(pos, max_nodes=30_000, tt_entries=1 << 12, pruning=pruning).search(max_depth=64)
            assert pos.cells[result.best] == 0
            assert snapshot(pos) == before


def test_level_ten_under_renju_answers_a_position_with_a_long_chain_of_fours() -> None:
    # the every-move safety check (opponent_wins_after) runs the VCT kernel on the opponent's
    # chain of fours after each candidate
    pos = four_chain(20, "renju", 2)
    board = new_board("gomoku", {"rule": "renju", "size": 20}, position=_board_text(pos))
    assert Position.from_board(board).cells.tobytes() == pos.cells.tobytes()
    move = gomoku_level(10).choose(board, Limit(seconds=0.5))
    assert move in board.legal_moves
    check = Position.from_board(board)
    before = snapshot(check)
    for p in check.candidates(6):
        opponent_wins_after(check, p, 5_000, 4)
        assert snapshot(check) == before


def _board_text(pos: Position) -> str:
    """The position in the rules library's text form for a Gomoku board."""
    rows = []
    for row in range(pos.height):
        cells = []
        for col in range(pos.width):
            v = int(pos.cells[pos.point(col, row)])
            cells.append("X" if v == 1 else "O" if v == 2 else "-")
        rows.append("".join(cells))
    return "/".join(rows) + (" X" if pos.turn == 1 else " O")


# -- Gomoku: random positions --------------------------------------------------------------


@QUICK
@given(rule=st.sampled_from(RULES), size=st.integers(9, 20), seed=st.integers(0, 2**32 - 1),
       fill=st.floats(0.05, 0.95), vcf_depth=st.integers(0, 200), vct_depth=st.integers(0, 14),
       pruning=st.booleans())
def test_threat_solvers_and_search_stay_inside_their_arrays_on_reachable_positions(
        rule: str, size: int, seed: int, fill: float, vcf_depth: int, vct_depth: int, pruning: bool) -> None:
    rng = random.Random(seed)
    pos = random_reachable(rng, rule, size, int(fill * size * size))
    before = snapshot(pos)
    for line in (ThreatSolver(pos, max_nodes=3_000).vcf(vcf_depth),
                 ThreatSolver(pos, max_nodes=3_000).vct(depth=vct_depth, vcf_depth=vcf_depth)):
        assert snapshot(pos) == before
        if line is not None:
            assert_line_is_playable(pos, line)
    result = Searcher(pos, max_nodes=2_000, tt_entries=1 << 10, pruning=pruning).search(max_depth=rng.choice([2, 8, 64]))
    assert snapshot(pos) == before
    if pos.cells.tolist().count(0):
        assert pos.cells[result.best] == 0
    for p in pos.candidates(8):
        pos.is_foul(1, p)
    assert snapshot(pos) == before


@QUICK
@given(rule=st.sampled_from(RULES), size=st.integers(9, 12), seed=st.integers(0, 2**32 - 1))
def test_nearly_full_boards_keep_the_kernels_inside_their_arrays(rule: str, size: int, seed: int) -> None:
    rng = random.Random(seed)
    pos = random_reachable(rng, rule, size, size * size - rng.randint(1, 4))
    before = snapshot(pos)
    ThreatSolver(pos, max_nodes=3_000).vcf(200)
    ThreatSolver(pos, max_nodes=3_000).vct(depth=12, vcf_depth=200)
    Searcher(pos, max_nodes=3_000, tt_entries=1 << 10, pruning=True).search(max_depth=64)
    assert snapshot(pos) == before


# -- Reversi --------------------------------------------------------------------------------


def _random_reversi(rng: random.Random, plies: int, want_pass: bool = False) -> tuple[object, bool]:
    board = new_board("reversi")
    passed = False
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        m = rng.choice(moves)
        passed = passed or m.is_pass
        board.push(m)
        if want_pass and passed:
            break
    return board, passed


@QUICK
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60), depth=st.integers(1, 64))
def test_the_reversi_search_and_solver_stay_inside_their_arrays(seed: int, plies: int, depth: int) -> None:
    rng = random.Random(seed)
    board, _ = _random_reversi(rng, plies)
    p, o = sides(board)  # type: ignore[arg-type]
    searcher = ReversiSearcher(tt_megabytes=1)
    if board.is_game_over():  # type: ignore[attr-defined]
        with pytest.raises(ValueError, match="over"):
            searcher.search(p, o, depth=depth)
        return
    result = searcher.search(p, o, depth=depth, nodes=20_000, exact_empties=12, selectivity=rng.choice([0.0, 1.5]))
    legal = int(reversi_kernel.get_moves(np.uint64(p), np.uint64(o)))
    if legal:
        assert legal >> result.best & 1
    empties = 64 - (p | o).bit_count()
    if empties <= 10:
        solved = searcher.solve(p, o)
        assert solved.exact


def test_reversi_positions_with_passes_and_full_boards_are_searched_inside_their_arrays() -> None:
    rng = random.Random(5)
    found_pass = 0
    for _ in range(400):
        board, passed = _random_reversi(rng, 60, want_pass=True)
        if not passed:
            continue
        found_pass += 1
        p, o = sides(board)  # type: ignore[arg-type]
        searcher = ReversiSearcher(tt_megabytes=1)
        searcher.search(p, o, depth=20, nodes=20_000, exact_empties=14)
        if found_pass >= 6:
            break
    assert found_pass >= 6
    full = new_board("reversi")
    while not full.is_game_over():
        full.push(rng.choice(full.legal_moves))
    p, o = sides(full)
    with pytest.raises(ValueError, match="over"):
        ReversiSearcher(tt_megabytes=1).solve(p, o)
    full.pop()  # the last move: one square or more to fill
    p, o = sides(full)
    result = ReversiSearcher(tt_megabytes=1).solve(p, o)
    assert result.exact and result.best >= 0


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12, 14, 16])
def test_reversi_level_players_answer_on_every_board_size(size: int) -> None:
    rng = random.Random(size)
    board = new_board("reversi", {"size": size})
    for _ in range(rng.randint(0, size)):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves))
    if not board.is_game_over():
        move = reversi_level(5).choose(board, Limit(seconds=0.2))
        assert move in board.legal_moves
