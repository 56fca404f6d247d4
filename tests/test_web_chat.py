# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""The chat of an online game in the browser (issue 44): two players and a spectator, each in a
browser context of its own, against a real server (``test_server.py``'s, with cold workers: no
computer plays here) and with the browser and helpers of ``test_web.py``.

Markup in a message shows as text; the length and rate limits are told under the chat; a mute
hides a person's messages and survives a reload; the spectators' chat reaches the players only
after the game; the review page shows both.  Screenshots at 1280x800 and on a 390x844 phone go to
``test-artifacts/web/``; the chat must sit beside or below the board, never over it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from test_server import Server
from test_web import (  # noqa: F401
    STEP_TIMEOUT_MS,
    PageErrors,
    browser,
    measured_box,
    my_colors,
    shot,
    start_game,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose workers start cold (test_server's): nothing here asks the computer for a
    move, and loading the engines first about doubles the time the server takes to answer."""
    server = Server(tmp_path_factory.mktemp("web-chat") / "web.db")
    try:
        yield server.url
    finally:
        server.stop()


MARKUP = '<b>bold</b> <img src=x onerror="window.hacked=1">'


def chat_lines(page: Page) -> list[str]:
    """The chat log's lines as shown (the mute buttons' words left out)."""
    value = page.evaluate(
        """() => [...document.querySelectorAll('#chat-log li')].map((li) =>
            [...li.childNodes].filter((n) => n.nodeName !== 'BUTTON').map((n) => n.textContent).join('').trim())"""
    )
    assert isinstance(value, list)
    return [str(v) for v in value]


def send(page: Page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def apart(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The two boxes do not overlap."""
    return (
        a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
    )


def test_players_and_a_spectator_chat_as_text_with_limits_mutes_and_the_review(
    browser: Browser, base_url: str
) -> None:
    errors = PageErrors()
    contexts: list[BrowserContext] = [
        browser.new_context(viewport={"width": 1280, "height": 800}),
        browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=3),
        browser.new_context(viewport={"width": 1280, "height": 800}),
    ]
    try:
        for ctx in contexts:
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
        host, guest, watcher = (errors.watch(ctx.new_page()) for ctx in contexts)
        room_id = start_game(host, base_url, "tictactoe", "online")
        guest.goto(host.locator("#invite-url").input_value())
        wait_ready(guest)
        assert my_colors(guest) == ["white"]
        watcher.goto(f"{base_url}/play/{room_id}")
        wait_ready(watcher)
        expect(host.locator("#chat-rule")).to_contain_text("spectators' chat shows after the game")
        expect(watcher.locator("#chat-rule")).to_contain_text("the players read it after the game")

        # markup is shown as the characters typed, never as markup
        send(host, MARKUP)
        for page in (host, guest, watcher):
            expect(page.locator("#chat-log li")).to_have_count(1)
            assert chat_lines(page) == [f"X {MARKUP}"]
            assert page.locator("#chat-log img, #chat-log li > b + b").count() == 0
        assert host.evaluate("() => window.hacked") is None
        expect(host.locator("#chat-input")).to_have_value("")  # sent: the field is cleared

        # the spectator's chat stays with the spectators while the game goes on
        send(watcher, "Take the centre!")
        expect(watcher.locator("#chat-log li")).to_have_count(2)
        assert chat_lines(watcher)[1].endswith("(watching) Take the centre!")
        send(guest, "hi")
        expect(host.locator("#chat-log li")).to_have_count(2)
        assert chat_lines(host) == [f"X {MARKUP}", "O hi"]
        assert chat_lines(guest) == [f"X {MARKUP}", "O hi"]
        expect(watcher.locator("#chat-log li")).to_have_count(3)

        # the limits are told in words under the chat; a refused message stays in the field
        send(host, "x" * 301)
        expect(host.locator("#chat-error")).to_contain_text("at most 300 characters")
        expect(host.locator("#chat-input")).to_have_value("x" * 301)
        for n in range(4):  # the fifth message within ten seconds is the last one allowed
            send(host, f"quick {n}")
            expect(host.locator("#chat-input")).to_have_value("")
        send(host, "one too many")
        expect(host.locator("#chat-error")).to_contain_text("at most 5 chat messages in 10 seconds")
        expect(guest.locator("#chat-log li")).to_have_count(6)

        shot(host, "chat-desktop-player")
        shot(guest, "chat-phone-player")
        shot(guest, "chat-phone-player-page", full_page=True)
        shot(watcher, "chat-desktop-spectator")
        for page in (host, guest):  # the chat never covers the board
            assert apart(measured_box(page, "#chat"), measured_box(page, "#board")), "the chat overlaps the board"
        assert guest.evaluate("() => document.documentElement.scrollWidth") <= 390, "no sideways scrolling"
        phone_board = measured_box(guest, "#board")
        assert phone_board["width"] >= 300, "the board keeps the phone's width"

        # a mute hides that person's messages, and this browser remembers it
        guest.get_by_role("button", name="Mute X", exact=True).first.click()
        expect(guest.locator("#chat-log li")).to_have_count(1)
        assert chat_lines(guest) == ["O hi"]
        guest.reload()
        wait_ready(guest)
        expect(guest.get_by_role("button", name="Unmute X", exact=True)).to_be_visible()
        assert chat_lines(guest) == ["O hi"]
        guest.get_by_role("button", name="Unmute X", exact=True).click()
        expect(guest.locator("#chat-log li")).to_have_count(6)

        # after the game the players read the spectators' chat too
        host.once("dialog", lambda dialog: dialog.accept())
        host.locator("#resign").click()
        expect(guest.locator("#chat-log li")).to_have_count(7)
        assert "Take the centre!" in " ".join(chat_lines(guest))
        expect(guest.locator("#chat-rule")).to_contain_text("players' and the spectators' chat")

        # the review shows both channels, read-only
        watcher.goto(f"{base_url}/review/{room_id}")
        expect(watcher.locator("#chat-log li")).to_have_count(7)
        expect(watcher.locator("#chat-form")).to_be_hidden()
        lines = chat_lines(watcher)
        assert lines[0] == f"X {MARKUP}" and lines[1].endswith("Take the centre!")
        shot(watcher, "chat-review")
        assert errors.errors == []
    finally:
        for ctx in contexts:
            ctx.close()
