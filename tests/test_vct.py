"""VCT solver: claimed wins checked against every defender reply on the rules board."""

from __future__ import annotations

from gomoku_boards import board_with
from tabletop.ai.gomoku import find_vct
from tabletop.ai.gomoku.engine import verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.ai.gomoku.vctcheck import unbeaten_replies

# Black (6,7),(7,7) on row 7 and (8,5),(8,6) on column 8: Black's (8,7) makes two
# open threes at once.  White's scattered stones make no threat.
FORK_BLACK = [(6, 7), (7, 7), (8, 5), (8, 6)]
FAR_WHITE = [(2, 12), (12, 2), (13, 13), (1, 1)]


def test_a_real_vct_wins_against_every_defender_reply() -> None:
    board = board_with(FORK_BLACK, FAR_WHITE)
    pos = Position.from_board(board)
    line = find_vct(pos, depth=4)
    assert line is not None
    assert verified_win(board, pos, line) is not None
    # not a plain VCF: Black has no four on the board
    assert ThreatSolver(Position.from_board(board)).vcf() is None
    assert unbeaten_replies(board, line, depth=4, levels=2) == []


def test_the_checker_finds_the_reply_that_beats_a_false_attack() -> None:
    # a lone open three is no VCT: blocking an end leaves Black nothing
    board = board_with([(5, 7), (6, 7), (2, 2)], [(12, 12), (12, 2), (2, 12)])
    pos = Position.from_board(board)
    bad = unbeaten_replies(board, [pos.point(7, 7)], depth=3, levels=1, nodes=20_000)
    replies = {moves[1] for moves, _ in bad}
    ends = {str(board.move_at(c, 7)) for c in (4, 8)}
    assert ends <= replies
    assert str(board.move_at(12, 7)) not in replies  # ignoring the three loses


def test_a_fork_is_no_vct_when_the_defender_has_an_open_three() -> None:
    # the fork of FORK_BLACK, but White has an open three on row 12 (cols 3..5, ends
    # open): against Black's double three White makes an open four and wins first
    white = [(3, 12), (4, 12), (5, 12), (13, 1)]
    board = board_with(FORK_BLACK, white)
    pos = Position.from_board(board)
    fork = pos.point(8, 7)
    assert find_vct(pos, depth=4) is None
    defence = ThreatSolver(pos).refutation(fork)
    assert defence is not None and defence >= 0
    assert board.move_at(*pos.col_row(defence)).row == board.move_at(3, 12).row  # a White four on row 12
    # the checker, trying every White reply on the rules board, finds that one too
    bad = unbeaten_replies(board, [fork], depth=3, levels=1, nodes=20_000)
    assert str(pos.to_move(board, defence)) in {moves[1] for moves, _ in bad}
    # without White's three the same fork wins (the first test)


def test_black_vct_through_a_forbidden_point_is_rejected_under_renju() -> None:
    board = board_with(FORK_BLACK, FAR_WHITE, rule="renju")
    assert board.forbidden(board.move_at(8, 7)) == "double-three"
    pos = Position.from_board(board)
    line = find_vct(pos, depth=4)
    # the fork is no first move; later in a line the point may have become legal
    # (a four-three is no foul), and every Black move is replayed on the rules board
    assert line is None or line[0] != pos.point(8, 7)
    if line is not None:
        assert verified_win(board, pos, line) is not None
    # White, with no forbidden points, wins through the same shape
    white = board_with(FAR_WHITE + [(0, 14)], FORK_BLACK, rule="renju", turn="O")
    wpos = Position.from_board(white)
    wline = find_vct(wpos, depth=4)
    assert wline is not None and verified_win(white, wpos, wline) is not None


def test_an_open_four_against_a_black_foul_block_is_a_verified_win_under_renju() -> None:
    # White's (9,7) makes an open four (5..8 on row 7 become 5..9) whose left end
    # (4,7) is a double-three for Black (column 4 and the diagonal through it);
    # the line must name the legal block, so that it replays on the rules board
    black = [(4, 6), (4, 8), (3, 6), (5, 8), (1, 1), (13, 13)]
    white = [(6, 7), (7, 7), (8, 7), (12, 1), (1, 12), (13, 1)]
    board = board_with(black, white, rule="renju", turn="O")
    assert board.forbidden(board.move_at(4, 7)) is not None
    pos = Position.from_board(board)
    line = ThreatSolver(pos).vcf()
    assert line is not None
    assert verified_win(board, pos, line) is not None
