"""``tabletop solve``: exact results per OBF line, JSON records, bad lines named and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.records.obf import parse_obf_line

DATA = Path(__file__).parent / "data" / "othello"
FFO = (DATA / "fforum-1-19.obf").read_text().splitlines()


def test_json_gives_one_record_per_position_matching_the_annotation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "three.obf"
    source.write_text("\n".join(FFO[:3]) + "\n")
    assert main(["solve", str(source), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 3
    for record, line in zip(records, FFO[:3], strict=True):
        assert set(record) == {"position", "best_moves", "score", "nodes", "seconds", "expected_score"}
        assert record["score"] == record["expected_score"] == parse_obf_line(line).expected_score
        assert record["position"] == line[:66]
        assert record["nodes"] > 0


def test_text_output_says_whether_the_annotation_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", FFO[0]]) == 0
    out = capsys.readouterr().out
    assert "g8" in out and "+18" in out and "ok" in out


def test_a_wrong_annotation_is_reported_as_a_mismatch(capsys: pytest.CaptureFixture[str]) -> None:
    wrong = FFO[0].split(";")[0] + "; G8:+20;"
    assert main(["solve", wrong]) == 0
    assert "MISMATCH" in capsys.readouterr().out


def test_a_malformed_line_is_named_and_the_others_are_solved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mixed.obf"
    source.write_text(FFO[1] + "\n" + "XO-- X\n" + FFO[1][:64] + " Z;\n" + FFO[2] + "\n")
    assert main(["solve", str(source), "--json"]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    errors = captured.err.splitlines()
    assert any("line 2" in e and "64 squares" in e for e in errors)
    assert any("line 3" in e and "side to move" in e for e in errors)
    assert "Traceback" not in captured.err


def test_a_finished_game_is_scored_without_a_move(capsys: pytest.CaptureFixture[str]) -> None:
    full = "X" * 40 + "O" * 24
    assert main(["solve", full + " O", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["best_moves"] == [] and record["score"] == -16


def test_missing_file_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "/nonexistent/positions.obf"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("-" * 63 + " X", "64 squares"),
        ("-" * 63 + "Q X", "square 64"),
        ("-" * 64 + " X; G8+18;", "MOVE:SCORE"),
    ],
)
def test_parse_errors_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_obf_line(line)
