"""Balanced Gomoku and Renju openings for the match runner (tabletop.ai.gomoku.openings)."""

from __future__ import annotations

import random

import pytest

from tabletop.ai.gomoku import openings as O
from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, BaseBoard, Move
from tabletop.tournament import openings, schedule


def _board(rule: str, size: int = 15) -> BaseBoard:
    return new_board("gomoku", {"rule": rule, "size": size})


def _played(board: BaseBoard, line: list[Move] | tuple[str, ...]) -> BaseBoard:
    b = board.copy()
    for m in line:
        b.push(m)  # raises on an illegal stone
    return b


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
def test_openings_are_legal_three_stone_starts_of_the_family(rule: str) -> None:
    board = _board(rule)
    book = O.balanced_openings(board, 8, seed=3)
    assert len(book) == 8
    cx, cy = board.width // 2, board.height // 2
    for line in book:
        b = _played(board, line)
        assert b.turn is WHITE and not b.is_game_over()
        centre, white, far = line
        assert (centre.col, centre.row) == (cx, cy) and b.piece_at(cx, cy) is BLACK
        assert b.piece_at(white.col, white.row) is WHITE
        assert 1 <= max(abs(white.col - cx), abs(white.row - cy)) <= O.WHITE_RADIUS
        assert max(abs(far.col - cx), abs(far.row - cy)) == O.black_ring(board) == (2 if rule == "renju" else 3)


def _images(line: list[Move], n: int) -> set[frozenset[tuple[int, int, int]]]:
    out = set()
    for swap in (False, True):
        for fc in (False, True):
            for fr in (False, True):
                pts = set()
                for i, m in enumerate(line):
                    c, r = (m.row, m.col) if swap else (m.col, m.row)
                    pts.add((i % 2, n - 1 - c if fc else c, n - 1 - r if fr else r))
                out.add(frozenset(pts))
    return out


@pytest.mark.parametrize(("rule", "count"), [("freestyle", 30), ("renju", 20)])
def test_openings_are_distinct_even_up_to_the_board_symmetries(rule: str, count: int) -> None:
    board = _board(rule)
    book = O.balanced_openings(board, count, seed=1)
    assert len(book) == count
    seen: set[frozenset[tuple[int, int, int]]] = set()
    for line in book:
        images = _images(line, board.width)
        assert not images & seen, [str(m) for m in line]
        seen |= images


def test_openings_are_deterministic_per_seed_and_vary_with_it() -> None:
    board = _board("freestyle")
    a = [[str(m) for m in line] for line in O.balanced_openings(board, 4, seed=5)]
    assert a == [[str(m) for m in line] for line in O.balanced_openings(board, 4, seed=5)]
    assert a != [[str(m) for m in line] for line in O.balanced_openings(board, 4, seed=6)]


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
def test_kept_openings_are_even_by_the_engine_and_the_skipped_ones_are_not(rule: str) -> None:
    board = _board(rule)
    book = [[str(m) for m in line] for line in O.balanced_openings(board, 6, seed=2)]
    # the candidates in the same seeded order, up to the last opening kept
    order = O.opening_candidates(board)
    random.Random(2).shuffle(order)
    lo, hi = O.balance_window(board)
    assert lo < hi
    names = [[str(m) for m in line] for line in order]
    prefix = names[: names.index(book[-1]) + 1]
    assert [line for line in prefix if line in book] == book
    skipped = [line for line in prefix if line not in book]
    assert skipped, "seed 2 should meet an uneven candidate before its sixth even one"
    for line in book:
        assert lo <= O.opening_balance(_played(board, tuple(line))) <= hi
    for line in skipped:
        assert not lo <= O.opening_balance(_played(board, tuple(line))) <= hi
    # the window is the family's middle half
    scores = [O.opening_balance(_played(board, tuple(line))) for line in O.opening_candidates(board)]
    inside = sum(lo <= v <= hi for v in scores)
    assert len(scores) // 2 <= inside <= len(scores) * 3 // 4


def test_the_balance_measure_tells_a_strong_black_start_from_the_family() -> None:
    board = _board("freestyle")
    # two black stones side by side with White's stone far off: far better for Black than any kept opening
    strong = _played(board, ("h8", "m3", "i8"))
    assert O.opening_balance(strong) < O.balance_window(board)[0]


def test_match_runner_uses_the_balanced_openings_in_colour_swapped_pairs() -> None:
    board = _board("freestyle")
    book = openings("gomoku", board, 5, seed=7)
    assert book == [tuple(str(m) for m in line) for line in O.balanced_openings(board, 5, seed=7)]
    specs = schedule("gomoku", {}, "level:6", "level:5", 10, book, None)
    for k in range(5):
        first, second = specs[2 * k], specs[2 * k + 1]
        assert first.opening == second.opening == book[k]
        assert first.a_is_black and not second.a_is_black


def test_a_board_too_small_for_the_family_falls_back_to_two_stone_starts() -> None:
    board = _board("freestyle", size=5)
    assert O.balanced_openings(board, 4, seed=1) == []
    book = openings("gomoku", board, 4, seed=1)
    assert book and all(len(line) == 2 for line in book)
    for line in book:
        _played(board, line)


def test_reversi_and_tictactoe_openings_are_unchanged() -> None:
    assert openings("tictactoe", new_board("tictactoe"), 5, seed=1) == [()]
    rev = openings("reversi", new_board("reversi"), 6, seed=1)
    assert rev == openings("reversi", new_board("reversi"), 6, seed=1)
    assert len(rev) == 6 and all(len(line) == 4 for line in rev)
