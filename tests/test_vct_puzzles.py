"""Renju VCT puzzles (continuous threes and fours) from real games, solved by the engine's solver.

``tests/data/renju/vct-puzzles.json`` holds 20 positions from games between Rapfi and
quintet-ai (renju-note/quintet, MIT; see tests/data/README.md), each with the source's
winning line.  Every line our solver claims is replayed on the rules board, and the first
move of each is checked against every defender reply (:func:`vct_holds`); a puzzle counts as
solved only then.  The count is pinned from below.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tabletop.ai.gomoku.engine import vct_holds, verified_win
from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.mnk import GomokuBoard, gomoku

PUZZLES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "renju" / "vct-puzzles.json").read_text())["cases"]
SOLVED_AT_LEAST = 18  # measured: 19 of 20 within the budgets below


def puzzle_board(case: dict[str, Any]) -> GomokuBoard:
    board = gomoku(15, "renju")
    for name in case["moves"]:
        board.push(board.parse_move(name.lower()))
    return board


def solve(board: GomokuBoard, nodes: int = 200_000) -> list[int] | None:
    pos = Position.from_board(board)
    solver = ThreatSolver(pos, max_nodes=nodes)
    line = solver.vcf()
    for depth in range(1, 9):
        if line is not None or solver.aborted:
            break
        line = solver.vct(depth=depth)
    return line


def test_the_puzzle_file_holds_twenty_positions_with_the_attacker_to_move() -> None:
    assert len(PUZZLES) == 20
    for case in PUZZLES:
        board = puzzle_board(case)
        assert board.turn.name.lower() == case["attacker"]
        assert not board.is_game_over()
        # the source's line replays legally
        after = board.copy()
        for name in case["solution"]:
            after.push(after.parse_move(name.lower()))


@pytest.mark.parametrize("case", PUZZLES, ids=[c["id"] for c in PUZZLES])
def test_no_puzzle_is_a_plain_vcf(case: dict[str, Any]) -> None:
    board = puzzle_board(case)
    assert ThreatSolver(Position.from_board(board), max_nodes=200_000).vcf() is None


def test_the_solver_solves_the_puzzles_with_claims_that_hold_against_every_defence() -> None:
    solved = 0
    started = time.perf_counter()
    for case in PUZZLES:
        board = puzzle_board(case)
        line = solve(board)
        if line is None:
            continue
        pos = Position.from_board(board)
        assert verified_win(board, pos, line) is not None, case["id"]
        # solved only when the claim holds against every defender reply (a reply whose search
        # runs out of budget counts as holding the line: the engine would not trust the claim)
        solved += vct_holds(board, pos, line, depth=8, nodes=50_000)
    assert solved >= SOLVED_AT_LEAST, f"{solved} of {len(PUZZLES)} in {time.perf_counter() - started:.1f} s"


def test_vct_holds_rejects_a_lone_three() -> None:
    # an open three is no VCT: a block at one end leaves nothing
    board = gomoku(15, "freestyle", position="/".join(
        ["-" * 15] * 7 + ["-----XX--------"] + ["-" * 15] * 5 + ["O-------------O"] + ["-------------O-"]) + " X")
    pos = Position.from_board(board)
    assert not vct_holds(board, pos, [pos.point(7, 7)], depth=4, nodes=20_000)
