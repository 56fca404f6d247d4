"""Perft: leaf counts of the Reversi game tree against the published tables, and the ``perft`` command."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.games import reversi
from tabletop.games.core import BLACK

DATA = Path(__file__).parent / "data" / "othello" / "perft.md"


def published_8x8() -> dict[int, int]:
    """depth -> leaves from the table in tests/data/othello/perft.md."""
    rows = re.findall(r"^\|\s*(\d+)\s*\|\s*([\d,]+)\s*\|", DATA.read_text(), flags=re.MULTILINE)
    return {int(d): int(n.replace(",", "")) for d, n in rows}


def published_6x6() -> dict[int, int]:
    paragraph = re.search(r"^6x6 .*?:(.*?)for depths", DATA.read_text(), flags=re.MULTILINE | re.DOTALL)
    assert paragraph is not None, "the 6x6 counts are missing from perft.md"
    counts = re.findall(r"\d{1,3}(?:,\d{3})*", paragraph.group(1))
    return {depth: int(n.replace(",", "")) for depth, n in enumerate(counts, start=1)}


def test_the_published_tables_are_read() -> None:
    assert published_8x8()[9] == 3_005_288
    assert published_6x6() == {1: 4, 2: 12, 3: 56, 4: 244, 5: 1364, 6: 7604, 7: 47740, 8: 308716}


@pytest.mark.parametrize("depth", range(1, 10))
def test_8x8_perft_matches_the_published_counts(depth: int) -> None:
    assert reversi.perft(reversi.Board(), depth) == published_8x8()[depth]


@pytest.mark.parametrize("depth", range(1, 9))
def test_6x6_perft_matches_the_reference_counts(depth: int) -> None:
    assert reversi.perft(reversi.Board(size=6), depth) == published_6x6()[depth]


@pytest.mark.parametrize("size", [4, 6, 8, 10])
def test_readable_and_generated_perft_agree(size: int) -> None:
    black, white = reversi.Board(size=size).bitboards()
    for depth in range(1, 6):
        assert reversi.perft_bitboards(black, white, depth, size) == reversi.perft_reference(black, white, depth, size)


def test_perft_by_push_and_pop_agrees_with_the_bitboard_perft() -> None:
    def walk(board: reversi.Board, depth: int) -> int:
        if depth == 0 or board.is_game_over():
            return 1
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += walk(board, depth - 1)
            board.pop()
        return total

    assert walk(reversi.Board(), 6) == 8200
    assert walk(reversi.Board(size=4), 9) == reversi.perft(reversi.Board(size=4), 9)


def test_a_finished_game_is_one_leaf_and_a_pass_is_one_ply() -> None:
    over = reversi.Board("----/-XX-/-XX-/---- O", size=4)
    assert over.is_game_over() and reversi.perft(over, 5) == 1
    stuck = reversi.Board("XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXO/XXXXXX-- O")
    assert reversi.perft(stuck, 1) == 1  # the pass
    assert reversi.perft(stuck, 2) == 1  # pass, then h8
    assert reversi.perft(stuck, 3) == 1  # the game is over after h8...


def test_perft_command_prints_the_count_as_its_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "reversi", "--depth", "5"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "1396" and len(lines) > 1
    assert main(["perft", "reversi", "--depth", "6", "--size", "6"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "7604"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["perft", "reversi", "--depth", "3", "--size", "7"], "size"),
        (["perft", "reversi", "--depth", "0"], "depth"),
        (["perft", "chess", "--depth", "3"], "reversi"),
        (["perft", "reversi", "--depth", "3", "--size", "6", "--engine", "fast"], "8x8"),
    ],
)
def test_perft_command_refuses_bad_input_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_fast_engine_counts_the_same_or_fails_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["perft", "reversi", "--depth", "6", "--engine", "fast"])
    captured = capsys.readouterr()
    if code == 0:
        assert captured.out.strip().splitlines()[-1] == "8200"
    else:
        assert code == 2 and "--engine fast is not available" in captured.err


def test_packed_leaf_count_handles_passes_and_finished_games() -> None:
    # 4x4 games are short and pass often: every depth must agree
    black, white = reversi.Board(size=4).bitboards()
    for depth in range(1, 11):
        assert reversi.perft_bitboards(black, white, depth, 4) == reversi.perft_reference(black, white, depth, 4)


@pytest.mark.parametrize("size", [6, 8, 16])
def test_perft_agrees_with_the_readable_version_near_the_end_of_random_games(size: int) -> None:
    rng = random.Random(size)
    for _ in range(12):
        board = reversi.Board(size=size)
        target = size * size - rng.randint(4, 9)  # a few empties left: passes and finished games
        while not board.is_game_over() and sum(board.discs()) < target:
            board.push(rng.choice(board.legal_moves))
        black, white = board.bitboards()
        player, opponent = (black, white) if board.turn is BLACK else (white, black)
        for depth in range(1, 5):
            assert reversi.perft_bitboards(player, opponent, depth, size) == reversi.perft_reference(
                player, opponent, depth, size
            )


def test_perft_command_starts_from_a_given_position(capsys: pytest.CaptureFixture[str]) -> None:
    line = (DATA.parent / "fforum-1-19.obf").read_text().splitlines()[0]
    position = line.split(";")[0]
    assert main(["perft", "reversi", "--depth", "3", "--position", position]) == 0
    assert int(capsys.readouterr().out.strip().splitlines()[-1]) == reversi.perft(reversi.Board(position), 3)
