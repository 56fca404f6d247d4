"""The Gomocup protocol: our engine command by command, the manager against it over full games,
and the manager's handling of broken or deviating engines."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import engine as engine_module
from tabletop.ai.gomoku import level_player
from tabletop.ai.gomoku.engine import warm_up
from tabletop.ai.gomoku.search import TT_ENTRY_BYTES
from tabletop.bench.gomoku_engine import gomocup_peak_bytes
from tabletop.games.mnk import gomoku
from tabletop.protocols.gomocup import (
    MIN_TT_ENTRIES,
    SEARCH_HEADROOM_BYTES,
    GomocupEngine,
    GomocupError,
    GomocupPlayer,
    peak_resident_bytes,
    rule_from_bits,
    run_engine,
)

TABLETOP = str(Path(sys.executable).with_name("tabletop"))


def talk(engine: GomocupEngine, *lines: str) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.extend(engine.handle(line))
    return out


def coords(reply: str) -> tuple[int, int]:
    x, y = reply.split(",")
    return int(x), int(y)


# the in-process engines get a stated base, so that the table's arithmetic does not depend on what else
# the test process holds; the engine's own measurement is checked in a process of its own below
BASE = 180 * 1024 * 1024


@pytest.fixture
def engine() -> GomocupEngine:
    return GomocupEngine(level=6, base_bytes=BASE)


def test_start_begin_and_turn_give_moves_on_the_board(engine: GomocupEngine) -> None:
    assert talk(engine, "START 15") == ["OK"]
    (first,) = talk(engine, "BEGIN")
    assert coords(first) == (7, 7)  # the centre on an empty board
    (reply,) = talk(engine, "TURN 8,8")
    x, y = coords(reply)
    assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in ((7, 7), (8, 8))
    assert engine.board is not None and len(engine.board.move_stack) == 3


def test_bad_input_gets_error_and_the_engine_keeps_running(engine: GomocupEngine) -> None:
    assert talk(engine, "TURN 1,1")[0].startswith("ERROR")  # no START yet
    assert talk(engine, "START 4")[0].startswith("ERROR")
    assert talk(engine, "START 15") == ["OK"]
    talk(engine, "BEGIN")
    off = talk(engine, "TURN 15,3")
    assert off[0].startswith("ERROR") and "off the 15x15 board" in off[0]
    taken = talk(engine, "TURN 7,7")
    assert taken[0].startswith("ERROR") and "occupied" in taken[0]
    assert talk(engine, "TURN a,b")[0].startswith("ERROR")
    assert talk(engine, "FROBNICATE 3") == ["UNKNOWN command FROBNICATE"]
    assert engine.board is not None and len(engine.board.move_stack) == 1  # nothing half-applied
    assert len(talk(engine, "TURN 8,8")) == 1


def test_board_in_any_order_for_gomoku(engine: GomocupEngine) -> None:
    talk(engine, "START 15")
    replies = talk(engine, "BOARD", "8,8,2", "7,7,1", "6,6,2", "DONE")
    assert len(replies) == 1 and "," in replies[0]
    b = engine.board
    assert b is not None
    # we had 1 stone against 2: we are Black... no: counts 1 own, 2 opponent, so we are White
    from tabletop.games.core import BLACK, WHITE

    assert b.piece_at(7, 7) is WHITE and b.piece_at(8, 8) is BLACK
    x, y = coords(replies[0])
    assert b.piece_at(x, y) is WHITE


def test_renju_board_lines_out_of_order_are_refused(engine: GomocupEngine) -> None:
    talk(engine, "INFO rule 4", "START 15")
    assert engine.board is not None and engine.board.rule == "renju"
    bad = talk(engine, "BOARD", "8,8,1", "7,7,2", "9,9,2", "6,6,1", "DONE")
    assert bad[0].startswith("ERROR") and "out of order" in bad[0]
    good = talk(engine, "BOARD", "7,7,2", "8,8,1", "9,9,2", "DONE")
    assert len(good) == 1 and not good[0].startswith("ERROR")


def test_renju_engine_never_plays_a_forbidden_point(engine: GomocupEngine) -> None:
    # Black (us) to move where (8,7) is a double-four: the tempting point must not be played
    talk(engine, "INFO rule 4", "START 15")
    lines = ["BOARD"]
    black = [(5, 7), (6, 7), (7, 7), (8, 4), (8, 5), (8, 6)]
    white = [(4, 7), (8, 3), (1, 13), (13, 1), (13, 13), (0, 0)]
    for b, w in zip(black, white):
        lines += [f"{b[0]},{b[1]},1", f"{w[0]},{w[1]},2"]
    replies = talk(engine, *lines, "DONE")
    assert coords(replies[0]) != (8, 7)
    assert engine.board is not None and engine.board.outcome() is None or engine.board.outcome().reason != "forbidden"


def test_info_keys_rules_limits_and_memory(engine: GomocupEngine) -> None:
    assert [rule_from_bits(v) for v in (0, 1, 4, 8, 2, 3)] == ["freestyle", "standard", "renju", "caro",
                                                               "freestyle", "standard"]
    talk(engine, "INFO timeout_turn 400", "INFO timeout_match 90000", "INFO time_left 60000",
         "INFO game_type 1", "INFO folder /tmp", "INFO evaluate 3,3", "INFO some_new_key 5")
    assert (engine.info.timeout_turn, engine.info.timeout_match, engine.info.time_left) == (400, 90000, 60000)
    assert engine._limit().seconds is not None and engine._limit().seconds <= 0.4
    talk(engine, "INFO max_memory 220000000")
    assert engine_module.TT_ENTRIES * TT_ENTRY_BYTES <= 220_000_000 - BASE
    assert engine_module.TT_ENTRIES > (220_000_000 - BASE) // TT_ENTRY_BYTES - 1
    assert engine_module.TT_ENTRIES < engine_module.TT_ENTRIES_DEFAULT
    talk(engine, "INFO max_memory 0")
    assert talk(engine, "INFO rule 8", "START 15") == ["OK"]
    assert engine.board is not None and engine.board.rule == "caro"
    talk(engine, "INFO rule 16")
    after = talk(engine, "BEGIN")
    assert after[0].startswith("ERROR") and "rule 16" in after[0]  # reported at the next command
    assert len(talk(engine, "BEGIN")) == 1


def test_a_memory_limit_below_the_engine_base_is_said_before_the_next_reply(engine: GomocupEngine) -> None:
    talk(engine, "INFO max_memory 150000000")
    assert engine_module.TT_ENTRIES == MIN_TT_ENTRIES
    reply = talk(engine, "START 15")
    assert len(reply) == 2 and reply[0].startswith("MESSAGE max_memory 150000000") and reply[1] == "OK"
    assert talk(engine, "RESTART") == ["OK"]  # said once
    talk(engine, "INFO max_memory 150000000", "INFO max_memory 350000000")
    assert talk(engine, "RESTART") == ["OK"]  # a later limit that can be met takes the message back
    talk(engine, "INFO max_memory 0")


def test_the_engine_measures_its_base_after_the_warm_up() -> None:
    """Without a stated base the engine measures one: its own peak once the kernels are loaded, plus
    the search's headroom, so it is never below what the process already holds."""
    engine = GomocupEngine(level=6)
    base = engine.measured_base_bytes()
    assert base >= peak_resident_bytes() + SEARCH_HEADROOM_BYTES - 1
    assert engine.measured_base_bytes() == base  # measured once


@pytest.mark.slow
@pytest.mark.parametrize("limit_mb", [250, 300, 350])
def test_engine_keeps_within_max_memory(limit_mb: int) -> None:
    """A fresh engine process told ``INFO max_memory`` stays under it (peak resident memory) over several
    searching moves, whatever its base takes on this machine.  The kernels are compiled here first if
    numba's cache lacks them (`make setup` does that on an install): a process that compiles them holds
    about 90 MB more."""
    warm_up()
    limit = limit_mb * 1024 * 1024
    assert gomocup_peak_bytes(limit, turn_ms=1500) < limit


def test_timeout_turn_zero_answers_at_once(engine: GomocupEngine) -> None:
    talk(engine, "START 15", "INFO timeout_turn 0")
    started = time.perf_counter()
    talk(engine, "BEGIN")
    talk(engine, "TURN 8,8")
    assert time.perf_counter() - started < 1.0


def test_restart_rectstart_takeback_about_and_end(engine: GomocupEngine) -> None:
    assert talk(engine, "RECTSTART 20,12") == ["OK"]
    assert engine.board is not None and (engine.board.width, engine.board.height) == (20, 12)
    assert talk(engine, "RECTSTART 3,30")[0].startswith("ERROR")
    (move,) = talk(engine, "BEGIN")
    assert talk(engine, f"TAKEBACK {move}") == ["OK"]
    assert not engine.board.move_stack
    assert talk(engine, "TAKEBACK 1,1")[0].startswith("ERROR")
    assert talk(engine, "RESTART") == ["OK"]
    (about,) = talk(engine, "ABOUT")
    assert 'name="tabletop"' in about and "version=" in about
    assert talk(engine, "END") == [] and engine.finished


def test_swap2board_all_three_cases(engine: GomocupEngine) -> None:
    talk(engine, "START 15")
    (opening,) = talk(engine, "SWAP2BOARD", "DONE")
    stones = [coords(t) for t in opening.split()]
    assert len(stones) == 3 and len(set(stones)) == 3
    # case 2: three stones, bare X,Y lines as in the spec
    (answer,) = talk(engine, "SWAP2BOARD", *[f"{x},{y}" for x, y in stones], "DONE")
    assert answer == "SWAP" or len(answer.split()) in (1, 2)
    # case 3: five stones, X,Y,colour lines as Rapfi wants them
    five = ["7,7,1", "8,7,2", "7,9,1", "9,9,2", "6,6,1"]
    (answer,) = talk(engine, "SWAP2BOARD", *five, "DONE")
    assert answer == "SWAP" or len(answer.split()) == 1
    assert talk(engine, "SWAP2BOARD", "7,7", "DONE")[0].startswith("ERROR")


def test_engine_process_flushes_each_reply() -> None:
    proc = subprocess.Popen([TABLETOP, "engine", "gomocup", "--level", "4"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for command, check in (("START 15", "OK"), ("BEGIN", "7,7"), ("ABOUT", 'name="tabletop"')):
            proc.stdin.write(command + "\r\n")
            proc.stdin.flush()
            assert check in proc.stdout.readline()  # read before sending more: no buffering
        proc.stdin.write("END\r\n")
        proc.stdin.flush()
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == ""  # nothing after END
    finally:
        if proc.poll() is None:
            proc.kill()


def test_run_engine_on_streams() -> None:
    out = io.StringIO()
    assert run_engine(3, io.StringIO("START 9\nBEGIN\nEND\nBEGIN\n"), out, base_bytes=BASE) == 0
    assert out.getvalue().splitlines() == ["OK", "4,4"]


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
def test_manager_plays_full_games_against_our_engine(rule: str) -> None:
    board = gomoku(15, rule)
    with GomocupPlayer(f"{TABLETOP} engine gomocup --level 5") as external:
        ours = level_player(4)
        while not board.is_game_over():
            mover = external if len(board.move_stack) % 2 == 0 else ours
            move = mover.choose(board.copy(), Limit(seconds=2))
            board.push(move)
        assert board.outcome() is not None
        assert external.identify().startswith('name="tabletop"')


def test_manager_against_manager_restarts_with_board_between_games() -> None:
    with GomocupPlayer(f"{TABLETOP} engine gomocup --level 5") as a, \
            GomocupPlayer(f"{TABLETOP} engine gomocup --level 4") as b:
        for game in range(2):
            board = gomoku(9)
            if game == 1:
                board.push("e5")  # a position the engines have not seen: BOARD after RESTART
            players = [a, b]
            while not board.is_game_over():
                board.push(players[len(board.move_stack) % 2].choose(board.copy(), Limit(seconds=2)))
            assert board.outcome() is not None


FAKE = """
import sys, time
mode = sys.argv[1]
for line in sys.stdin:
    cmd = line.strip().split(" ")[0].upper()
    if cmd == "INFO":
        if mode == "rapfi" and "rule" in line:
            print("ERROR unsupported INFO value", flush=True) if "rule 8" in line else None
        continue
    if cmd in ("START", "RECTSTART", "RESTART"):
        print("OK", flush=True)
    elif cmd == "END":
        break
    elif cmd in ("BEGIN", "TURN", "BOARD"):
        if cmd == "BOARD":
            for l in sys.stdin:
                if l.strip().upper() == "DONE":
                    break
        if mode == "sleep":
            time.sleep(30)
        elif mode == "garbage":
            print("I think 7 7", flush=True)
        elif mode == "occupied":
            print("MESSAGE thinking hard", flush=True)
            print("DEBUG depth 1", flush=True)
            print("7,7", flush=True)
        elif mode == "crash":
            sys.exit(3)
        else:
            print("MESSAGE ok", flush=True)
            print("0,0", flush=True)
    else:
        print("ERROR unknown command" if mode == "rapfi" else "UNKNOWN", flush=True)
"""


@pytest.fixture
def fake(tmp_path: Path) -> str:
    script = tmp_path / "fake_brain.py"
    script.write_text(textwrap.dedent(FAKE))
    return f"{sys.executable} {script}"


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("sleep", "timed out"), ("garbage", "malformed reply"), ("occupied", "illegal move"), ("crash", "exited")],
)
def test_manager_raises_a_clear_error_for_a_broken_engine(fake: str, mode: str, reason: str) -> None:
    board = gomoku(15)
    board.push("h8")  # (7,7)
    with GomocupPlayer(f"{fake} {mode}", reply_grace=0.5) as player:
        started = time.monotonic()
        with pytest.raises(GomocupError, match=reason):
            player.choose(board, Limit(seconds=0.5))
        assert time.monotonic() - started < 10


def test_manager_tolerates_rapfi_deviations(fake: str) -> None:
    board = gomoku(15, "caro")
    with GomocupPlayer(f"{fake} rapfi") as player:
        move = player.choose(board, Limit(seconds=1))
        assert (move.col, move.row) == (0, 0)
        assert any(n.startswith("ignored after INFO: ERROR") for n in player.notes)
    with GomocupPlayer(f"{fake} rapfi") as player:
        assert player.choose(gomoku(15, "renju"), Limit(seconds=1)) == board.move_at(0, 0)
        assert player.notes and player.notes[0].startswith("MESSAGE")


def test_manager_reports_a_missing_program() -> None:
    with pytest.raises(GomocupError, match="cannot start"):
        GomocupPlayer("/nonexistent/pbrain-nothing").choose(gomoku(15))


def test_manager_sends_a_set_up_position_as_board() -> None:
    text = "/".join(["-" * 9] * 3 + ["---XO----", "----X----", "---O-----"] + ["-" * 9] * 3) + " O"
    board = gomoku(9, position=text)
    assert not board.move_stack
    with GomocupPlayer(f"{TABLETOP} engine gomocup --level 5") as external:
        move = external.choose(board, Limit(seconds=2))
        assert board.is_legal(move)
        board.push(move)
        board.push(level_player(5).choose(board))
        assert board.is_legal(external.choose(board.copy(), Limit(seconds=2)))  # and again, after RESTART


RECORDER = """
import sys
with open(sys.argv[1], "w") as heard:
    for line in sys.stdin:
        heard.write(line.strip() + "\\n")
        heard.flush()
        cmd = line.strip().split(" ")[0].upper()
        if cmd == "YXSHOWINFO":
            print("MESSAGE details on", flush=True)
        elif cmd == "START":
            print("OK", flush=True)
        elif cmd in ("BEGIN", "TURN"):
            print("0,0", flush=True)
        elif cmd == "END":
            break
"""


def test_start_lines_reach_a_fresh_engine_before_the_rule_and_start(tmp_path: Path) -> None:
    script, heard = tmp_path / "recorder.py", tmp_path / "heard.txt"
    script.write_text(textwrap.dedent(RECORDER))
    with GomocupPlayer(f"{sys.executable} {script} {heard}", start_lines=("YXSHOWINFO",)) as player:
        assert player.choose(gomoku(15, "renju"), Limit(seconds=1)) == gomoku(15).move_at(0, 0)
        assert "MESSAGE details on" in player.notes
    assert heard.read_text().splitlines()[:3] == ["YXSHOWINFO", "INFO rule 4", "START 15"]
