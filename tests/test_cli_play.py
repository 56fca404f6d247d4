"""Terminal play driven through a pseudo-terminal, as a person would type."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect
import pytest

TABLETOP = str(Path(sys.executable).parent / "tabletop")


def spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(TABLETOP, list(args), encoding="utf-8", timeout=30, dimensions=(40, 120),
                          env={"TERM": "xterm", "COLUMNS": "120", "PATH": "/usr/bin:/bin"})
    return child


def test_a_hot_seat_game_with_bad_input_undo_and_a_win() -> None:
    child = spawn("play", "tictactoe", "--white", "human")
    child.expect("Black to move")
    child.sendline("zz")
    child.expect("cannot read move 'zz'")
    child.expect("Black to move")  # the same prompt again
    child.sendline("b2")
    child.expect("White to move")
    child.sendline("b2")
    child.expect("occupied")
    child.expect("White to move")
    child.sendline("a1")
    child.expect("Black to move")
    child.sendline("u")
    child.expect("took back a1")
    child.expect("White to move")
    for mv, nxt in [("a1", "Black"), ("b1", "White"), ("a3", "Black")]:
        child.sendline(mv)
        child.expect(f"{nxt} to move")
    child.sendline("b3")  # b1-b2-b3
    child.expect("Black wins")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_against_the_perfect_computer_with_a_hint_and_new_game() -> None:
    child = spawn("play", "tictactoe", "--white", "perfect")
    child.expect("Black to move")
    child.sendline("h")
    child.expect(r"hint: \w\d \(\+0 exact\)")
    child.sendline("a1")
    child.expect("White plays b2")  # the only move that does not lose against a corner
    child.expect("Black to move")
    child.sendline("n")
    child.expect("Black to move")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "tictactoe", "--white", "level:42"], "level must be 1..10"),
        (["play", "tictactoe", "--position", "XX/--- X"], "cannot read position"),
        (["match", "tictactoe", "--a", "wizard", "--b", "random"], "bad player spec 'wizard'"),
        (["match", "tictactoe", "--a", "random", "--b", "random", "--games", "0"], "--games"),
    ],
)
def test_bad_input_is_one_line_with_exit_status_2(args: list[str], message: str) -> None:
    child = pexpect.spawn(TABLETOP, args, encoding="utf-8", timeout=30)
    child.expect(pexpect.EOF)
    out = child.before or ""
    child.close()
    assert child.exitstatus == 2
    assert message in out
    assert "Traceback" not in out
    assert len([ln for ln in out.splitlines() if ln.strip()]) == 1
