"""Threat-space search: VCF and VCT on positions built by hand, Renju-aware."""

from __future__ import annotations

from gomoku_boards import board_with
from tabletop.ai.gomoku import find_vcf, find_vct
from tabletop.ai.gomoku import patterns as P
from tabletop.ai.gomoku.engine import verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.mnk import GomokuBoard, gomoku

# A chain of broken fours built on a 20x20 board: seven lines, each holding the
# corner stone of the last, two stones of its own and a gap; each line's far
# corner is the next attacking point, and each line's back end is closed by a
# White stone so that no three is open.  The corners run (1,9) up to (1,5),
# diagonally to (5,9), up to (5,5), diagonally up to (9,1), down to (9,5), right
# to (13,5) and diagonally up to (17,1), where two stones wait for the last four.
LONG_VCF = (
    "---------O----------/------------------XX/---------X----------/-------X-------X----/"
    "O-----X--X----X-----/--------O-XX--------/-XX-OX------O-------/-----X--------------/"
    "-X--X---------------/-X------------------/-O---O--------------/" + "/".join(["-" * 20] * 9) + " X"
)


def test_vcf_of_at_least_seven_fours_is_found_and_replays_on_the_rules_board() -> None:
    board = gomoku(20, position=LONG_VCF)
    pos = Position.from_board(board)
    assert find_vcf(pos, depth=6) is None, "no VCF of six fours or fewer exists here"
    line = find_vcf(pos, depth=12)
    assert line is not None
    attacker_moves = line[0::2]
    assert len(attacker_moves) - 1 >= 7  # fours before the five
    # every attacking move but the five is a four: the defender's reply is forced
    check = Position.from_board(board)
    for i, p in enumerate(line[:-1]):
        if i % 2 == 0:
            assert check.pattern(1, p) in (P.BLOCK4, P.FLEX4)
        else:
            assert check.five_points(1) == [p] or len(check.five_points(1)) >= 2
        check.play(p)
    win = verified_win(board, pos, line)
    assert win is not None and len(win) == len(line)
    assert pos.stone_count() == 24  # the solver left the position as it found it


def test_open_four_wins_at_once() -> None:
    board = board_with([(5, 7), (6, 7), (7, 7)], [(5, 5), (9, 3), (2, 2)])
    line = find_vcf(Position.from_board(board))
    assert line is not None and len(line) == 3  # the open four, a block, the five


def test_no_vcf_without_fours() -> None:
    board = board_with([(5, 7), (7, 9)], [(6, 8)])
    assert find_vcf(Position.from_board(board)) is None


def _fork_position() -> tuple[GomokuBoard, int]:
    # Black's (8,7) makes two open threes at once (row 7 and column 8)
    board = board_with([(6, 7), (7, 7), (8, 5), (8, 6)], [(2, 12), (12, 2), (13, 13), (1, 1)])
    return board, Position.from_board(board).point(8, 7)


def test_double_three_fork_is_a_vct_and_no_defence_stops_it() -> None:
    board, fork = _fork_position()
    pos = Position.from_board(board)
    line = find_vct(pos, depth=4)
    assert line is not None
    assert verified_win(board, pos, line) is not None
    assert ThreatSolver(pos).refutation(fork) is None


def test_defence_refutes_a_false_vct() -> None:
    # Black's (7,7) makes a lone open three (row 7): it looks like an attack, but
    # blocking either end leaves Black nothing, so it is no VCT
    board = board_with([(5, 7), (6, 7), (2, 2)], [(12, 12), (12, 2), (2, 12)])
    pos = Position.from_board(board)
    attack = pos.point(7, 7)
    defence = ThreatSolver(pos).refutation(attack)
    assert defence is not None and defence >= 0
    blocks = {pos.point(c, 7) for c in (3, 4, 8, 9)}
    assert defence in blocks
    pos.play(attack)
    pos.play(defence)
    assert find_vct(pos, depth=4) is None, "after the defence Black has no continuous threats left"
    pos.undo()
    pos.undo()
    # a move that ignores the three loses to it
    pos.play(attack)
    pos.play(pos.point(12, 7))
    assert find_vct(pos, depth=4) is not None


def test_refutation_out_of_budget_does_not_claim_the_attack_wins() -> None:
    # the same lone open three: with a budget of one node no defence is searched to
    # the end, so the solver must not report that every defence loses
    board = board_with([(5, 7), (6, 7), (2, 2)], [(12, 12), (12, 2), (2, 12)])
    pos = Position.from_board(board)
    defence = ThreatSolver(pos, max_nodes=1).refutation(pos.point(7, 7))
    assert defence is not None


def _double_four_position(rule: str) -> GomokuBoard:
    # Black's (8,7) makes two fours at once (row 7 and column 8), each closed at one end
    return board_with([(5, 7), (6, 7), (7, 7), (8, 4), (8, 5), (8, 6)], [(4, 7), (8, 3), (1, 13), (13, 1), (13, 13)],
                      rule=rule)


def test_black_vcf_through_a_double_four_wins_in_freestyle() -> None:
    board = _double_four_position("freestyle")
    pos = Position.from_board(board)
    line = find_vcf(pos)
    assert line is not None and line[0] == pos.point(8, 7)
    assert verified_win(board, pos, line) is not None


def test_black_vcf_through_a_forbidden_point_is_rejected_under_renju() -> None:
    board = _double_four_position("renju")
    assert board.forbidden(board.move_at(8, 7)) == "double-four"
    pos = Position.from_board(board)
    line = find_vcf(pos)
    assert line is None or pos.point(8, 7) not in line[0::2]
    if line is not None:  # any other VCF must replay legally
        assert verified_win(board, pos, line) is not None


def test_white_may_win_through_the_same_shape_under_renju() -> None:
    # the same shape with colours exchanged: White has no forbidden points
    black = [(4, 7), (8, 3), (1, 13), (13, 1), (13, 13), (0, 0)]
    white = [(5, 7), (6, 7), (7, 7), (8, 4), (8, 5), (8, 6)]
    board = board_with(black, white, rule="renju", turn="O")
    pos = Position.from_board(board)
    line = find_vcf(pos)
    assert line is not None and line[0] == pos.point(8, 7)
    assert verified_win(board, pos, line) is not None


def test_solver_respects_its_node_budget() -> None:
    board = gomoku(20, position=LONG_VCF)
    solver = ThreatSolver(Position.from_board(board), max_nodes=5)
    assert solver.vcf(depth=12) is None
    assert solver.nodes <= 6
