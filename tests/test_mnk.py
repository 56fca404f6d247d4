"""The m,n,k board and Tic-tac-toe through the game protocol."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.games.core import BLACK, WHITE, BaseBoard, IllegalMoveError, Move, Outcome
from tabletop.games.mnk import Board, tictactoe


def test_squares_use_the_renju_convention_a1_bottom_left() -> None:
    b = tictactoe()
    m = b.parse_move("a1")
    assert (m.col, m.row) == (0, 2)
    assert str(b.parse_move("B2")) == "b2"
    b.push("a1")
    assert b.to_text() == "---/---/X-- O"


def test_three_in_a_row_wins_and_names_its_cells() -> None:
    b = tictactoe()
    for mv in ["a1", "b1", "a2", "b2", "a3"]:
        b.push(mv)
    out = b.outcome()
    assert out is not None and out.winner is BLACK and out.reason == "line"
    assert sorted(str(c) for c in out.cells) == ["a1", "a2", "a3"]
    assert b.legal_moves == []
    with pytest.raises(IllegalMoveError, match="over"):
        b.push("c3")


def test_full_board_without_a_line_is_a_draw() -> None:
    b = tictactoe()
    for mv in ["a1", "b2", "c3", "a2", "c2", "c1", "a3", "b3", "b1"]:
        b.push(mv)
    assert b.outcome() == Outcome(None, "draw", (0, 0))


def test_occupied_point_raises_and_changes_nothing() -> None:
    b = tictactoe()
    b.push("b2")
    before = (b.to_text(), hash(b), b.move_stack)
    with pytest.raises(IllegalMoveError, match="occupied"):
        b.push("b2")
    assert (b.to_text(), hash(b), b.move_stack) == before


@pytest.mark.parametrize("text", ["d1", "a4", "zz", "", "11", "pass"])
def test_unreadable_or_off_board_moves_are_refused(text: str) -> None:
    b = tictactoe()
    with pytest.raises(ValueError):
        b.push(text)
    assert b.to_text() == "---/---/--- X"


@pytest.mark.parametrize("text", ["---/---/---", "--/---/--- X", "----/---/--- X", "---/-Q-/--- X", "---/---/--- Z"])
def test_bad_position_text_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match="position"):
        tictactoe(text)


def test_position_text_sets_any_arrangement_and_side() -> None:
    b = tictactoe("XX-/OO-/--- O")
    assert b.turn is WHITE
    b.push("c2")
    out = b.outcome()
    assert out is not None and out.winner is WHITE


def test_general_mnk_board() -> None:
    b = Board(5, 4, 4)
    assert (b.width, b.height) == (5, 4)
    assert len(b.legal_moves) == 20
    with pytest.raises(ValueError):
        Board(3, 3, 5)


def test_svg_marks_every_square_with_an_accessible_name() -> None:
    b = tictactoe()
    b.push("b2")
    svg = b._repr_svg_()
    assert svg.startswith("<svg") and svg.count('class="sq"') == 9
    assert 'aria-label="b2, black"' in svg and 'aria-label="a1, empty"' in svg


@st.composite
def random_games(draw: st.DrawFn, make: object = tictactoe) -> Board:
    """A board after a random sequence of legal moves (possibly to the end)."""
    assert callable(make)
    board: Board = make()
    n = draw(st.integers(min_value=0, max_value=board.width * board.height))
    for _ in range(n):
        moves = board.legal_moves
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


boards = st.one_of(random_games(), random_games(lambda: Board(4, 4, 3)), random_games(lambda: Board(6, 5, 4)))


@given(boards, st.data())
def test_push_then_pop_restores_the_board_exactly(board: Board, data: st.DataObject) -> None:
    moves = board.legal_moves
    if not moves:
        assert board.is_game_over()
        return
    before = (board.to_text(), hash(board), board.turn, board.move_stack, board.outcome())
    board.push(data.draw(st.sampled_from(moves)))
    board.pop()
    assert (board.to_text(), hash(board), board.turn, board.move_stack, board.outcome()) == before


@given(boards)
def test_a_board_rebuilt_from_its_text_is_the_same_position(board: Board) -> None:
    rebuilt = Board(board.width, board.height, board.k, position=board.to_text())
    assert rebuilt.to_text() == board.to_text()
    assert rebuilt.turn is board.turn
    assert rebuilt.legal_moves == board.legal_moves
    # the winner and reason agree; the cells may name another line when a move made two
    a, b = rebuilt.outcome(), board.outcome()
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert (a.winner, a.reason, a.score) == (b.winner, b.reason, b.score)


@given(boards)
def test_the_position_text_read_from_the_cells_is_the_one_read_square_by_square(board: Board) -> None:
    """The m,n,k board writes its text from its cell list; the generic text asks each square."""
    assert board.to_text() == BaseBoard.to_text(board)


@given(boards)
def test_no_move_is_legal_once_the_game_is_over(board: Board) -> None:
    if board.is_game_over():
        assert board.legal_moves == []
        for col, row in board.squares():
            assert not board.is_legal(Move(col, row))
    else:
        assert board.legal_moves


@given(boards, st.integers(0, 35), st.integers(0, 35))
def test_an_illegal_move_raises_and_changes_nothing(board: Board, col: int, row: int) -> None:
    move = Move(col, row)
    before = (board.to_text(), board.move_stack, board.outcome())
    if board.is_legal(move):
        return
    with pytest.raises(IllegalMoveError):
        board.push(move)
    assert (board.to_text(), board.move_stack, board.outcome()) == before


@given(boards)
def test_copy_is_independent(board: Board) -> None:
    c = board.copy()
    assert c == board and hash(c) == hash(board)
    if c.legal_moves:
        c.push(c.legal_moves[0])
        assert c != board
