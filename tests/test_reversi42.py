"""The reversi42 adapter of ``tabletop.bench.reversi42`` speaks NBoard and plays legal moves.

The first run installs reversi42 (pinned) into ``.bench-envs/reversi42`` from
the package index, about a minute; later runs reuse it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tabletop.ai.base import Limit
from tabletop.bench.reversi42 import main, reversi42_command
from tabletop.games.reversi import Board
from tabletop.protocols.nboard import NBoardPlayer

ROOT = Path(__file__).resolve().parents[1]


def test_adapter_answers_legal_moves_through_our_manager() -> None:
    command = reversi42_command(ROOT, 2)
    rng = random.Random(7)
    board = Board()
    theirs = NBoardPlayer(command, timeout=120.0)
    try:
        for _ in range(3):
            for _ in range(rng.randrange(2, 12)):
                if board.is_game_over():
                    break
                board.push(rng.choice(list(board.legal_moves)))
            if board.is_game_over():
                break
            move = theirs.choose(board.copy(), Limit(seconds=60))
            assert move in list(board.legal_moves)
            board.push(move)
    finally:
        theirs.close()


def test_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["0"]) == 2
    err = capsys.readouterr().err
    assert "games must be" in err and len(err.strip().splitlines()) == 1
