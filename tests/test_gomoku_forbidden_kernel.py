"""The engine's Renju foul judgement (numba, :func:`tabletop.ai.gomoku.kernels.forbidden`) against
the rules library's (:mod:`tabletop.games.renju`, the single source of truth), point by point."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.kernels import forbidden
from tabletop.ai.gomoku.position import Position
from tabletop.games.mnk import gomoku
from test_renju import CASES, case_board

KINDS = {0: None, 1: "overline", 2: "double-four", 3: "double-three"}


def crowded_renju(seed: int, black: int, white: int, spread: int) -> str:
    """A Renju position text with many Black stones close together (where fouls are common),
    Black to move; stones placed at random within ``spread`` of the centre."""
    rng = random.Random(seed)
    points = [(c, r) for c in range(7 - spread, 8 + spread) for r in range(7 - spread, 8 + spread)]
    rng.shuffle(points)
    grid = [["-"] * 15 for _ in range(15)]
    for i, (c, r) in enumerate(points[: black + white]):
        grid[r][c] = "X" if i < black else "O"
    return "/".join("".join(row) for row in grid) + " X"


def assert_same_fouls(text: str) -> int:
    board = gomoku(15, "renju", position=text)
    if board.is_game_over():
        return 0
    pos = Position.from_board(board)
    expected = {(m.col, m.row): board.forbidden(m) for m in board.forbidden_points()}
    found: dict[tuple[int, int], str | None] = {}
    for row in range(15):
        for col in range(15):
            p = pos.point(col, row)
            if pos.cells[p] != P.EMPTY:
                continue
            kind = KINDS[int(forbidden(pos.cells, p, pos.dirs))]
            assert pos.is_foul(1, p) == (kind is not None), (col, row, text)
            if kind is not None:
                found[(col, row)] = kind
    assert found == expected, text
    return len(found)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), black=st.integers(6, 40), white=st.integers(0, 25), spread=st.integers(3, 7))
def test_kernel_fouls_agree_with_the_rules_library(seed: int, black: int, white: int, spread: int) -> None:
    assert_same_fouls(crowded_renju(seed, black, white, spread))


def test_the_random_positions_do_hold_fouls_of_every_kind() -> None:
    kinds: set[str] = set()
    total = 0
    for seed in range(60):
        text = crowded_renju(seed, 24, 10, 4)
        total += assert_same_fouls(text)
        board = gomoku(15, "renju", position=text)
        kinds.update(k for m in board.forbidden_points() if (k := board.forbidden(m)) is not None)
    assert total > 50
    assert kinds == {"overline", "double-four", "double-three"}


def test_kernel_agrees_on_the_realcore_cases() -> None:
    for case in CASES:
        board = case_board(case)
        assert_same_fouls(board.to_text())
