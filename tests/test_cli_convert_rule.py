"""`tabletop convert --rule`: move lists and PSQ carry no rule, so the user names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.cli import main

# Black's h12 makes six in a row (h8..h13); White plays on afterwards.
SIX_THEN_MORE = "h8 a1 h9 a2 h10 a3 h11 a5 h13 b1 h12 b2\n"


def test_an_overline_ends_a_freestyle_game_but_not_a_standard_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "game.txt"
    src.write_text(SIX_THEN_MORE)
    out = tmp_path / "game.psq"
    assert main(["convert", str(src), str(out), "--game", "gomoku"]) == 2
    assert "over" in capsys.readouterr().err and not out.exists()
    assert main(["convert", str(src), str(out), "--game", "gomoku", "--rule", "standard"]) == 0
    assert len(out.read_text().strip().splitlines()) >= 13  # header + 12 moves


def test_an_unknown_rule_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "game.txt"
    src.write_text("h8 i9\n")
    assert main(["convert", str(src), str(tmp_path / "x.psq"), "--game", "gomoku", "--rule", "zen"]) == 2
    assert "unknown gomoku rule 'zen'" in capsys.readouterr().err
