"""``tabletop match``: arguments in, a table or one JSON object out (the games are tabletop.tournament's)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.tournament import elo

DESIGN_KEYS = {"games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high"}

# An NBoard engine that answers every "go" with a1, never legal from the usual openings.
ILLEGAL_ENGINE = """
import sys
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["ping"]:
        print("pong", words[1], flush=True)
    elif words[:1] == ["go"]:
        print("=== A1", flush=True)
"""


def test_json_result_from_a_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--games", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert DESIGN_KEYS | {"black_wins", "white_wins", "failures", "a_seconds_per_move", "b_seconds_per_move"} == set(out)
    assert out["games"] == 30 and out["losses"] == 0 and out["wins"] + out["draws"] == 30
    assert out["black_wins"] + out["white_wins"] == out["wins"]
    assert out["wins"] > 15 and out["elo"] > 100 and out["elo_low"] <= out["elo"] <= out["elo_high"]
    assert out["failures"] == [] and out["a_seconds_per_move"] > 0 and out["b_seconds_per_move"] > 0


def test_parallel_jobs_play_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "random", "--b", "level:10", "--games", "8", "--jobs", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 8 and out["wins"] == 0


def test_table_output_names_the_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "greedy", "--b", "random", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "A = greedy" in out and "Elo" in out and "seconds per move" in out


def test_elo_is_zero_for_an_even_score_and_rises_with_it() -> None:
    e, lo, hi = elo(5.0, 10, [1, 0] * 5)
    assert abs(e) < 1e-9 and lo < 0 < hi
    assert elo(7.5, 10, [1] * 7 + [0.5] + [0] * 2)[0] > 150


def test_black_and_white_wins_are_counted_by_colour(capsys: pytest.CaptureFixture[str]) -> None:
    # perfect never loses to random, so every win is perfect's: with colours alternating it wins
    # some games as X (Black) and some as O (White), and the split must show both
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--games", "20", "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["black_wins"] + out["white_wins"] + out["draws"] == 20
    assert out["black_wins"] >= 1 and out["white_wins"] >= 1
    assert main(["match", "tictactoe", "--a", "random", "--b", "perfect", "--games", "20", "--json", "--seed", "3"]) == 0
    swapped = json.loads(capsys.readouterr().out)
    assert swapped["wins"] == 0 and swapped["black_wins"] + swapped["white_wins"] == swapped["losses"]


def test_an_engine_that_cannot_start_loses_every_game_by_a_named_crash(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["match", "reversi", "--a", "random", "--b", "nboard:/nonexistent/engine", "--games", "2", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["wins"] == 2 and len(out["failures"]) == 2
    for number, failure in enumerate(out["failures"], 1):
        assert failure["game"] == number and failure["player"] == "B" and failure["kind"] == "crash"
        assert "cannot start" in failure["reason"] and failure["spec"] == "nboard:/nonexistent/engine"
    assert [f["color"] for f in out["failures"]] == ["white", "black"]


def test_an_illegal_answer_is_a_bad_answer_and_the_table_says_so(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    engine = tmp_path / "illegal.py"
    engine.write_text(ILLEGAL_ENGINE)
    spec = f"nboard:{sys.executable} {engine}"
    assert main(["match", "reversi", "--a", spec, "--b", "random", "--games", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["losses"] == 2 and {f["kind"] for f in out["failures"]} == {"bad answer"}
    assert all(f["player"] == "A" and "illegal move" in f["reason"] for f in out["failures"])
    assert main(["match", "reversi", "--a", spec, "--b", "random", "--games", "2"]) == 0
    table = capsys.readouterr().out
    assert "game 1 lost by A" in table and "bad answer" in table


def test_sprt_stops_when_one_side_is_far_stronger(capsys: pytest.CaptureFixture[str]) -> None:
    # perfect against random at Tic-tac-toe scores about 90%: far above 200 Elo, so H1 comes soon
    args = ["match", "tictactoe", "--a", "perfect", "--b", "random", "--sprt", "0", "200", "--games", "400", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    sprt = out["sprt"]
    assert sprt["verdict"] == "H1 accepted" and sprt["llr"] >= sprt["upper"] == pytest.approx(2.944, abs=1e-3)
    assert sprt["lower"] == pytest.approx(-2.944, abs=1e-3)
    assert out["games"] == 2 * sprt["pairs"] < 400 and sum(sprt["pentanomial"]) == sprt["pairs"]
    assert sprt["elo_low"] <= sprt["elo"] <= sprt["elo_high"] and sprt["elo"] > 200


def test_sprt_accepts_h0_when_the_players_are_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["match", "tictactoe", "--a", "perfect", "--b", "perfect", "--sprt", "0", "100", "--games", "400",
            "--jobs", "2", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sprt"]["verdict"] == "H0 accepted" and out["draws"] == out["games"] < 400


def test_sprt_table_prints_the_llr_its_bounds_and_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "perfect", "--b", "random", "--sprt", "0", "50", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "LLR" in out and "(-2.94, 2.94)" in out and "after 2 pairs" in out and "inconclusive" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sprt", "10", "5"], "ELO0 (10) must be below ELO1 (5)"),
        (["--sprt", "0", "5", "--games", "1"], "--games must be at least 2"),
        (["--games", "0"], "--games must be at least 1"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--think", "-1"], "--think must be positive"),
    ],
)
def test_bad_arguments_are_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "random", "--b", "random", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_bad_spec_or_game_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tictactoe", "--a", "level:11", "--b", "random"]) == 2
    err = capsys.readouterr().err
    assert "--a" in err and "level must be 1..10" in err and len(err.strip().splitlines()) == 1
    assert main(["match", "chess", "--a", "random", "--b", "random"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_a_log_resumes_and_a_log_of_another_match_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(tmp_path / "m.jsonl")
    base = ["match", "tictactoe", "--b", "random", "--games", "4", "--log", log, "--json"]
    assert main([*base, "--a", "perfect"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(Path(log).read_text().splitlines()) == 4
    assert main([*base, "--a", "perfect"]) == 0  # every game is in the log: nothing is played again
    assert json.loads(capsys.readouterr().out)["wins"] == first["wins"]
    assert len(Path(log).read_text().splitlines()) == 4
    assert main([*base, "--a", "random"]) == 2
    err = capsys.readouterr().err
    assert "--log:" in err and "another match" in err and len(err.strip().splitlines()) == 1


def test_gomoku_matches_start_from_the_26_renju_openings_each_with_both_colours(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.games import new_board
    from tabletop.games.opening_names import opening_name, renju_openings
    from tabletop.tournament import openings, schedule

    board = new_board("gomoku", {"rule": "renju"})
    specs = schedule("gomoku", {"rule": "renju"}, "a", "b", 52, openings("gomoku", board, 26, 0, "renju26"), None)
    seen = {(spec.opening, spec.a_is_black) for spec in specs}
    assert len(seen) == 52 and {o for o, _ in seen} == {moves for _, _, moves in renju_openings()}
    for _, name, moves in renju_openings():
        named = opening_name("gomoku", list(moves), {"size": 15, "rule": "renju"})
        assert named is not None and named.name == name
    log = tmp_path / "games.jsonl"
    assert main(["match", "gomoku", "--rule", "renju", "--a", "level:3", "--b", "level:2", "--games", "4",
                 "--openings", "renju26", "--seed", "25", "--log", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 4
    games = [json.loads(line) for line in log.read_text().splitlines()]
    starts = {(tuple(g["spec"]["opening"]), g["spec"]["a_is_black"]) for g in games}
    # from the 25th place on: the last of the 26 (13I), then round again to the first (1D)
    assert starts == {(renju_openings()[25][2], True), (renju_openings()[25][2], False),
                      (("h8", "h9", "h10"), True), (("h8", "h9", "h10"), False)}


def test_gomoku_matches_start_from_three_random_stones_in_the_middle_half(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.games import new_board
    from tabletop.tournament import openings

    board = new_board("gomoku", {})
    lines = openings("gomoku", board, 50, 7, "random3")
    assert len(set(lines)) == 50
    for line in lines:
        b = board.copy()
        for text in line:
            move = b.parse_move(text)
            assert 4 <= move.col <= 10 and 4 <= move.row <= 10
            b.push(move)
    assert len({line[0] for line in lines}) > 10  # not always the centre
    assert openings("gomoku", board, 50, 7, "random3") == lines  # seeded
    log = tmp_path / "games.jsonl"
    assert main(["match", "gomoku", "--a", "level:3", "--b", "level:2", "--games", "2", "--openings", "random3",
                 "--seed", "7", "--log", str(log), "--json"]) == 0
    capsys.readouterr()
    games = [json.loads(line) for line in log.read_text().splitlines()]
    assert [tuple(g["spec"]["opening"]) for g in games] == [lines[0], lines[0]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["gomoku", "--size", "19", "--openings", "renju26"], "the standard renju openings are for 15x15, not 19x19"),
        (["reversi", "--openings", "random3"], "openings 'random3' are for gomoku, not reversi"),
    ],
)
def test_openings_a_game_cannot_have_are_one_line(args: list[str], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", *args, "--a", "random", "--b", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_match_with_more_pairs_than_openings_says_that_they_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    # 27 pairs from the 26 renju openings: one repeats
    # a greedy player against the random one: short games
    args = ["match", "gomoku", "--a", "level:5", "--b", "level:1", "--openings", "renju26", "--json"]
    assert main([*args, "--games", "54"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 54
    assert "27 pairs from 26 distinct openings (renju26): openings repeat" in captured.err
    assert "--openings random3" in captured.err
    # one round of them repeats nothing and says nothing
    assert main([*args, "--games", "52"]) == 0
    assert capsys.readouterr().err == ""
