"""Game records: the format registry, transcripts, OBF, GGF, SGF (Othello and Gomoku), round trips."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop import records
from tabletop.games import new_board, reversi
from tabletop.games.core import BLACK
from tabletop.records import GameRecord, RecordError

DATA = Path(__file__).parent / "data"


def random_record(seed: int, game: str = "reversi", size: int = 8, plies: int | None = None) -> GameRecord:
    rng = random.Random(seed)
    options = {"size": size}
    board = new_board(game, options)
    while plies is None or len(board.move_stack) < plies:
        legal = board.legal_moves
        if not legal:
            break
        board.push(rng.choice(legal))
    return GameRecord(
        game=game,
        options=options,
        moves=[str(m) for m in board.move_stack],
        result=records.result_from_board(board),
    )


# -- the registry --------------------------------------------------------------------


def test_builtin_formats_are_registered_with_their_extensions() -> None:
    assert {"transcript", "obf", "ggf", "sgf"} <= set(records.formats())
    assert records.detect("games/x.SGF") == "sgf"
    assert records.detect(Path("a/b.ggf")) == "ggf"
    assert records.detect("ffo.obf") == "obf"
    assert records.detect("moves.txt") == "transcript"
    with pytest.raises(ValueError, match="extension"):
        records.detect("notes.docx")
    with pytest.raises(ValueError, match="unknown record format"):
        records.read("", "pgn")


@pytest.fixture
def plugin_format() -> Iterator[str]:
    def reader(text: str, game: str | None = None, options: dict[str, object] | None = None) -> list[GameRecord]:
        return [GameRecord(game=game or "reversi", moves=text.split(","))]

    def writer(games: list[GameRecord]) -> str:
        return ";".join(",".join(r.moves) for r in games)

    records.register_format("commas", (".cmm",), reader, writer)  # type: ignore[arg-type]  # list vs Sequence
    yield "commas"
    del records._FORMATS["commas"]


def test_a_new_format_plugs_in_with_one_call(plugin_format: str) -> None:
    assert records.detect("x.cmm") == plugin_format
    assert records.read("f5,d6", plugin_format)[0].moves == ["f5", "d6"]
    assert records.write([GameRecord(moves=["f5"])], plugin_format) == "f5"


# -- transcripts -----------------------------------------------------------------------


def test_transcripts_read_in_any_case_spaced_or_not() -> None:
    games = records.read("F5d6C3\n\n# a comment\nf5 D6 c3 d3\n", "transcript")
    assert [g.moves for g in games] == [["f5", "d6", "c3"], ["f5", "d6", "c3", "d3"]]
    assert games[0].game == "reversi" and games[0].position is None


def test_transcript_passes_may_be_written_or_left_out() -> None:
    record = random_record(next(s for s in range(1000) if "pass" in random_record(s).moves))
    with_passes = "".join(record.moves)
    without = "".join(m for m in record.moves if m != "pass")
    assert records.read(with_passes, "transcript")[0].moves == record.moves
    assert records.read(without, "transcript")[0].moves == record.moves
    assert records.write([record], "transcript") == without + "\n"


def test_a_finished_transcript_gets_its_result() -> None:
    record = random_record(3)
    again = records.read(records.write([record], "transcript"), "transcript")[0]
    board = reversi.Board()
    for move in record.moves:
        board.push(move)
    outcome = board.outcome()
    assert outcome is not None
    assert again.result == records.result_from_board(board)
    assert again.result is not None and again.result[0] in "BWD"


def test_gomoku_transcripts_are_spaced_lists() -> None:
    games = records.read("h8 i9 j10\n", "transcript", game="gomoku")
    assert games[0].moves == ["h8", "i9", "j10"] and games[0].game == "gomoku"
    assert records.write(games, "transcript") == "h8 i9 j10\n"
    ttt = records.read("b2 a1 c3", "transcript", game="tictactoe")
    assert ttt[0].moves == ["b2", "a1", "c3"]


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("f5d6c3d3c4f4f6f3e6e7a1", "line 1, column 21", "move 11 (a1)"),
        ("f5d6\nf5 f5", "line 2, column 4", "move 2 (f5)"),
        ("f5 d6 ?? c3", "line 1, column 7", "cannot read a move"),
        ("f5d6pass", "line 1, column 5", "move 3 (pass)"),
        ("z9", "line 1, column 1", "off the"),
    ],
)
def test_bad_transcripts_name_line_column_and_reason(text: str, where: str, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        records.read(text, "transcript")
    assert where in str(info.value) and reason in str(info.value)


# -- OBF ---------------------------------------------------------------------------------


def test_obf_reads_positions_with_their_move_scores() -> None:
    text = (DATA / "othello" / "fforum-1-19.obf").read_text()
    games = records.read(text, "obf")
    assert len(games) == 19
    first = games[0]
    assert first.moves == [] and first.position is not None
    assert list(first.move_scores.items())[:2] == [("g8", 18), ("h1", 12)]
    board = reversi.Board(first.position)
    assert board.turn is BLACK
    assert set(first.move_scores) == {str(m) for m in board.legal_moves}


def test_obf_written_back_matches_the_file() -> None:
    text = (DATA / "othello" / "fforum-1-19.obf").read_text()
    written = records.write(records.read(text, "obf"), "obf")
    assert [line.rstrip() for line in written.splitlines()] == [line.rstrip() for line in text.splitlines() if line]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("--XX X; F5:+2;", "64 squares"),
        ("-" * 27 + "OX------XO" + "-" * 27 + " X; A1:+2;", "a1 is not legal"),
        ("-" * 27 + "OX------XO" + "-" * 27 + " X; F5=2;", "MOVE:SCORE"),
        ("-" * 27 + "OX------XO" + "-" * 27 + " Q", "side"),
    ],
)
def test_bad_obf_lines_are_refused_with_their_line(line: str, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        records.read("% comment\n" + line + "\n", "obf")
    assert "line 2" in str(info.value) and reason in str(info.value).replace("A1", "a1")


def test_obf_of_a_game_is_the_position_after_its_moves() -> None:
    record = random_record(5, plies=20)
    line = records.write([record], "obf")
    again = records.read(line, "obf")[0]
    board = reversi.Board()
    for move in record.moves:
        board.push(move)
    assert again.position == board.to_text()


# -- GGF -----------------------------------------------------------------------------------


def test_ggf_reads_several_games_with_tags_passes_and_results() -> None:
    games = records.read((DATA / "records" / "two-games.ggf").read_text(), "ggf")
    assert len(games) == 2
    first, second = games
    assert first.moves == ["f5", "d6", "c3", "d3", "c4"]
    assert first.tags["black"] == "alice" and first.tags["white"] == "bob"
    assert first.tags["place"] == "GGS/os" and first.tags["black_rating"] == "2197.72"
    assert first.result == "B+4" and first.position is None
    assert second.moves == ["pass", "h8"]
    assert second.position is not None and second.position.endswith(" O")
    assert second.result == "B+64"
    assert records.replay(second).outcome() is not None


def test_ggf_writes_what_it_reads() -> None:
    games = records.read((DATA / "records" / "two-games.ggf").read_text(), "ggf")
    text = records.write(games, "ggf")
    assert text.count("(;GM[Othello]") == 2 and "W[PA]" in text and "RE[+64.000]" in text
    assert records.read(text, "ggf") == games


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("(;GM[Othello]TY[8]B[f5]W[d6]", "line 1, column 1", "not closed"),
        ("(;GM[Othello]TY[8]\nB[f5]W[f5];)", "line 2, column 6", "move 2 (f5)"),
        ("(;GM[Othello]TY[8]B[f5];)\n(;GM[Othello]B[e6]W[d4];)", "line 2, column 19", "move 2 (d4)"),
        ("(;GM[Chess]B[e4];)", "line 1, column 3", "not Othello"),
        ("(;GM[Othello]RE[+x];)", "line 1, column 14", "disc margin"),
        ("junk (;GM[Othello];)", "line 1, column 1", "outside a game"),
        ("(;GM[Othello]B[f5", "line 1, column 14", "no closing"),
        ("(;GM[Othello]B[f5]W[e6];)", "line 1, column 19", "move 2 (e6)"),
    ],
)
def test_bad_ggf_names_line_column_and_reason(text: str, where: str, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        records.read(text, "ggf")
    assert where in str(info.value) and reason in str(info.value)


# -- SGF -----------------------------------------------------------------------------------


def test_sgf_othello_points_count_rows_from_the_top() -> None:
    text = "(;FF[4]GM[2]SZ[8]PB[ann]PW[ben]RE[W+2];B[fe];W[df];B[cc])"
    game = records.read(text, "sgf")[0]
    assert game.moves == ["f5", "d6", "c3"]  # fe = column f, 5th row from the top
    assert game.tags == {"black": "ann", "white": "ben"} and game.result == "W+2"
    assert records.read("(;GM[2]SZ[8];B[f5];W[d6])", "sgf")[0].moves == ["f5", "d6"]


def test_sgf_othello_main_line_passes_and_setup() -> None:
    start = "XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXX/XXXXXXXO/XXXXXX-- O"
    record = GameRecord(game="reversi", options={"size": 8}, position=start, moves=["pass", "h8"])
    text = records.write([record], "sgf")
    assert "PL[W]" in text and ";W[]" in text
    assert records.read(text, "sgf")[0] == record
    # a left-out forced pass is put back; a side variation is ignored
    no_pass = text.replace(";W[]", "").replace(";B[hh])", "(;B[hh])(;B[aa]))")
    again = records.read(no_pass, "sgf")[0]
    assert again.moves == ["pass", "h8"]


def test_sgf_gomoku_file_checked_by_hand() -> None:
    game = records.read((DATA / "records" / "gomoku-hand.sgf").read_text(), "sgf")[0]
    assert game.game == "gomoku" and game.options == {"size": 15}
    # hh = centre h8, ih = i8, gi = g7, aa = a15 (top-left), oo = o1 (bottom-right)
    assert game.moves == ["h8", "i8", "g7", "a15", "o1"]
    board = records.replay(game)
    assert board.piece_at(0, 0) is not None and board.piece_at(14, 14) is not None  # a15 top-left, o1 bottom-right
    assert "(;B[hh];W[ih];B[gi];W[aa];B[oo])" in records.write([game], "sgf").replace(";B[hh]", "(;B[hh]", 1) + ")"


def test_sgf_escapes_survive_a_round_trip() -> None:
    record = random_record(1, plies=6)
    record.tags = {"black": "a]b\\c", "event": "cup [final]"}
    again = records.read(records.write([record], "sgf"), "sgf")[0]
    assert again.tags == record.tags and again.moves == record.moves


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("(;GM[2]SZ[8];B[fe];W[fe])", "line 1, column 20", "move 2"),
        ("(;GM[2]SZ[8];B[fe]", "line 1, column 19", "not closed"),
        ("(;GM[2]SZ[8];B[zz])", "line 1, column 14", "off the"),
        ("(;GM[1]SZ[19];B[dd])", "line 1, column 3", "not Othello"),
        ("(;GM[2]\nSZ[8];B[f5", "line 2, column 8", "no closing"),
        ("x(;GM[2])", "line 1, column 1", "expected '('"),
        ("(;GM[2]SZ[7])", "line 1, column 8", "size"),
    ],
)
def test_bad_sgf_names_line_column_and_reason(text: str, where: str, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        records.read(text, "sgf")
    assert where in str(info.value) and reason in str(info.value)


# -- round trips ----------------------------------------------------------------------------


@given(st.integers(0, 10**6), st.sampled_from([6, 8, 10]), st.sampled_from(["transcript", "ggf", "sgf"]))
def test_reversi_games_round_trip_through_every_move_format(seed: int, size: int, fmt: str) -> None:
    games = [random_record(seed, size=size), random_record(seed + 1, size=size, plies=1 + seed % 40)]
    again = records.read(records.write(games, fmt), fmt, options={"size": size})
    assert [g.moves for g in again] == [g.moves for g in games]
    assert [g.result for g in again] == [g.result for g in games]


@given(st.integers(0, 10**6), st.sampled_from(["transcript", "sgf"]))
def test_gomoku_games_round_trip(seed: int, fmt: str) -> None:
    game = random_record(seed, game="gomoku", size=15, plies=1 + seed % 60)
    again = records.read(records.write([game], fmt), fmt, game="gomoku")[0]
    assert again.moves == game.moves


@given(st.integers(0, 10**6), st.integers(0, 60))
def test_obf_positions_round_trip(seed: int, plies: int) -> None:
    record = random_record(seed, plies=plies)
    board = records.replay(record)
    position = GameRecord(game="reversi", options={"size": 8}, position=board.to_text())
    again = records.read(records.write([position], "obf"), "obf")[0]
    assert again.position == board.to_text()


def test_a_record_is_taken_from_a_board_and_written_in_any_format() -> None:
    board = reversi.Board(size=6)
    for _ in range(8):
        board.push(board.legal_moves[0])
    record = GameRecord.from_board(board, {"black": "ann"})
    assert record.options == {"size": 6} and record.position is None and len(record.moves) == 8
    for fmt in ("transcript", "ggf", "sgf"):
        assert records.read(records.write([record], fmt), fmt, options={"size": 6})[0].moves == record.moves
    gomoku = new_board("gomoku", {"size": 15, "rule": "renju"})
    gomoku.push("h8")
    gomoku_record = GameRecord.from_board(gomoku)
    assert gomoku_record.options == {"size": 15, "rule": "renju"}
    assert records.read(records.write([gomoku_record], "sgf"), "sgf")[0] == gomoku_record


def test_the_docstring_examples_run() -> None:
    import doctest

    from tabletop.records import obf, transcript

    for module in (reversi, transcript, obf):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module.__name__
