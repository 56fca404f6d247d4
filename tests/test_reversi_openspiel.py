"""Independent cross-check: random games agree move for move with OpenSpiel's ``othello``."""

from __future__ import annotations

import pyspiel

from tabletop.bench.reversi import OPENSPIEL_PASS, crosscheck_openspiel, openspiel_bitboards, openspiel_perft
from tabletop.games import reversi


def test_openspiel_numbers_placements_by_row_from_the_top_and_pass_as_64() -> None:
    state = pyspiel.load_game("othello").new_initial_state()
    names = {state.action_to_string(a): a for a in state.legal_actions()}
    board = reversi.Board()
    assert {str(m): m.row * 8 + m.col for m in board.legal_moves} == names
    assert openspiel_bitboards(state) == board.bitboards()
    assert pyspiel.load_game("othello").num_distinct_actions() == OPENSPIEL_PASS + 1


def test_two_thousand_random_games_agree_with_openspiel_move_for_move() -> None:
    # legal moves, board after every move (so every flip), passes and winners
    moves, passes = crosscheck_openspiel(2000, seed=20261122)
    assert moves > 2000 * 55
    assert passes > 0  # the games did exercise forced passes


def test_openspiel_walk_uses_the_same_perft_convention() -> None:
    assert openspiel_perft(6) == reversi.perft(reversi.Board(), 6) == 8200
