# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the game page (issue 44): redo past a forced pass, the clock after a
flag fall, and placing stones on a phone, in Debian's chromium against a real server.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per
module, same flags, no downloaded browser).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    STEP_TIMEOUT_MS,
    PageErrors,
    _create_room,
    base_url,
    browser,
    context,
    kept_page,
    measured_box,
    page,
    page_errors,
    play,
    room,
    shot,
    square,
    wait_moves,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


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


# ------------------------------------------------------------------ a phone
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


@pytest.fixture
def phone(browser: Browser, page_errors: PageErrors) -> Iterator[Page]:
    ctx = browser.new_context(**PHONE)
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        yield page_errors.watch(ctx.new_page())
    finally:
        ctx.close()


def point_box(page: Page, name: str) -> dict[str, float]:
    return measured_box(page, f'#board g.sq[data-move="{name}"]')


def tap(page: Page, name: str) -> None:
    box = point_box(page, name)
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def ghost_on(page: Page) -> list[str]:
    """The points that show a stone not yet placed."""
    return list(page.eval_on_selector_all("#board g.sq:has(.ghost)", "gs => gs.map(g => g.dataset.move)"))


def test_on_a_phone_a_gomoku_stone_is_placed_by_a_second_tap_on_the_same_point(phone: Page, base_url: str) -> None:
    created = _create_room(base_url, {"game": "gomoku", "options": {"size": 15, "rule": "freestyle"}, "mode": "local"})
    open_room(phone, base_url, created)
    expect(phone.get_by_label("Tap twice to place a stone")).to_be_checked()  # on by default: 15x15 on touch
    tap(phone, "h8")
    expect(phone.locator("#message")).to_contain_text("Tap h8 again")
    assert ghost_on(phone) == ["h8"]
    tap(phone, "j9")  # a tap elsewhere moves the stone shown
    assert ghost_on(phone) == ["j9"]
    phone.wait_for_timeout(300)
    assert room(phone)["moves"] == [], "a first tap placed nothing"
    shot(phone, "phone-gomoku-ghost-stone")
    tap(phone, "j9")
    wait_moves(phone, "moves.length === 1")
    assert room(phone)["moves"] == ["j9"] and ghost_on(phone) == []
    # the board runs across the whole screen, its points a finger's width apart, and the names fit
    board = measured_box(phone, "#board svg")
    assert board["width"] >= 389, board
    spacing = point_box(phone, "b8")["x"] - point_box(phone, "a8")["x"]
    assert spacing >= 24, f"{spacing:.1f} CSS px between two points"
    for color in ("black", "white"):
        name = phone.locator(f"#player-{color} .name")
        assert name.evaluate("n => n.scrollWidth <= n.clientWidth"), f"{color}'s name is cut"
    # the player may turn it off: one tap places at once
    phone.get_by_label("Tap twice to place a stone").uncheck()
    tap(phone, "h8")
    wait_moves(phone, "moves.length === 2")
    shot(phone, "phone-gomoku-tap-twice-off")


def test_a_mouse_click_places_a_stone_at_once_and_the_tap_setting_is_not_offered(page: Page, base_url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    created = _create_room(base_url, {"game": "gomoku", "options": {"size": 15, "rule": "freestyle"}, "mode": "local"})
    open_room(page, base_url, created)
    expect(page.locator("#tap-twice-box")).to_be_hidden()
    play(page, "h8")
    assert room(page)["moves"] == ["h8"] and ghost_on(page) == []
    shot(page, "desktop-gomoku-click-places")
