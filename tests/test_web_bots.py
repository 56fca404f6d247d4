# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser check of bots and correspondence games (issue 45), in Debian's chromium against the
module's ``tabletop serve`` of ``test_web.py``: a bot is marked where its name shows, a
correspondence game where it is the player's move is on the start page with its time left and
opens to the player's seat, and a bot's page challenges it."""

from __future__ import annotations

import re
import secrets
import time

import httpx
import pytest
from playwright.sync_api import Browser, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    STEP_TIMEOUT_MS,
    base_url,
    browser,
    play,
    shot,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)

PASSWORD = "correct horse battery"


def account(base_url: str, name: str) -> httpx.Client:
    """A signed-up player's HTTP client (its session cookie set)."""
    client = httpx.Client(base_url=base_url, timeout=30)
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return client


def test_a_correspondence_game_against_a_bot_is_on_the_start_page_and_the_bot_is_marked(
    browser: Browser, base_url: str
) -> None:
    tag = secrets.token_hex(3)
    person, bot = account(base_url, f"pat{tag}"), account(base_url, f"bot{tag}")
    token = bot.post("/api/account/bot").json()["token"]
    seek = person.post("/api/seeks", json={"game": "reversi", "clock": {"days": 3}, "color": "black",
                                           "rated": True}).json()
    accepted = httpx.post(f"{base_url}/api/seeks/{seek['id']}/accept",
                          headers={"authorization": f"Bearer {token}"}, timeout=30).json()
    room = accepted["room"]

    ctx = browser.new_context(viewport={"width": 1200, "height": 860})
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        ctx.add_cookies([{"name": "tabletop_session", "value": person.cookies["tabletop_session"],
                          "url": base_url}])
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(base_url + "/")
        item = page.locator(f"#your-move-list li[data-room='{room}']")
        expect(item).to_contain_text(f"bot{tag}")
        expect(item.locator(".bot-mark")).to_have_text("BOT")
        expect(item).to_contain_text(re.compile(r"your move, (3 d 0 h|2 d 23 h) left"))
        shot(page, "bots-your-move")
        item.get_by_role("link").click()  # this browser holds no seat yet: the list takes it, then opens the game
        page.wait_for_url(f"**/play/{room}")
        wait_ready(page)
        expect(page.locator(".players .bot-mark")).to_have_count(1)
        expect(page.locator(".players")).to_contain_text(f"bot{tag}")
        play(page, "d3")  # the seat the list took: Black's first move lands
        shot(page, "bots-game-page")
        page.goto(f"{base_url}/@/bot{tag}")
        expect(page.locator("#player-title .bot-mark")).to_have_text("BOT")
        # the bot's page offers a challenge; the bot (here the test, over the API) accepts it
        page.get_by_role("button", name="Challenge this bot").click()
        bearer = {"authorization": f"Bearer {token}"}
        api = httpx.Client(base_url=base_url, timeout=30)  # one client for the polls (httpx.get() builds one each)
        for _ in range(100):
            waiting = [c for c in api.get("/api/challenges", headers=bearer).json()["challenges"]
                       if c["status"] == "open"]
            if waiting:
                break
            time.sleep(0.1)
        assert waiting and waiting[0]["challenger"]["name"] == f"pat{tag}" and waiting[0]["game"] == "reversi"
        started = httpx.post(f"{base_url}/api/challenges/{waiting[0]['id']}/accept", headers=bearer).json()
        page.wait_for_url(f"**/play/{started['room']}")
        wait_ready(page)
        expect(page.locator(".players .bot-mark")).to_have_count(1)
        assert errors == []
    finally:
        ctx.close()


def test_a_person_challenged_from_their_page_declines_then_accepts_under_the_top_bar(
    browser: Browser, base_url: str
) -> None:
    """A person is challenged from their own page (/@/NAME) by another; the challenge shows under
    the challenged player's top bar with its terms, Decline tells the challenger so, and Accept
    opens the same game in both browsers, one seat each."""
    tag = secrets.token_hex(3)
    asker, asked = account(base_url, f"ask{tag}"), account(base_url, f"asked{tag}")
    contexts = []
    errors: list[str] = []
    pages = []
    try:
        for client in (asker, asked):
            ctx = browser.new_context(viewport={"width": 1200, "height": 860})
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
            ctx.add_cookies([{"name": "tabletop_session", "value": client.cookies["tabletop_session"],
                              "url": base_url}])
            contexts.append(ctx)
            page = ctx.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            pages.append(page)
        challenger, challenged = pages
        challenged.goto(base_url + "/lobby")
        expect(challenged.locator("#incoming")).to_be_hidden()
        challenger.goto(f"{base_url}/@/asked{tag}")
        form = challenger.get_by_role("form", name=f"Challenge asked{tag}")
        form.locator("select[name=challenge-game]").select_option("tictactoe")
        form.locator("select[name=challenge-clock]").select_option("60+0")
        form.get_by_role("button", name=f"Challenge asked{tag}").click()
        expect(challenger.locator("#challenge-status")).to_have_text(f"Waiting for asked{tag} to answer…")

        offer = challenged.locator("#incoming-list li")
        expect(offer).to_have_count(1, timeout=10_000)  # read every 4 s
        expect(offer).to_contain_text(f"ask{tag} challenges you")
        expect(offer).to_contain_text("Tic-tac-toe · 1+0 · rated · colours drawn at random")
        shot(challenged, "challenge-incoming")
        challenged.get_by_role("button", name=f"Decline ask{tag}'s challenge").click()
        expect(challenged.locator("#incoming")).to_be_hidden()
        expect(challenger.locator("#challenge-status")).to_have_text(f"asked{tag} declined the challenge.")

        form.get_by_role("button", name=f"Challenge asked{tag}").click()
        expect(offer).to_have_count(1, timeout=10_000)
        challenged.get_by_role("button", name=f"Accept ask{tag}'s challenge").click()
        challenged.wait_for_url(re.compile(r".*/play/[^/?]+$"))
        room = challenged.url.rsplit("/", 1)[1]
        challenger.wait_for_url(f"**/play/{room}")
        for page in pages:
            wait_ready(page)
        seats = [page.evaluate("() => Object.keys(window.tabletop.seat.tokens)") for page in pages]
        assert sorted(seats[0] + seats[1]) == ["black", "white"], seats
        state = httpx.get(f"{base_url}/api/rooms/{room}").json()
        assert state["game"] == "tictactoe" and state["clocks"] is not None
        assert {state["players"][c]["name"] for c in ("black", "white")} == {f"ask{tag}", f"asked{tag}"}
        assert errors == []
    finally:
        for ctx in contexts:
            ctx.close()
