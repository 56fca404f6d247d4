"""Reversi rules: start positions, flips, passes, the end, bad input, push/pop, position text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.games import new_board, reversi
from tabletop.games.core import BLACK, PASS, WHITE, IllegalMoveError, Move


def random_game(seed: int, size: int = 8, plies: int | None = None) -> reversi.Board:
    """A board after ``plies`` random moves (or to the end) from the start."""
    rng = random.Random(seed)
    board = reversi.Board(size=size)
    while plies is None or len(board.move_stack) < plies:
        legal = board.legal_moves
        if not legal:
            break
        board.push(rng.choice(legal))
    return board


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12, 14, 16])
def test_standard_start_is_the_centred_cross_with_black_to_move(size: int) -> None:
    board = reversi.Board(size=size)
    m = size // 2
    assert board.turn is BLACK
    assert board.piece_at(m - 1, m - 1) is WHITE and board.piece_at(m, m) is WHITE
    assert board.piece_at(m, m - 1) is BLACK and board.piece_at(m - 1, m) is BLACK
    assert board.discs() == (2, 2)
    assert len(board.legal_moves) == 4
    assert board.outcome() is None


def test_8x8_start_has_d4_e5_white_and_d5_e4_black() -> None:
    board = reversi.Board()
    names = {str(board.parse_move(n)): board.piece_at(board.parse_move(n).col, board.parse_move(n).row) for n in ("d4", "e5", "d5", "e4")}
    assert names == {"d4": WHITE, "e5": WHITE, "d5": BLACK, "e4": BLACK}
    assert [str(m) for m in board.legal_moves] == ["d3", "c4", "f5", "e6"]


def test_a1_is_the_top_left_corner_and_rows_count_down() -> None:
    board = reversi.Board()
    assert board.parse_move("a1") == Move(0, 0)
    assert board.parse_move("H8") == Move(7, 7)
    assert board.parse_move("c4") == Move(2, 3)
    assert str(board.move_at(5, 4)) == "f5"


@pytest.mark.parametrize("size", [0, 2, 3, 5, 7, 9, 18, 20, -8])
def test_odd_or_out_of_range_sizes_are_refused(size: int) -> None:
    with pytest.raises(ValueError, match="size"):
        reversi.Board(size=size)


def test_new_board_builds_reversi_with_its_size() -> None:
    board = new_board("reversi", {"size": 6})
    assert isinstance(board, reversi.Board) and board.size == 6
    assert board.variant() == {"size": 6}


def test_a_placement_flips_every_flanked_line_at_once() -> None:
    # Black on c3 flanks d4 (diagonal), c4..c5 (column) and d3 (row) at once.
    text = "--------/--------/---OX---/--OOO---/--X-X---/--------/--------/-------- X"
    board = reversi.Board(text)
    flips = sorted(str(m) for m in board.flips("c3"))
    assert flips == ["c4", "d3", "d4"]
    board.push("c3")
    for name in ("c3", "c4", "d3", "d4"):
        m = board.parse_move(name)
        assert board.piece_at(m.col, m.row) is BLACK
    # a White disc flanked only through an empty square stays White
    e4 = board.parse_move("e4")
    assert board.piece_at(e4.col, e4.row) is WHITE


def test_flips_stop_at_the_first_own_disc() -> None:
    board = reversi.Board("-----XO-/--------/--------/--------/--------/--------/--------/-------- X")
    assert [str(m) for m in board.flips("h1")] == ["g1"]
    board = reversi.Board("--XOOOX-/--------/--------/--------/--------/--------/--------/-------- O")
    assert [str(m) for m in board.flips("b1")] == ["c1"]


@pytest.mark.parametrize("size", [4, 8, 16])
def test_lines_do_not_wrap_from_one_row_to_the_next(size: int) -> None:
    # O on the last square of row 1 and X on the first of row 2 are neighbours
    # in bit order but not on the board: neither end may flank through the wrap.
    rows = ["-" * size for _ in range(size)]
    rows[0] = "-" * (size - 1) + "O"
    rows[1] = "X" + "-" * (size - 1)
    board = reversi.Board("/".join(rows) + " X", size=size)
    assert board.flips(Move(size - 2, 0)) == []
    rows[0] = "-" * (size - 1) + "X"
    rows[1] = "O" + "-" * (size - 1)
    board = reversi.Board("/".join(rows) + " X", size=size)
    assert board.flips(Move(1, 1)) == []
    assert board.legal_moves == []


def test_pass_is_the_only_move_when_stuck() -> None:
    # White has no placement, Black still has one: White must pass.
    board = reversi.Board("XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXO/XXXXXX-- O")
    assert board.legal_moves == [PASS]
    assert not board.is_game_over()
    board.push("pass")
    assert board.turn is BLACK
    assert [str(m) for m in board.legal_moves] == ["h8"]
    board.pop()
    assert board.turn is WHITE and board.legal_moves == [PASS]


def test_pass_while_a_placement_exists_is_illegal_and_changes_nothing() -> None:
    board = reversi.Board()
    before = board.to_text()
    with pytest.raises(IllegalMoveError, match="pass"):
        board.push(PASS)
    assert board.to_text() == before and board.move_stack == []


@pytest.mark.parametrize(
    ("move", "reason"),
    [("d4", "occupied"), ("a1", "flips no disc"), ("i1", "off the"), ("a9", "off the"), (Move(8, 0), "off the")],
)
def test_illegal_placements_name_the_problem_and_leave_the_board(move: str | Move, reason: str) -> None:
    board = reversi.Board()
    board.push("f5")
    before, stack, h = board.to_text(), board.move_stack, hash(board)
    with pytest.raises(IllegalMoveError, match=reason):
        board.push(move)
    assert board.to_text() == before and board.move_stack == stack and hash(board) == h


def test_game_ends_when_neither_side_can_place_and_scores_empties_to_the_winner() -> None:
    # Black wipes White out after one move: 13 empty squares... on a 4x4 board.
    board = reversi.Board("----/-XO-/-XX-/---- X", size=4)
    board.push("d2")
    assert board.is_game_over()
    assert board.legal_moves == []
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner is BLACK and outcome.reason == "discs"
    assert outcome.discs == (5, 0) and outcome.score == (16, 0)
    with pytest.raises(IllegalMoveError, match="over"):
        board.push(PASS)


def test_a_drawn_game_has_no_winner_and_splits_the_empties() -> None:
    board = reversi.Board("XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXX-/OOOOOOO-/OOOOOOOO/OOOOOOOO/OOOOOOOO X")
    assert board.is_game_over()
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is None
    assert outcome.discs == (31, 31) and outcome.score == (32, 32)
    assert outcome.result() == "1/2-1/2"


def test_obf_position_form_is_read_on_8x8_with_annotations_ignored() -> None:
    line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;"
    board = reversi.Board(line)
    assert board.turn is BLACK
    assert board.to_text().replace("/", "").split()[0] == line.split()[0]
    assert "g8" in [str(m) for m in board.legal_moves]
    with pytest.raises(ValueError, match="64"):
        reversi.Board("--XX O")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("--------/--------/--------/---OX---/---XO---/--------/--------/-------Z X", "symbol"),
        ("--------/--------/--------/---OX---/---XO---/--------/-------- X", "rows"),
        ("--------/--------/--------/---OX---/---XO---/--------/--------/-------- Q", "side"),
        ("----/-XO-/-OX-/---- X", "rows"),
    ],
)
def test_bad_position_text_is_refused_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        reversi.Board(text)


def test_bitboards_use_row_times_size_plus_col_from_the_top_left() -> None:
    board = reversi.Board()
    black, white = board.bitboards()
    assert black == (1 << (3 * 8 + 4)) | (1 << (4 * 8 + 3))  # e4, d5
    assert white == (1 << (3 * 8 + 3)) | (1 << (4 * 8 + 4))  # d4, e5
    again = reversi.Board.from_bitboards(black, white, BLACK)
    assert again == board and again.to_text() == board.to_text()
    six = reversi.Board.from_bitboards(*reversi.Board(size=6).bitboards(), turn=WHITE, size=6)
    assert six.turn is WHITE and six.size == 6


def test_from_bitboards_refuses_overlapping_or_off_board_bits() -> None:
    with pytest.raises(ValueError, match="overlap"):
        reversi.Board.from_bitboards(1, 1, BLACK)
    with pytest.raises(ValueError, match="outside"):
        reversi.Board.from_bitboards(1 << 64, 0, BLACK)


@given(st.integers(0, 10**6), st.sampled_from([4, 6, 8, 10]))
def test_push_pop_restores_text_hash_turn_and_stack(seed: int, size: int) -> None:
    board = random_game(seed, size)
    snapshots = []
    replay = reversi.Board(size=size)
    for move in board.move_stack:
        snapshots.append((replay.to_text(), hash(replay), replay.turn, replay.move_stack, replay.legal_moves))
        replay.push(move)
    assert replay == board
    for text, h, turn, stack, legal in reversed(snapshots):
        replay.pop()
        assert (replay.to_text(), hash(replay), replay.turn, replay.move_stack, replay.legal_moves) == (
            text,
            h,
            turn,
            stack,
            legal,
        )


@given(st.integers(0, 10**6), st.sampled_from([6, 8, 16]), st.integers(0, 80))
def test_position_text_round_trips_position_turn_and_legal_moves(seed: int, size: int, plies: int) -> None:
    board = random_game(seed, size, plies)
    again = reversi.Board(position=board.to_text(), size=size)
    assert again == board
    assert again.bitboards() == board.bitboards() and again.turn is board.turn
    assert again.legal_moves == board.legal_moves
    assert again.is_game_over() == board.is_game_over()


@given(st.integers(0, 10**6), st.sampled_from([4, 6, 8]))
def test_no_legal_move_after_the_game_ends(seed: int, size: int) -> None:
    board = random_game(seed, size)
    assert board.is_game_over()
    assert board.legal_moves == []
    outcome = board.outcome()
    assert outcome is not None
    black, white = board.discs()
    assert outcome.discs == (black, white)
    assert sum(outcome.score) == size * size
    assert (outcome.winner is None) == (black == white)
    for col, row in board.squares():
        assert not board.is_legal(Move(col, row))
    assert not board.is_legal(PASS)


@given(st.integers(0, 10**6), st.sampled_from([4, 6, 8, 12]), st.integers(0, 60))
def test_legal_moves_are_exactly_the_placements_that_flip_something(seed: int, size: int, plies: int) -> None:
    board = random_game(seed, size, plies)
    if board.is_game_over():
        return
    placements = {Move(c, r) for c, r in board.squares() if board.piece_at(c, r) is None and board.flips(Move(c, r))}
    legal = set(board.legal_moves)
    assert legal == (placements or {PASS})
    for move in legal - {PASS}:
        flipped = board.flips(move)
        board.push(move)
        assert all(board.piece_at(m.col, m.row) is board.turn.other for m in flipped)
        board.pop()


@given(st.integers(0, 10**6), st.sampled_from([4, 6, 8, 10, 16]), st.integers(0, 70))
def test_generated_move_functions_agree_with_the_readable_ones(seed: int, size: int, plies: int) -> None:
    board = random_game(seed, size, plies)
    geo = board.geometry
    black, white = board.bitboards()
    for player, opponent in ((black, white), (white, black)):
        assert geo.moves_mask(player, opponent) == reversi.moves_mask(player, opponent, geo)
        empty = geo.full & ~(black | white)
        while empty:
            bit = empty & -empty
            empty ^= bit
            assert geo.flips_mask(player, opponent, bit) == reversi.flips_mask(player, opponent, bit, geo)


def test_copy_is_independent_of_the_original() -> None:
    board = random_game(7, 8, 10)
    clone = board.copy()
    assert clone == board and clone.move_stack == board.move_stack
    clone.push(clone.legal_moves[0])
    assert clone != board
    clone.pop()
    assert clone == board
    board.pop()
    assert clone.move_stack != board.move_stack
