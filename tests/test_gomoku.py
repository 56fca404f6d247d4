"""Gomoku boards under every rule: sizes, winning lines, draws, and the
properties every board must keep (push/pop, position text, the end, illegal moves)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.games import new_board
from tabletop.games.core import BLACK, WHITE, Move
from tabletop.games.mnk import RULES, CaroBoard, GomokuBoard, RenjuBoard, StandardGomokuBoard, gomoku


def row_text(width: int, stones: dict[int, str]) -> str:
    return "".join(stones.get(c, "-") for c in range(width))


def board_with_row(rule: str, row: str, to_move: str = "X", size: int = 15) -> GomokuBoard:
    """A board whose middle row (row 8 on 15x15) is ``row``, empty elsewhere."""
    rows = ["-" * size] * size
    rows[size // 2] = row
    return gomoku(size=size, rule=rule, position="/".join(rows) + " " + to_move)


def test_every_rule_is_a_registered_subclass() -> None:
    assert set(RULES) == {"freestyle", "standard", "renju", "caro"}
    for name, cls in RULES.items():
        assert issubclass(cls, GomokuBoard) and cls.rule == name
        board = gomoku(rule=name)
        assert type(board) is cls and board.variant()["rule"] == name


@pytest.mark.parametrize("size", [5, 6, 15, 19, 20, 26])
def test_square_sizes_from_5_to_26(size: int) -> None:
    board = gomoku(size=size)
    assert (board.width, board.height) == (size, size)
    assert len(board.legal_moves) == size * size


@pytest.mark.parametrize(("width", "height"), [(5, 26), (26, 5), (12, 9)])
def test_rectangular_sizes(width: int, height: int) -> None:
    for rule in RULES:
        board = gomoku(size=(width, height), rule=rule)
        assert (board.width, board.height) == (width, height)
    generic = new_board("gomoku", {"width": width, "height": height, "rule": "caro"})
    assert (generic.width, generic.height) == (width, height)


@pytest.mark.parametrize("size", [4, 27, (4, 10), (10, 27), 0])
def test_sizes_out_of_range_are_refused(size: int | tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="size"):
        gomoku(size=size)


def test_unknown_rule_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="caro, freestyle, renju, standard"):
        gomoku(rule="pente")


def test_centre_is_h8_and_a1_is_bottom_left() -> None:
    board = gomoku()
    assert board.parse_move("h8") == Move(7, 7)
    assert board.parse_move("a1") == Move(0, 14)
    assert str(board.move_at(0, 0)) == "a15"


@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju", "caro"])
def test_open_five_wins_under_every_rule_and_names_its_cells(rule: str) -> None:
    board = board_with_row(rule, "----XXXX-------", to_move="X")
    board.push("i8")
    out = board.outcome()
    assert out is not None and (out.winner, out.reason, out.score) == (BLACK, "line", (1, 0))
    assert [str(c) for c in out.cells] == ["e8", "f8", "g8", "h8", "i8"]
    assert board.legal_moves == [] and board.is_game_over()


@pytest.mark.parametrize(("rule", "wins"), [("freestyle", True), ("standard", False), ("caro", True)])
def test_six_in_a_row(rule: str, wins: bool) -> None:
    board = board_with_row(rule, "---XX-XXX------", to_move="X")
    board.push("f8")
    out = board.outcome()
    if wins:
        assert out is not None and out.winner is BLACK and len(out.cells) == 6
    else:
        assert out is None


def test_renju_white_wins_with_six_but_black_does_not() -> None:
    board = board_with_row("renju", "---OO-OOO------", to_move="O")
    board.push("f8")
    out = board.outcome()
    assert out is not None and out.winner is WHITE and len(out.cells) == 6


def test_caro_five_blocked_at_both_ends_does_not_win() -> None:
    board = board_with_row("caro", "---OXXXX-O-----", to_move="X")
    board.push("i8")  # O XXXXX O
    assert board.outcome() is None
    assert not board.is_game_over()


def test_caro_five_blocked_at_one_end_wins() -> None:
    board = board_with_row("caro", "---OXXXX-------", to_move="X")
    board.push("i8")
    out = board.outcome()
    assert out is not None and out.winner is BLACK


def test_caro_edge_blocks_nothing() -> None:
    # a8..e8 touches the left edge and White's f8: one end blocked, so it wins
    board = board_with_row("caro", "XXXX-O---------", to_move="X")
    board.push("e8")
    out = board.outcome()
    assert out is not None and out.winner is BLACK
    assert [str(c) for c in out.cells] == ["a8", "b8", "c8", "d8", "e8"]


def test_caro_six_wins_even_when_blocked_at_both_ends() -> None:
    board = board_with_row("caro", "--OXXX-XXO-----", to_move="X")
    board.push("g8")  # O XXXXXX O
    out = board.outcome()
    assert out is not None and out.winner is BLACK and len(out.cells) == 6


def test_caro_dead_five_in_a_set_up_position_is_no_win_but_a_live_one_is() -> None:
    dead = board_with_row("caro", "---OXXXXXO-----", to_move="O")
    assert dead.outcome() is None
    live = board_with_row("caro", "XXXXXO---------", to_move="O")
    out = live.outcome()
    assert out is not None and out.winner is BLACK


def test_standard_five_blocked_at_both_ends_still_wins() -> None:
    board = board_with_row("standard", "---OXXXX-O-----", to_move="X")
    board.push("i8")
    out = board.outcome()
    assert out is not None and out.winner is BLACK


def test_full_board_without_five_is_a_draw() -> None:
    # 5x5 rows of XXOOX / OOXXO alternating blocks make no five anywhere
    rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOO-"]
    for rule in RULES:
        board = gomoku(size=5, rule=rule, position="/".join(rows) + " X")
        assert board.outcome() is None
        board.push("e1")
        out = board.outcome()
        assert out is not None and out.winner is None and out.reason == "draw"


def test_position_text_sets_up_an_unreachable_position() -> None:
    rows = ["X" * 4 + "-" * 11] + ["-" * 15] * 14
    board = gomoku(position="/".join(rows) + " O")
    assert board.turn is WHITE and board.piece_at(3, 0) is BLACK
    assert board.to_text() == "/".join(rows) + " O"


def test_a_set_up_winning_position_is_over() -> None:
    rows = ["XXXXX" + "-" * 10] + ["-" * 15] * 14
    board = gomoku(position="/".join(rows) + " O")
    out = board.outcome()
    assert out is not None and out.winner is BLACK and len(out.cells) == 5
    assert board.legal_moves == []


def test_boards_are_the_named_classes() -> None:
    assert isinstance(gomoku(rule="standard"), StandardGomokuBoard)
    assert isinstance(gomoku(rule="caro"), CaroBoard)
    assert isinstance(gomoku(rule="renju"), RenjuBoard)


# -- properties for every rule -----------------------------------------------------

RULE_NAMES = sorted(RULES)


@st.composite
def played_boards(draw: st.DrawFn) -> tuple[GomokuBoard, list[str]]:
    """A small board of any rule after a random legal sequence; also the texts seen."""
    rule = draw(st.sampled_from(RULE_NAMES))
    width = draw(st.integers(5, 9))
    height = draw(st.integers(5, 9))
    board = gomoku(size=(width, height), rule=rule, forbidden_loses=(rule == "renju" and draw(st.booleans())))
    texts = [board.to_text()]
    plies = draw(st.integers(0, width * height))
    for _ in range(plies):
        legal = board.legal_moves
        if not legal:
            break
        board.push(draw(st.sampled_from(legal)))
        texts.append(board.to_text())
    return board, texts


@settings(deadline=None)
@given(played_boards())
def test_pop_restores_every_earlier_position_exactly(sample: tuple[GomokuBoard, list[str]]) -> None:
    board, texts = sample
    forbidden_loses = isinstance(board, RenjuBoard) and board.forbidden_loses
    replay = gomoku(size=(board.width, board.height), rule=board.rule, forbidden_loses=forbidden_loses)
    snapshots = [(replay.to_text(), replay.outcome(), [str(m) for m in replay.legal_moves], replay.forbidden_points())]
    for m in board.move_stack:
        replay.push(m)
        snapshots.append((replay.to_text(), replay.outcome(), [str(m) for m in replay.legal_moves], replay.forbidden_points()))
    assert [s[0] for s in snapshots] == texts
    for expected in reversed(snapshots[:-1]):
        board.pop()
        assert (board.to_text(), board.outcome(), [str(m) for m in board.legal_moves], board.forbidden_points()) == expected


@settings(deadline=None)
@given(played_boards())
def test_position_text_round_trips(sample: tuple[GomokuBoard, list[str]]) -> None:
    board, _ = sample
    text = board.to_text()
    again = gomoku(size=(board.width, board.height), rule=board.rule, position=text)
    assert again.to_text() == text
    assert again.turn is board.turn
    assert again.forbidden_points() == board.forbidden_points()
    out, out_again = board.outcome(), again.outcome()
    if out is None or out.reason != "forbidden":  # a foul is a fact of the move, not of the stones
        assert (out is None) == (out_again is None)
        if out is not None and out_again is not None:
            assert out.winner == out_again.winner


@settings(deadline=None)
@given(played_boards())
def test_no_legal_move_after_the_end(sample: tuple[GomokuBoard, list[str]]) -> None:
    board, _ = sample
    if board.is_game_over():
        assert board.legal_moves == []
        for col, row in board.squares():
            assert not board.is_legal(board.move_at(col, row))
    else:
        assert board.legal_moves


@settings(deadline=None)
@given(played_boards(), st.data())
def test_illegal_moves_raise_and_change_nothing(sample: tuple[GomokuBoard, list[str]], data: st.DataObject) -> None:
    board, _ = sample
    legal = {(m.col, m.row) for m in board.legal_moves}
    illegal = [board.move_at(c, r) for c, r in board.squares() if (c, r) not in legal]
    before = (board.to_text(), board.move_stack, board.outcome())
    tries: list[Move | str] = ["pass", "z99"]
    if illegal:
        tries += data.draw(st.lists(st.sampled_from(illegal), min_size=1, max_size=5))
    for move in tries:
        with pytest.raises(ValueError):
            board.push(move)
        assert (board.to_text(), board.move_stack, board.outcome()) == before
