# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the game page (issue 44): redo past a forced pass, the clock after a
flag fall, and placing stones on a phone, in Debian's chromium against a real server.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per
module, same flags, no downloaded browser).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    _create_room,
    base_url,
    browser,
    context,
    page,
    page_errors,
    play,
    room,
    shot,
    wait_moves,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]


def open_room(page: Page, base_url: str, created: dict[str, Any], mode: str = "local") -> None:
    """Open a room made through the API as the browser that holds ``created``'s tokens."""
    page.goto(base_url + "/")
    seat = {"tokens": created["tokens"], "invite": None, "seq": 0, "mode": mode}
    page.evaluate(
        "([id, seat]) => localStorage.setItem('tabletop.room.' + id, JSON.stringify(seat))",
        [created["room"], seat],
    )
    page.goto(f"{base_url}/play/{created['room']}")
    wait_ready(page)


# White's b1 leaves Black without a move on this 6x6 board: the server plays Black's pass
BEFORE_A_FORCED_PASS = "X-XXX-/OXXXX-/OOXOX-/OOOXX-/OOOO-X/OOOOO- O"


def test_redo_after_undoing_past_a_forced_pass_brings_back_every_move(page: Page, base_url: str) -> None:
    created = _create_room(
        base_url, {"game": "reversi", "options": {"size": 6}, "position": BEFORE_A_FORCED_PASS, "mode": "local"}
    )
    open_room(page, base_url, created)
    play(page, "b1")
    wait_moves(page, "moves.length === 2 && moves[1] === 'pass'")
    reply = room(page)["legal"][0]
    play(page, reply)
    undo, redo = page.get_by_role("button", name="Undo"), page.get_by_role("button", name="Redo")
    undo.click()
    wait_moves(page, "moves.length === 2")
    undo.click()
    wait_moves(page, "moves.length === 0")
    redo.click()
    wait_moves(page, "moves.length === 2")
    expect(redo).to_be_enabled()
    redo.click()
    wait_moves(page, "moves.length === 3")
    assert room(page)["moves"] == ["b1", "pass", reply]
    expect(redo).to_be_disabled()
    expect(page.locator("#message")).not_to_contain_text("no move to redo")
    shot(page, "redo-past-a-forced-pass")


def test_after_a_flag_fall_the_losers_clock_shows_zero_and_the_result(page: Page, base_url: str) -> None:
    created = _create_room(base_url, {"game": "tictactoe", "mode": "local", "clock": {"initial": 4, "increment": 0}})
    open_room(page, base_url, created)  # Black's four seconds run out with nobody acting
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible(timeout=10_000)
    expect(dialog).to_contain_text("on time")
    assert room(page)["outcome"]["reason"] == "time"
    black = page.locator("#player-black .clock")
    expect(black).to_have_text("0:00")
    page.wait_for_timeout(600)  # a few ticks of the page's clock later it still says so
    expect(black).to_have_text("0:00")
    expect(page.locator("#player-white .clock")).to_have_text("4.0")  # White's clock never ran
    shot(page, "flag-fall-clock-at-zero")
