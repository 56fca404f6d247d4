"""Opening names (issue 44 point 6): the standard Othello openings by their move sequences and the
26 renju openings by their first three stones, under the board's 8 symmetries, from the data files
shipped in the package."""

from __future__ import annotations

import doctest
import json
from importlib import resources

import pytest

import tabletop.games.opening_names
from tabletop.games import reversi
from tabletop.games.core import column_letter
from tabletop.games.opening_names import opening_name, opening_names, opening_table

RENJU = {"size": 15, "rule": "renju"}


def data(name: str) -> dict[str, object]:
    text = resources.files("tabletop").joinpath("data", "openings", name).read_text(encoding="utf-8")
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def test_module_examples_run() -> None:
    result = doctest.testmod(tabletop.games.opening_names)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("name", ["othello.json", "renju.json"])
def test_each_data_file_names_its_sources_and_the_readme_lists_it(name: str) -> None:
    sources = data(name)["sources"]
    assert isinstance(sources, list) and sources and all(isinstance(s, str) and len(s) > 20 for s in sources)
    readme = resources.files("tabletop").joinpath("data", "README.md").read_text(encoding="utf-8")
    assert f"openings/{name}" in readme


# -- renju ---------------------------------------------------------------------------------------------


def symmetric_images(moves: list[str], size: int = 15) -> list[list[str]]:
    """``moves`` (renju notation) under the 8 symmetries of a ``size`` board, turned about its centre."""
    c = (size - 1) // 2
    maps = [
        lambda x, y: (x, y), lambda x, y: (-x, y), lambda x, y: (x, -y), lambda x, y: (-x, -y),
        lambda x, y: (y, x), lambda x, y: (-y, x), lambda x, y: (y, -x), lambda x, y: (-y, -x),
    ]
    images = []
    for f in maps:
        image = []
        for move in moves:
            x, y = f(ord(move[0]) - ord("a") - c, int(move[1:]) - 1 - c)
            image.append(f"{column_letter(x + c)}{y + c + 1}")
        images.append(image)
    return images


RENJU_OPENINGS = data("renju.json")["openings"]


def test_there_are_twenty_six_renju_openings_thirteen_direct_and_thirteen_indirect() -> None:
    assert isinstance(RENJU_OPENINGS, list) and len(RENJU_OPENINGS) == 26
    assert len({o["name"] for o in RENJU_OPENINGS}) == 26
    assert sorted(o["kind"] for o in RENJU_OPENINGS) == ["direct"] * 13 + ["indirect"] * 13


@pytest.mark.parametrize("opening", RENJU_OPENINGS, ids=[o["name"] for o in RENJU_OPENINGS])
def test_each_renju_opening_is_found_under_all_eight_symmetries(opening: dict[str, str]) -> None:
    moves = opening["moves"].split()
    for image in symmetric_images(moves):
        found = opening_name("gomoku", image, RENJU)
        assert found is not None and found.name == opening["name"], image
        assert (found.ply, found.code, found.family) == (3, opening["code"], "renju")
        # Black's two stones in the other order make the same position
        swapped = opening_name("gomoku", [image[2], image[1], image[0]], RENJU)
        assert swapped is not None and swapped.name == opening["name"]
    # on a 19x19 board the pattern is about that board's centre, k10
    shifted = [f"{column_letter(ord(m[0]) - ord('a') + 2)}{int(m[1:]) + 2}" for m in moves]
    found = opening_name("gomoku", shifted, {"size": 19})
    assert found is not None and (found.name, found.line) == (opening["name"], tuple(shifted))


def test_every_legal_three_stone_start_has_exactly_one_of_the_twenty_six_names() -> None:
    """Black at the centre, White in the 3x3 around it, Black in the 5x5: 8 x 23 starts, each named."""
    seen: dict[str, int] = {}
    for wx in range(6, 9):
        for wy in range(7, 10):
            if (wx, wy) == (7, 8):
                continue
            for bx in range(5, 10):
                for by in range(6, 11):
                    if (bx, by) in ((7, 8), (wx, wy)):
                        continue
                    moves = ["h8", f"{column_letter(wx)}{wy}", f"{column_letter(bx)}{by}"]
                    found = opening_name("gomoku", moves, RENJU)
                    assert found is not None, moves
                    seen[found.name] = seen.get(found.name, 0) + 1
    assert len(seen) == 26 and sum(seen.values()) == 8 * 23


def test_a_renju_name_holds_for_the_rest_of_the_game_and_needs_the_centre() -> None:
    game = ["h8", "i9", "j10", "g7", "k11", "h9"]  # Chosei, then play goes on
    assert [(o.name, o.ply) for o in opening_names("gomoku", game, RENJU)] == [("Chosei", 3)]
    assert opening_name("gomoku", ["h8", "h9"], RENJU) is None  # two stones are no pattern yet
    assert opening_name("gomoku", ["a1", "a2", "a3"], RENJU) is None  # not at the centre
    assert opening_name("gomoku", ["h8", "h10", "i9"], RENJU) is None  # White not next to Black
    assert opening_name("gomoku", ["h8", "h9", "h10"], {"size": 14}) is None  # no centre point
    assert opening_name("tictactoe", ["b2", "a1", "c3"]) is None


# -- Othello -------------------------------------------------------------------------------------------

OTHELLO_OPENINGS = data("othello.json")["openings"]


@pytest.mark.parametrize(
    ("moves", "name"),
    [
        ("f5 d6 c3 d3 c4", "Tiger"),
        ("f5 d6 c5 f4 e3 c6 d3 f6 e6 d7", "Rose"),
        ("f5 f6 e6 f4 c3", "Buffalo / Kenichi Variation"),
        ("f5 f6 e6 f4 g5", "Heath / Tobidashi"),
        ("f5 f6 e6 f4 e3", "Cow"),
        ("f5 f6 e6 f4 e3 d6", "Chimney"),
        ("f5 d6", "Perpendicular Opening"),
        ("f5 f6", "Diagonal Opening"),
        ("f5 f4", "Parallel Opening"),
    ],
)
def test_known_othello_lines_are_named_in_every_orientation(moves: str, name: str) -> None:
    line = moves.split()
    found = opening_name("reversi", line)
    assert found is not None and (found.name, found.ply, found.family) == (name, len(line), "othello")
    # the four symmetries of the start position give the four first moves; each is the same opening
    for transform in (
        lambda c, r: (c, r), lambda c, r: (7 - c, 7 - r), lambda c, r: (r, c), lambda c, r: (7 - r, 7 - c)
    ):
        image = []
        for move in line:
            c, r = transform(ord(move[0]) - ord("a"), int(move[1]) - 1)
            image.append(f"{column_letter(c)}{r + 1}")
        board = reversi.Board()
        for move in image:
            board.push(move)  # the image is a legal game
        found = opening_name("reversi", image, {"size": 8})
        assert found is not None and found.name == name, image


def test_every_named_othello_line_is_a_legal_game_with_one_name() -> None:
    assert isinstance(OTHELLO_OPENINGS, list) and len(OTHELLO_OPENINGS) >= 70
    lines = [o["moves"] for o in OTHELLO_OPENINGS]
    assert len(set(lines)) == len(lines)
    for opening in OTHELLO_OPENINGS:
        board = reversi.Board()
        for move in opening["moves"].split():
            board.push(move)
        assert opening_name("reversi", opening["moves"].split()).name == opening["name"]
    assert len(opening_table("othello")) >= 4 * len(lines)


def test_a_deeper_line_keeps_the_deepest_named_opening() -> None:
    tiger = ["f5", "d6", "c3", "d3", "c4"]
    stephenson = [*tiger, "f4", "f6"]
    game = [*stephenson, "b5", "c5"]  # off the named lines after Stephenson
    board = reversi.Board()
    for move in game:
        board.push(move)
    names = opening_names("reversi", game)
    assert [(o.name, o.ply) for o in names] == [("Perpendicular Opening", 2), ("Tiger", 5), ("Stephenson", 7)]
    deepest = opening_name("reversi", game)
    assert deepest is not None and deepest.name == "Stephenson" and deepest.line == tuple(stephenson)
    assert opening_name("reversi", [*tiger, "pass"]).name == "Tiger"  # a word ends the search, not the name


def test_no_othello_name_off_the_standard_game() -> None:
    assert opening_name("reversi", ["f5"]) is None
    assert opening_name("reversi", ["f5", "d6", "c3", "d3", "c4"], {"size": 10}) is None
    start = reversi.Board().to_text()
    assert opening_name("reversi", ["f5", "d6"], position=start) is None  # a set-up position
