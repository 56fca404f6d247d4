# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser test of the console: the main pages, signed out and signed in, log no error and
make no request that fails (an expected answer, such as "signed out", is not a refusal)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Request, Response, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    STEP_TIMEOUT_MS,
    _create_room,
    base_url,
    browser,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


class Noise:
    """Console errors and warnings, failed requests and answers of 400 or more of a context's pages."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def watch(self, page: Page) -> Page:
        def console(message: ConsoleMessage) -> None:
            if message.type in ("error", "warning"):
                self.found.append(f"{page.url}: console {message.type}: {message.text}")

        def failed(request: Request) -> None:
            # a socket closed by leaving the page is not a failure of the page
            if request.failure != "net::ERR_ABORTED":
                self.found.append(f"{page.url}: {request.method} {request.url} failed: {request.failure}")

        def answered(response: Response) -> None:
            if response.status >= 400:
                self.found.append(f"{page.url}: {response.request.method} {response.url} -> {response.status}")

        page.on("console", console)
        page.on("pageerror", lambda error: self.found.append(f"{page.url}: script error: {error}"))
        page.on("requestfailed", failed)
        page.on("response", answered)
        return page


def visit_main_pages(ctx: BrowserContext, base_url: str, noise: Noise, player: str, room_id: str) -> None:
    page = noise.watch(ctx.new_page())
    page.goto(base_url + "/")
    expect(page.locator("#start-form")).to_be_visible()
    page.wait_for_function("() => document.querySelector('#account').children.length > 0", polling=POLL_MS)
    page.goto(base_url + "/lobby")
    expect(page.locator("#lobby-live")).to_have_text("Live")
    page.goto(f"{base_url}/play/{room_id}")
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    page.goto(f"{base_url}/review/{room_id}")
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    page.goto(f"{base_url}/@/{player}")
    expect(page.locator("#player-title")).to_contain_text(player)
    page.goto(base_url + "/leaderboard/reversi-8-blitz")
    expect(page.locator("#player-meta")).to_contain_text("at least 10 rated games")
    page.goto(base_url + "/")
    page.get_by_label("A friend at this screen").check()
    page.get_by_role("button", name="Start game").click()
    page.wait_for_url("**/play/*")
    wait_ready(page)
    page.locator('#board g.sq[data-move="d3"]').click()
    page.wait_for_function("() => (window.tabletop.room.moves || []).length === 1", polling=POLL_MS)
    page.close()


def test_the_main_pages_log_no_error_signed_out_or_signed_in(browser: Browser, base_url: str) -> None:
    finished = _create_room(
        base_url, {"game": "tictactoe", "mode": "local", "moves": ["a1", "b1", "a2", "b2", "a3"]}
    )
    player = f"quiet_{secrets.token_hex(3)}"
    contexts: list[BrowserContext] = []
    found: dict[str, Any] = {}
    try:
        for signed_in in (False, True):
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
            contexts.append(ctx)
            noise = Noise()
            if signed_in:
                answer = ctx.request.post(
                    base_url + "/api/accounts", data={"name": player, "password": "correct horse battery"}
                )
                assert answer.status == 201, answer.text()
            else:
                # the player page needs a player: one made in another browser
                other = browser.new_context()
                contexts.append(other)
                other.request.post(
                    base_url + "/api/accounts",
                    data={"name": player + "x", "password": "correct horse battery"},
                )
            visit_main_pages(ctx, base_url, noise, player if signed_in else player + "x", finished["room"])
            found["signed in" if signed_in else "signed out"] = noise.found
    finally:
        for ctx in contexts:
            ctx.close()
    problems = [f"{state}: {problem}" for state, listed in found.items() for problem in listed]
    assert not problems, "\n".join(problems)


def test_an_invite_link_opened_after_both_seats_are_taken_logs_no_refusal(browser: Browser, base_url: str) -> None:
    created = _create_room(base_url, {"game": "reversi", "mode": "online"})
    invite = created["invite"]  # the whole link
    contexts: list[BrowserContext] = []
    try:
        for _ in range(2):
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
            contexts.append(ctx)
        guest = contexts[0].new_page()
        guest.goto(invite)
        wait_ready(guest)
        late, noise = contexts[1].new_page(), Noise()
        noise.watch(late)
        late.goto(invite)
        late.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
        expect(late.locator("#message")).to_have_text("Both seats are taken, so you are watching this game.")
        assert noise.found == []
    finally:
        for ctx in contexts:
            ctx.close()
