"""The terminal board (``tabletop play gomoku``) shows Renju's forbidden points and the winning five."""

from __future__ import annotations

import pytest

from tabletop.cli import main
from tabletop.cli.play import render
from tabletop.games.mnk import gomoku


def test_renju_forbidden_points_are_marked_for_black() -> None:
    board = gomoku(size=9, rule="renju")
    for mv in ["e5", "a1", "d5", "a2", "f6", "a3", "f7", "a4"]:
        board.push(mv)
    assert [str(m) for m in board.forbidden_points()] == ["f5"]
    rows = render(board).plain.splitlines()
    row5 = next(r for r in rows if r.startswith("5 "))
    assert row5.split()[1:] == ["·", "·", "·", "●", "●", "×", "·", "·", "·"]
    assert sum(r.count("×") for r in rows) == 1


def test_the_winning_five_is_highlighted() -> None:
    board = gomoku(size=9)
    for mv in ["a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4", "a5"]:
        board.push(mv)
    text = render(board)
    highlighted = {text.plain[span.start : span.end] for span in text.spans if "yellow" in str(span.style)}
    assert highlighted == {"●"}
    count = sum(1 for span in text.spans if "yellow" in str(span.style))
    assert count == 5


@pytest.mark.parametrize(("args", "words"), [(["--rule", "pente"], "unknown gomoku rule"), (["--size", "30"], "out of range")])
def test_bad_rule_or_size_is_one_line_with_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "gomoku", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_the_svg_picture_crosses_renju_forbidden_points_only_for_black() -> None:
    board = gomoku(size=9, rule="renju")
    for mv in ["e5", "a1", "d5", "a2", "f6", "a3", "f7", "a4"]:
        board.push(mv)
    assert board._repr_svg_().count('stroke="#c0392b"') == 1
    board.push("a9")
    assert board._repr_svg_().count('stroke="#c0392b"') == 0
