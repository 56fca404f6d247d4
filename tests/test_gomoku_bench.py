"""``tabletop bench gomoku`` runs end to end and reports every figure with its reference."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tabletop.cli import main


def test_bench_gomoku_reports_playouts_and_the_forbidden_scan(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "gomoku", "--seconds", "0.05", "--positions", "5", "--json", "--no-engine"])
    assert code == 0
    figures = json.loads(capsys.readouterr().out)
    for key in ("freestyle_playouts_per_s", "mnk_reference_playouts_per_s", "renju_playouts_per_s", "scan_mean_us", "naive_scan_mean_us"):
        assert figures[key] > 0
    assert figures["scan_positions"] == 5


FIRST_EMPTY = """
import sys
taken = set()
board = None
for line in sys.stdin:
    text = line.strip()
    cmd = text.split(" ")[0].upper()
    if board is not None:
        if cmd == "DONE":
            taken, board = set(board), None
        else:
            board.append(tuple(int(v) for v in text.split(",")[:2]))
            continue
    if cmd == "START":
        print("OK", flush=True)
    elif cmd == "ABOUT":
        print('name="first-empty", version="1"', flush=True)
    elif cmd == "RESTART":
        taken = set()
        print("OK", flush=True)
    elif cmd == "BOARD":
        board = []
        continue
    elif cmd == "TURN":
        taken.add(tuple(int(v) for v in text.split(" ")[1].split(",")))
    elif cmd == "END":
        break
    if cmd in ("BEGIN", "TURN", "DONE"):
        move = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        taken.add(move)
        print(f"{move[0]},{move[1]}", flush=True)
"""


def test_bench_gomoku_vs_plays_level_10_against_the_engine_through_the_match_runner(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "first_empty.py"
    script.write_text(FIRST_EMPTY)
    log = tmp_path / "games.jsonl"
    code = main(["bench", "gomoku", "--vs", f"{sys.executable} {script}", "--games", "2", "--think", "0.2",
                 "--rule", "renju", "--log", str(log), "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["games"], summary["wins"], summary["failures"]) == (2, 2, [])
    assert summary["rule"] == "renju" and summary["engine"].endswith("first_empty.py")
    assert summary["about"] == 'name="first-empty", version="1"'
    assert summary["a_seconds_per_move"] > 0 and summary["b_seconds_per_move"] > 0
    games = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(g["spec"]["a_is_black"] for g in games) == [False, True]  # one game with each colour
    assert all(g["spec"]["b"] == f"gomocup:{sys.executable} {script}" for g in games)


def test_bench_gomoku_vs_names_a_bad_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "gomoku", "--vs", "pbrain-anything", "--rule", "go"]) == 2
    assert "--rule 'go' is not a Gomoku rule" in capsys.readouterr().err


def test_bench_gomoku_vs_an_engine_that_cannot_start_is_an_error_not_a_won_match(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "gomoku", "--vs", "/nonexistent/pbrain-nothing", "--games", "2"]) == 2
    assert "--vs: cannot start the engine" in capsys.readouterr().err
