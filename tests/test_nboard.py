"""The NBoard protocol: our engine answering commands, and our controller driving it as a subprocess."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.ai.base import Limit
from tabletop.games.core import PASS, Color
from tabletop.games.reversi import Board
from tabletop.players import player as player_from_spec
from tabletop.protocols.nboard import NBoardError, NBoardPlayer, game_to_ggf, parse_ggf, run_engine

TABLETOP = str(Path(sys.executable).with_name("tabletop"))
START_GGF = "(;GM[Othello]PC[NBoard]SZ[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]B[F5]W[F6];)"


def _talk(commands: list[str], level: int = 3) -> tuple[list[str], list[str], None]:
    out = io.StringIO()
    err = io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        assert run_engine(level, stdin=io.StringIO("\n".join(commands) + "\n"), stdout=out) == 0
    finally:
        sys.stderr = old
    return out.getvalue().splitlines(), err.getvalue().splitlines(), None


def test_ping_is_answered_with_pong_and_learn_with_learned() -> None:
    out, err, _ = _talk(["nboard 2", "ping 7", "learn"])
    assert "pong 7" in out and "learned" in out and not err


def test_go_after_a_game_replies_a_legal_move_with_eval_and_time() -> None:
    out, err, _ = _talk(["nboard 2", "set depth 3", f"set game {START_GGF}", "go"])
    reply = next(line for line in out if line.startswith("==="))
    move, evaluation, seconds = reply[4:].split("/")
    board, moves = parse_ggf(START_GGF)
    for m in moves:
        board.push(m.lower())
    assert board.is_legal(move.lower())
    float(evaluation), float(seconds)
    assert any(line.startswith("nodestats ") for line in out)
    assert out[-1] == "status" and not err


def test_move_command_advances_the_game_and_hint_lists_moves() -> None:
    out, err, _ = _talk(["nboard 2", "set depth 2", "move F5", "move D6", "hint 3"])
    searches = [line.split() for line in out if line.startswith("search ")]
    assert len(searches) == 3
    board = Board()
    board.push("f5")
    board.push("d6")
    for words in searches:
        assert board.is_legal(words[1].lower())
        float(words[2])
    assert not err


def test_analyze_reports_every_position() -> None:
    out, _, _ = _talk(["set depth 2", "move F5", "move D6", "analyze"])
    assert [line.split()[1] for line in out if line.startswith("analysis ")] == ["2", "1", "0"]


def test_a_pass_is_played_as_pa() -> None:
    # Black (to move) has no placement, White has one: the engine must pass.
    squares = ["-"] * 64
    squares[0] = "O"
    squares[1] = "*"
    ggf = "(;GM[Othello]BO[8 " + "".join(squares) + " *];)"
    board, _ = parse_ggf(ggf)
    assert board.legal_moves == [PASS]
    out, _, _ = _talk([f"set game {ggf}", "go"])
    assert any(line.startswith("=== PA") for line in out)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("fly away", "unknown command 'fly'"),
        ("set game (;GM[Othello]B[F5];)", "before the board"),
        ("set game (;GM[Othello]BO[8 --- *];)", "64 squares"),
        ("set game nonsense", "must start with"),
        ("set depth deep", "not a whole number"),
        ("set depth 99", "1..60"),
        ("move Z9", ""),
        ("move A1", "a1: flips no disc"),
    ],
)
def test_bad_commands_get_one_error_line_and_the_engine_keeps_running(command: str, message: str) -> None:
    out, err, _ = _talk([command, "ping 1"])
    assert len(err) == 1 and err[0].startswith("nboard: error:")
    assert message.lower() in err[0].lower()
    assert "pong 1" in out


def test_ggf_written_for_a_board_reads_back_to_the_same_position() -> None:
    board = Board()
    for name in ("f5", "f6", "e6", "f4"):
        board.push(name)
    copy, moves = parse_ggf(game_to_ggf(board))
    assert moves == [] and copy.bitboards() == board.bitboards() and copy.turn == board.turn


def test_controller_drives_our_engine_through_a_subprocess() -> None:
    engine = NBoardPlayer(f"{TABLETOP} engine nboard --level 2", timeout=60)
    try:
        board = Board()
        for _ in range(6):
            before = board.to_text()
            move = engine.choose(board, Limit(depth=2))
            assert board.to_text() == before
            assert board.is_legal(move)
            board.push(move)
            board.push(board.legal_moves[0])
    finally:
        engine.close()


def test_nboard_spec_builds_the_controller() -> None:
    p = player_from_spec(f"nboard:{TABLETOP} engine nboard")
    assert isinstance(p, NBoardPlayer) and p.name.startswith("nboard:")


def test_an_engine_that_never_answers_times_out() -> None:
    engine = NBoardPlayer(f"{sys.executable} -c 'import time; time.sleep(30)'", timeout=1)
    try:
        with pytest.raises(NBoardError, match="in time"):
            engine.choose(Board())
    finally:
        engine.close()


def test_a_malformed_reply_is_refused(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w and w[0] == 'ping': print('pong', w[1], flush=True)\n"
        "    if w and w[0] == 'go': print('=== Z9/0/0', flush=True)\n"
    )
    fake = tmp_path / "fake_engine.py"
    fake.write_text(script)
    engine = NBoardPlayer(f"{sys.executable} {fake}", timeout=10)
    try:
        with pytest.raises(NBoardError, match="malformed"):
            engine.choose(Board())
    finally:
        engine.close()


def test_a_missing_engine_program_is_a_clear_error() -> None:
    with pytest.raises(NBoardError, match="cannot start"):
        NBoardPlayer("/nonexistent/engine").choose(Board())


def test_board_colour_helper_matches_turn() -> None:
    board = Board()
    board.push("f5")
    assert parse_ggf(game_to_ggf(board))[0].turn is Color.WHITE


def test_seconds_gives_each_go_a_time_per_move_and_set_depth_overrides_it() -> None:
    """``tabletop engine nboard --seconds S``: level 10 stops its deepening near S
    instead of searching to its full depth; ``set depth`` from the GUI wins."""
    import random

    board, _ = parse_ggf(START_GGF)
    rng = random.Random(5)
    while len(board.move_stack) < 24:  # a middle game, out of the book
        board.push(rng.choice(board.legal_moves))
    ggf = game_to_ggf(board)

    def go(extra: list[str], seconds: float | None) -> tuple[int, float]:
        out, err = io.StringIO(), io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            commands = ["nboard 2", *extra, f"set game {ggf}", "go"]
            run_engine(10, stdin=io.StringIO("\n".join(commands) + "\n"), stdout=out, seconds=seconds)
        finally:
            sys.stderr = old
        assert not err.getvalue(), err.getvalue()
        lines = out.getvalue().splitlines()
        reply = next(line for line in lines if line.startswith("==="))
        assert board.is_legal(reply[4:].split("/")[0].lower())
        nodes = int(next(line for line in lines if line.startswith("nodestats")).split()[1])
        return nodes, float(reply.split("/")[2])

    go([], 0.05)  # compiles the kernels outside the measured moves
    full, _ = go([], None)
    short, seconds = go([], 0.05)
    assert short < full / 2, (short, full)
    assert seconds < 1.0
    # set depth wins over a 30 s time: a depth-2 search, done at once (compared with the unbounded
    # search, not the 0.05 s one, whose node count a busy machine can cut to a few dozen)
    two, two_seconds = go(["set depth 2"], 30.0)
    assert two < full / 2, (two, full)
    assert two_seconds < 5.0


def test_engine_seconds_out_of_range_is_a_clear_error() -> None:
    done = subprocess.run(
        [TABLETOP, "engine", "nboard", "--seconds", "0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "--seconds must be 0.01..3600" in done.stderr
    assert "Traceback" not in done.stderr
