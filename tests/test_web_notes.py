# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the line under the board: a note says what is true now, and goes
when the position or the room's company it spoke of has changed."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    SLOW_LINKS,
    STEP_TIMEOUT_MS,
    PageErrors,
    _create_room,
    _position_before_a_forced_pass,
    base_url,
    browser,
    context,
    kept_page,
    page,
    page_errors,
    play,
    room,
    shot,
    slow_links,
    start_game,
    wait_links_idle,
    wait_moves,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


def message(page: Page) -> str:
    return str(page.locator("#message").inner_text()).strip()


def test_a_pass_note_goes_with_the_next_move_and_with_an_undo(page: Page, base_url: str) -> None:
    position, move, passer = _position_before_a_forced_pass()
    created = _create_room(
        base_url, {"game": "reversi", "options": {"size": 6}, "position": position, "mode": "local"}
    )
    page.goto(base_url + "/")
    seat = {"tokens": created["tokens"], "invite": None, "seq": 0, "mode": "local"}
    page.evaluate(
        "([id, seat]) => localStorage.setItem('tabletop.room.' + id, JSON.stringify(seat))",
        [created["room"], seat],
    )
    page.goto(f"{base_url}/play/{created['room']}")
    wait_ready(page)
    play(page, move)
    wait_moves(page, "moves.includes('pass')")
    expect(page.locator("#message")).to_contain_text(f"{passer.capitalize()} has no move and passes")
    # the side that moved before the pass moves again: the pass is history now, and the
    # note (which would time out after some seconds) must be gone at once
    state = room(page)
    play(page, next(m for m in state["legal"] if m != "pass"))
    assert message(page) == "", "the pass note outlived the move after it"
    shot(page, "note-after-the-move-after-a-pass")
    # an undo changes the position too: no note about an earlier position comes back
    before = len(room(page)["moves"])
    page.get_by_role("button", name="Undo").click()
    wait_moves(page, f"moves.length < {before}")
    assert "has no move" not in message(page) or room(page)["moves"][-1] == "pass"


def test_the_opponent_leaving_is_told_and_replaces_the_joined_note(browser: Browser, base_url: str) -> None:
    errors = PageErrors()
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    guest_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        for ctx in (host_ctx, guest_ctx):
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
        host = errors.watch(host_ctx.new_page())
        host.add_init_script(SLOW_LINKS)
        start_game(host, base_url, "reversi", "online")
        # The host's link is slow, its answers to a GET of the room slowest: the state it asks for
        # when told the guest joined is answered while the guest is here, and handed over after
        # the socket said that the guest left.
        slow_links(host, socket_ms=1500, get_ms=4000)
        guest = errors.watch(guest_ctx.new_page())
        guest.goto(host.locator("#invite-url").input_value())
        wait_ready(guest)
        expect(host.locator("#message")).to_contain_text("Your opponent has joined")
        guest.close()
        expect(host.locator("#message")).to_contain_text("Your opponent has left: White is away")
        wait_links_idle(host)
        expect(host.locator("#player-white .kind")).to_contain_text("away")
        shot(host, "note-opponent-left")
        # the note stays while they are away (no timer takes it), and goes when they come back
        host.wait_for_timeout(1000)
        expect(host.locator("#message")).to_contain_text("Your opponent has left")
        guest = errors.watch(guest_ctx.new_page())
        guest.goto(f"{base_url}/play/{room(host)['id']}")
        wait_ready(guest)
        expect(host.locator("#message")).to_contain_text("Your opponent is back: White is here")
        expect(host.locator("#player-white .kind")).not_to_contain_text("away")
        assert errors.errors == []
    finally:
        host_ctx.close()
        guest_ctx.close()
