"""The Reversi opening book: symmetric keys, storage, choice among near-equal moves, its use by levels,
analysis and the NBoard engine, and the build script's negamax."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tabletop.ai.reversi import analyse, level_player
from tabletop.ai.reversi.book import BOOK_FILE, Book, canonical, children, default_book, position_key
from tabletop.ai.reversi.levels import book_result
from tabletop.games.core import Color
from tabletop.games.reversi import Board
from tabletop.protocols.nboard import NBoardEngine

START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))


def _sides(board: Board) -> tuple[int, int]:
    black, white = board.bitboards()
    return (black, white) if board.turn is Color.BLACK else (white, black)


def _square_board(bits: int) -> set[tuple[int, int]]:
    return {(sq // 8, sq % 8) for sq in range(64) if bits >> sq & 1}


def test_the_eight_images_of_a_position_share_one_key_and_other_positions_do_not() -> None:
    rng = random.Random(2)
    board = Board()
    for _ in range(12):
        board.push(rng.choice(board.legal_moves))
    p, o = _sides(board)
    images = set()
    for transform in (
        lambda r, c: (r, c),
        lambda r, c: (7 - r, c),
        lambda r, c: (r, 7 - c),
        lambda r, c: (7 - r, 7 - c),
        lambda r, c: (c, r),
        lambda r, c: (7 - c, r),
        lambda r, c: (c, 7 - r),
        lambda r, c: (7 - c, 7 - r),
    ):
        tp = sum(1 << (8 * a + b) for a, b in (transform(r, c) for r, c in _square_board(p)))
        to = sum(1 << (8 * a + b) for a, b in (transform(r, c) for r, c in _square_board(o)))
        images.add((tp, to))
        assert canonical(tp, to) == canonical(p, o)
        assert position_key(tp, to) == position_key(p, o)
    assert len(images) == 8  # an asymmetric position: eight distinct images
    assert position_key(o, p) != position_key(p, o)  # the side to move matters
    # The four first moves are one position up to symmetry.
    assert len({position_key(cp, co) for _, cp, co in children(*START)}) == 1


def _tiny_book() -> Book:
    # The start position's children all worth 0 for Black, except after the second-ply replies:
    # a hand-made two-ply book in which White's replies differ.
    values: dict[int, float] = {}
    f5 = next((sq, cp, co) for sq, cp, co in children(*START))
    _, p1, o1 = f5
    values[position_key(*START)] = 0
    values[position_key(p1, o1)] = 0
    for i, (_, cp, co) in enumerate(children(p1, o1)):
        values[position_key(cp, co)] = [0, 1, -6][i]  # for Black (to move there)
    return Book.from_dict(values)


def test_book_scores_and_a_seeded_choice_among_near_equal_moves(tmp_path: Path) -> None:
    book = _tiny_book()
    _, p1, o1 = children(*START)[0]
    scores = book.scores(p1, o1)  # White to move: three replies worth 0, -1 and +6 for White
    assert scores is not None and [v for _, v in scores] == [6, 0, -1]
    picks = {book.choose(p1, o1, random.Random(seed), tolerance=1) for seed in range(20)}
    assert picks == {scores[0][0]}  # only the +6 reply is within one disc of the best
    picks = {book.choose(p1, o1, random.Random(seed), tolerance=7) for seed in range(30)}
    assert len(picks) == 3  # all three are near enough: the choice varies with the seed
    assert book.choose(p1, o1, random.Random(1), 7) == book.choose(p1, o1, random.Random(1), 7)
    assert book.scores(*children(p1, o1)[0][1:]) is None  # out of the book
    path = tmp_path / "book.npz"
    book.save(path, made_by="test")
    again = Book.load(path)
    assert np.array_equal(again.keys, book.keys) and np.array_equal(again.values, book.values)


def test_a_broken_book_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "book.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a Reversi book"):
        Book.load(path)
    np.savez(path, keys=np.array([3, 2], dtype=np.uint64), values=np.array([1, 2], dtype=np.int8))
    with pytest.raises(ValueError, match="sorted"):
        Book.load(path)


def test_the_shipped_book_is_small_and_covers_the_first_plies() -> None:
    assert BOOK_FILE.exists() and BOOK_FILE.stat().st_size < 5 * 1024 * 1024
    book = default_book()
    assert len(book) > 1000
    board = Board()
    rng = random.Random(7)
    for _ in range(4):  # the book's own lines from the start stay in the book
        found = book_result(*_sides(board), rng)
        assert found is not None and found.book
        board.push(board.move_at(found.best % 8, found.best // 8))
    assert abs(book.value(*START) or 0) <= 4  # the start is roughly balanced


def test_levels_six_to_ten_open_from_the_book_with_varied_games_and_lower_levels_do_not() -> None:
    board = Board()
    firsts = set()
    for seed in range(12):
        player = level_player(10, seed=seed)
        b = board.copy()
        line = []
        for _ in range(4):
            result = player.search(b)
            assert result.book
            line.append(result.best)
            b.push(b.move_at(result.best % 8, result.best // 8))
        firsts.add(tuple(line))
    assert len(firsts) > 1  # seeded choices among near-equal moves vary the games
    assert level_player(6).search(board).book
    assert not level_player(5).search(board).book


def test_analysis_reports_book_moves_as_book() -> None:
    board = Board()
    board.push("f5")
    analysis = analyse(board)
    assert analysis.scores and all(s.book for s in analysis.scores)
    assert all(s.to_dict()["book"] for s in analysis.scores)
    assert level_player(10).analyse(board).scores[0].book


def test_the_nboard_engine_plays_from_the_book() -> None:
    out = io.StringIO()
    engine = NBoardEngine(10, out, io.StringIO())
    engine.handle("set game (;GM[Othello]PC[t]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *];)")
    engine.handle("go")
    move = next(line for line in out.getvalue().splitlines() if line.startswith("==="))
    board = Board()
    found = book_result(*_sides(board), random.Random(0))
    assert found is not None
    assert move.split()[1].split("/")[0].lower() in {
        str(board.move_at(s.square % 8, s.square // 8)) for s in found.scores
    }


def test_the_build_backs_values_up_by_negamax(load_script: Callable[[str], ModuleType]) -> None:
    build = load_script("build_reversi_book")
    p, o = canonical(*START)
    kids = children(p, o)
    done = {position_key(p, o): {"p": p, "o": o, "ply": 0, "scores": [(sq, 2.0) for sq, _, _ in kids]}}
    _, cp, co = kids[0]
    cp, co = canonical(cp, co)
    grand = children(cp, co)
    done[position_key(cp, co)] = {
        "p": cp,
        "o": co,
        "ply": 1,
        "scores": [(sq, float(-i)) for i, (sq, _, _) in enumerate(grand)],
    }
    book = build._negamax(done)
    assert book.value(cp, co) == 0  # the child's best reply is worth 0 to its mover
    assert book.value(p, o) == 0  # ... so the start is worth 0, not the searched 2
    assert book.value(*grand[1][1:]) == 1  # a leaf keeps its searched value (for its own mover)
