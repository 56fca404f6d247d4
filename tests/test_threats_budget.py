"""The threat solvers leave the position as they found it when their budget runs out mid-line.

Before the fix, a node or time budget that ran out inside a line skipped the
recursion's undo calls: the stones of the unfinished line stayed on the
engine's position, so the engine's search and its safety check that followed
worked on a position with extra stones (found while looking at Renju level 5's
games: 6 of about 3,300 level-5 safety checks in 98 games left stones behind, and
with a 3,000-node VCT turned on many more).
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.ai.gomoku.position import Position
from tabletop.ai.gomoku.threats import ThreatSolver
from tabletop.games.mnk import gomoku
from test_vcf import LONG_VCF


def _snapshot(pos: Position) -> tuple[int, int, list[int], np.ndarray, np.ndarray]:
    return pos.turn, pos.hash, list(pos.history), pos.cells.copy(), pos.pscore.copy()


def _same(pos: Position, snap: tuple[int, int, list[int], np.ndarray, np.ndarray]) -> bool:
    turn, h, history, cells, pscore = snap
    return (pos.turn == turn and pos.hash == h and pos.history == history
            and bool((pos.cells == cells).all()) and bool((pos.pscore == pscore).all()))


@pytest.mark.parametrize("nodes", [3, 8, 15])
def test_vcf_out_of_budget_mid_line_restores_the_position(nodes: int) -> None:
    pos = Position.from_board(gomoku(20, position=LONG_VCF))
    pos.play(pos.point(0, 19))  # a stone played before the solver is called stays
    pos.play(pos.point(19, 19))
    snap = _snapshot(pos)
    solver = ThreatSolver(pos, max_nodes=nodes)
    assert solver.vcf(depth=12) is None  # the seven-four line needs 18 nodes
    assert solver.nodes > nodes  # it did run out of budget, inside the line
    assert _same(pos, snap)
    assert ThreatSolver(pos).vcf(depth=12) is not None  # and the full search still finds it


@pytest.mark.parametrize("nodes", [2, 5, 12])
def test_vct_out_of_budget_mid_line_restores_the_position(nodes: int) -> None:
    pos = Position.from_board(gomoku(20, position=LONG_VCF))
    snap = _snapshot(pos)
    solver = ThreatSolver(pos, max_nodes=nodes)
    assert solver.vct(depth=4) is None
    assert solver.nodes > nodes
    assert _same(pos, snap)


@pytest.mark.parametrize("nodes", [2, 5, 12])
def test_refutation_out_of_budget_restores_the_position(nodes: int) -> None:
    pos = Position.from_board(gomoku(20, position=LONG_VCF))
    snap = _snapshot(pos)
    # Black attacks with a quiet move far away; each White defence is then searched with the budget
    solver = ThreatSolver(pos, max_nodes=nodes)
    solver.refutation(pos.point(19, 19), depth=4)
    assert solver.nodes > nodes
    assert _same(pos, snap)
