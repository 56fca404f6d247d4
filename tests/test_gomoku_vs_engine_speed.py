"""``tabletop bench gomoku --speed`` (:mod:`tabletop.bench.gomoku_speed`) reads an engine's own speed report as
Rapfi prints it, beside level 10's search of the same stored positions."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tabletop.bench import gomoku_speed
from tabletop.cli import main
from tabletop.games.mnk import gomoku

# Rapfi 0.43's lines after YXSHOWINFO (a depth re-searched is printed twice; a mate reads -M34)
RAPFI_LIKE = """
import sys
details = False
for line in sys.stdin:
    cmd = line.strip().split(" ")[0].upper()
    if cmd == "YXSHOWINFO":
        details = True
    elif cmd == "START":
        print("OK", flush=True)
    elif cmd == "DONE" and sys.argv[1:] == ["instant"]:  # a mate seen at once, as Rapfi reports it
        print("MESSAGE Speed 14000 | Depth 8-2 | Eval M1 | Node 14 | Time 0ms", flush=True)
        print("8,7", flush=True)
    elif cmd == "DONE":
        if details:
            print("MESSAGE Depth 4-6 | Eval -31 | Time 7ms | J8 I6", flush=True)
            print("MESSAGE Depth 6-14 | Eval -16 | Time 9ms | J8 F12", flush=True)
            print("MESSAGE Depth 10-22 | Eval -117 | Time 166ms | J8 I10", flush=True)
            print("MESSAGE Depth 10-22 | Eval -M34 | Time 972ms | J8 I10", flush=True)
        print("MESSAGE Speed 164K | Depth 10-22 | Eval -M34 | Node 160K | Time 975ms", flush=True)
        print("MESSAGE Bestline J8 I10", flush=True)
        print("8,7", flush=True)
    elif cmd == "END":
        break
"""


@pytest.fixture(scope="module")
def speed() -> ModuleType:
    return gomoku_speed


def test_the_engines_report_gives_its_depths_nodes_and_time(speed: ModuleType, tmp_path: Path) -> None:
    script = tmp_path / "rapfi_like.py"
    script.write_text(textwrap.dedent(RAPFI_LIKE))
    board = gomoku(15, "renju")
    for move in ("h8", "h9", "i9"):
        board.push(move)
    side = speed.theirs(f"{sys.executable} {script}", board, 1.0, 0.0)
    assert side.move == "i8"  # X 8, Y 7 from the top
    assert side.reached == {4: 7.0, 6: 9.0, 10: 166.0}  # the first time depth 10 was completed
    assert (side.depth, side.selective_depth, side.nodes, side.milliseconds) == (10, 22, 160_000, 975.0)
    assert side.nodes_per_second == pytest.approx(160_000 / 0.975)
    assert side.score == "-M34"


def test_the_stored_positions_are_twenty_middle_games_of_each_rule(speed: ModuleType) -> None:
    data = json.loads(speed.POSITIONS.read_text())["positions"]
    for rule in ("freestyle", "renju"):
        assert len(data[rule]) == 20
        for moves in data[rule]:
            board = speed.replay(rule, moves)
            assert 20 <= len(moves) <= 24 and not board.is_game_over()


def test_a_search_reported_in_no_time_is_read_too(speed: ModuleType, tmp_path: Path) -> None:
    script = tmp_path / "rapfi_like.py"
    script.write_text(textwrap.dedent(RAPFI_LIKE))
    board = gomoku(15)
    for move in ("h8", "h9", "i9"):  # more than one stone: the position goes as BOARD
        board.push(move)
    side = speed.theirs(f"{sys.executable} {script} instant", board, 1.0, 0.0)
    assert (side.depth, side.nodes, side.milliseconds, side.score) == (8, 14, 0.0, "M1")
    assert side.nodes_per_second == 0.0 and side.reached == {}


def test_bench_gomoku_speed_prints_our_search_beside_the_engines_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "rapfi_like.py"
    script.write_text(textwrap.dedent(RAPFI_LIKE))
    monkeypatch.setattr(gomoku_speed, "load_positions", lambda: {"renju": [["h8", "h9", "i9", "g7"]]})
    code = main(["bench", "gomoku", "--speed", "--vs", f"{sys.executable} {script}", "--think", "0.2",
                 "--rule", "renju", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    (position,) = report["rules"]["renju"]["positions"]
    assert position["theirs"]["nodes"] == 160_000 and position["theirs"]["depth"] == 10
    assert position["ours"]["depth"] >= 2 and position["ours"]["nodes"] > 0
    assert 0 < position["turn"]["ms"] < 2000 and position["turn"]["depth"] >= 2
    assert report["rules"]["renju"]["summary"]["theirs_ms_d4"] == 7.0


def test_bench_gomoku_speed_names_a_rule_without_positions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "gomoku", "--speed", "--rule", "caro", "--think", "0.1"]) == 2
    assert "no stored positions for caro" in capsys.readouterr().err
