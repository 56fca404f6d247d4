"""The reversi42 adapter of ``tabletop.bench.reversi42`` speaks NBoard and plays legal moves.

The first run installs reversi42 (pinned) into ``.bench-envs/reversi42`` from
the package index (uv: seconds; pip, where uv is not found: a minute or two); later
runs reuse it.
"""

from __future__ import annotations

import json
import random
import shlex
import subprocess
from pathlib import Path

import pytest

from tabletop.ai.base import Limit
from tabletop.bench.reversi42 import main, reversi42_command
from tabletop.cli import main as cli_main
from tabletop.games.core import Move
from tabletop.games.reversi import Board
from tabletop.protocols.nboard import NBoardPlayer, game_to_ggf, move_text

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
    assert "games and jobs must be" in err and len(err.strip().splitlines()) == 1


def _ask(command: str, ggf: str) -> str:
    """The adapter's move (``F5``, ``PA``) for the game ``ggf``, over raw NBoard."""
    script = f"nboard 2\nset game {ggf}\nping 1\ngo\nquit\n"
    out = subprocess.run(shlex.split(command), input=script, capture_output=True, text=True, timeout=300, check=True)
    return next(line for line in out.stdout.splitlines() if line.startswith("===")).split()[1]


def _line_with_a_pass() -> list[Move]:
    """The moves of a seeded random game up to one move after its first pass."""
    for seed in range(1000):
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            if move.is_pass and not board.is_game_over():
                board.push(rng.choice(list(board.legal_moves)))
                return list(board.move_stack)
    raise AssertionError("no random game with a pass in 1000 seeds")


def test_adapter_plays_from_a_game_given_as_moves_from_the_start() -> None:
    """``set game`` with the start position and its moves (a pass among them) gives the
    same position as the game's final board sent alone: the same legal answer."""
    command = reversi42_command(ROOT, 2)
    start = game_to_ggf(Board())[: -len(";)")]
    rng = random.Random(3)
    lines = [_line_with_a_pass()]
    for _ in range(2):
        board = Board()
        for _ in range(rng.randrange(4, 20)):
            board.push(rng.choice(list(board.legal_moves)))
        lines.append(list(board.move_stack))
    for line in lines:
        board = Board()
        tags = ""
        for move in line:
            tags += f"{'B' if board.turn.name == 'BLACK' else 'W'}[{move_text(move)}]"
            board.push(move)
        as_moves = _ask(command, start + tags + ";)")
        alone = _ask(command, game_to_ggf(board))
        assert as_moves == alone
        assert board.parse_move(as_moves.lower()) in list(board.legal_moves)


def test_cli_match_pairs_each_opening_with_both_colours(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["bench", "reversi", "--vs-reversi42", "4", "--r42-depth", "1", "--think", "0.05",
                     "--jobs", "2", "--seed", "5", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    record = result["record"]
    assert [r["game"] for r in record] == [1, 2, 3, 4]
    assert record[0]["opening"] == record[1]["opening"] != record[2]["opening"] == record[3]["opening"]
    assert all(len(r["opening"].split()) == 4 for r in record)
    assert [r["we_play"] for r in record] == ["black", "white", "black", "white"]
    assert result["score"] == sum({"win": 1.0, "draw": 0.5, "loss": 0.0}[r["result"]] for r in record)
    assert result["ours_s_per_move"] > 0 and result["theirs_s_per_move"] > 0


def test_cli_bad_match_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["bench", "reversi", "--vs-reversi42", "0"]) == 2
    err = capsys.readouterr().err
    assert "--vs-reversi42" in err and len(err.strip().splitlines()) == 1
