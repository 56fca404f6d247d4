"""``tabletop convert``: formats by extension or flag, one-line errors, nothing written on error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop import records
from tabletop.cli import main

DATA = Path(__file__).parent / "data"


def test_convert_chooses_formats_by_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "game.txt"
    source.write_text("f5d6c3d3c4f4f6f3e6e7\n")
    assert main(["convert", str(source), str(tmp_path / "game.sgf")]) == 0
    assert main(["convert", str(tmp_path / "game.sgf"), str(tmp_path / "game.ggf")]) == 0
    ggf = (tmp_path / "game.ggf").read_text()
    assert ggf.startswith("(;GM[Othello]")
    assert records.read(ggf, "ggf")[0].moves == ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"]


def test_convert_takes_formats_from_flags_and_dashes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.dat"
    first, second = records.read((DATA / "records" / "two-games.ggf").read_text(), "ggf")
    source.write_text(records.write([first], "ggf"))
    assert main(["convert", str(source), "-", "--from", "ggf", "--to", "transcript"]) == 0
    assert capsys.readouterr().out == "f5d6c3d3c4\n"
    # a game from a custom start has no transcript form: refused, not mangled
    source.write_text(records.write([second], "ggf"))
    assert main(["convert", str(source), "-", "--from", "ggf", "--to", "transcript"]) == 2
    assert "custom start position" in capsys.readouterr().err


def test_convert_gomoku_transcript_to_sgf(tmp_path: Path) -> None:
    source = tmp_path / "g.txt"
    source.write_text("h8 i9 j10\n")
    assert main(["convert", str(source), str(tmp_path / "g.sgf"), "--game", "gomoku"]) == 0
    assert ";B[hh];W[ig];B[jf]" in (tmp_path / "g.sgf").read_text()


def test_obf_file_converts_through_the_registry(tmp_path: Path) -> None:
    target = tmp_path / "copy.obf"
    assert main(["convert", str(DATA / "othello" / "fforum-1-19.obf"), str(target)]) == 0
    assert len(records.read(target.read_text(), "obf")) == 19


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.txt", "f5d6c3d3c4f4f6f3e6e7a1\n", "line 1, column 21: move 11 (a1)"),
        ("bad.ggf", "(;GM[Othello]B[f5]W[e6];)", "move 2 (e6)"),
        ("bad.sgf", "(;GM[2]SZ[8];B[fe]", "not closed"),
    ],
)
def test_a_bad_record_is_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, message: str
) -> None:
    source = tmp_path / name
    source.write_text(content)
    target = tmp_path / "out.sgf" if not name.endswith(".sgf") else tmp_path / "out.ggf"
    assert main(["convert", str(source), str(target)]) == 2
    err = capsys.readouterr().err
    assert message in err and name in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no output, no temporary file left


def test_an_existing_output_survives_a_failed_conversion(tmp_path: Path) -> None:
    target = tmp_path / "keep.sgf"
    target.write_text("precious")
    source = tmp_path / "bad.txt"
    source.write_text("f5 f5\n")
    assert main(["convert", str(source), str(target)]) == 2
    assert target.read_text() == "precious"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["convert", "x.docx", "y.sgf"], "extension"),
        (["convert", "x.txt", "y.sgf", "--to", "pgn"], "unknown format"),
        (["convert", "missing.txt", "y.sgf"], "cannot read"),
        (["convert", "-", "y.sgf"], "--from"),
    ],
)
def test_convert_refuses_bad_arguments_in_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "y.sgf").exists()
