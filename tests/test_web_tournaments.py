# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser check of tournaments (issue 45), in Debian's chromium against the module's ``tabletop
serve`` of ``test_web.py``: an arena created with the form, two players who join from its page
and are taken to each game they are paired in, a spectator whose page shows the games and the
standings change live (never reloaded) and the winner and podium at the end; and a swiss made
with the same form."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Error, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    STEP_TIMEOUT_MS,
    base_url,
    browser,
    doc_shot,
    shot,
    square,
)
from test_web_bots import account

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)



class Browsers:
    """Browser contexts, one per person (signed in with their client's cookie, or signed out);
    every script error of their pages is kept in ``errors``."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def page(self, client: httpx.Client | None) -> Page:
        ctx = self.browser.new_context(viewport={"width": 1200, "height": 900})
        ctx.set_default_timeout(STEP_TIMEOUT_MS)
        if client is not None:
            ctx.add_cookies([{"name": "tabletop_session", "value": client.cookies["tabletop_session"],
                              "url": self.base_url}])
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return page


@pytest.fixture
def browsers(browser: Browser, base_url: str) -> Iterator[Browsers]:
    made = Browsers(browser, base_url)
    try:
        yield made
    finally:
        for ctx in made.contexts:
            ctx.close()


def score_text(score: float) -> str:
    """A score as the page writes it: 3, ½, 2½."""
    whole = int(score)
    return str(whole) if score == whole else f"{whole or ''}½"


# the page's game when this page holds the seat to move in it, else null
MY_TURN = """() => { const t = window.tabletop; const r = t && t.conn && t.room;
  if (!r || r.outcome || !r.turn || !t.seat.tokens[r.turn] || t.awaitingTurn) return null;
  return {room: t.id, moves: (r.moves || []).length, legal: (r.legal || []).filter((m) => m !== 'pass')}; }"""


def play_turns(players: list[Page], done: Any, seconds: float = 90) -> set[str]:
    """Play the first legal move whenever one of ``players``' pages is a game where it is their
    turn, until ``done()``; the rooms played in.  A page may be on the tournament's page, or being
    taken to its next game, meanwhile."""
    rooms: set[str] = set()
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"the tournament did not finish in {seconds} s"
        for page in players:
            try:
                turn = page.evaluate(MY_TURN)
                if not turn or not turn["legal"]:
                    continue
                rooms.add(turn["room"])
                square(page, turn["legal"][0]).click(timeout=3000)
                page.wait_for_function(f"() => (window.tabletop.room.moves || []).length > {turn['moves']}",
                                       timeout=5000, polling=POLL_MS)
            except Error:
                continue  # the page left for the next game, or the game ended meanwhile
        time.sleep(0.05)
    return rooms


def test_an_arena_made_in_the_browser_pairs_its_players_and_its_page_follows_live_to_the_podium(
    browsers: Browsers, base_url: str
) -> None:
    tag = secrets.token_hex(3)
    ann, bob = account(base_url, f"ann{tag}"), account(base_url, f"bob{tag}")
    host, guest, watcher = browsers.page(ann), browsers.page(bob), browsers.page(None)
    # one client for the polls below: each httpx.get() builds a client (some 45 ms of processor time)
    api = httpx.Client(base_url=base_url, timeout=30)

    # the start page's top bar leads to the tournaments; the form makes a 5-minute Tic-tac-toe arena
    host.goto(base_url + "/")
    host.get_by_role("link", name="Tournaments").click()
    host.wait_for_url("**/tournaments")
    form = host.get_by_role("form", name="New tournament")
    form.get_by_label("Name").fill(f"Quick {tag}")
    form.get_by_label("Game").select_option("tictactoe")
    form.get_by_label("Clock").select_option("60+0")
    form.get_by_label("Length (minutes)").fill("5")
    expect(form.get_by_label("Rounds")).to_be_hidden()
    form.get_by_role("button", name="Create tournament").click()
    host.wait_for_url(re.compile(r".*/tournament/[^/]+$"))
    tournament_id = host.url.rsplit("/", 1)[1]
    made = httpx.get(f"{base_url}/api/tournaments/{tournament_id}").json()
    assert (made["kind"], made["game"], made["clock"]["initial"], made["minutes"], made["rated"]) == (
        "arena", "tictactoe", 60, 5, True)
    expect(host.locator("#tournament-title")).to_have_text(f"Quick {tag}")
    expect(host.locator("#tournament-meta")).to_contain_text("Arena · Tic-tac-toe · 1+0 · rated · 5 min")

    watcher.goto(f"{base_url}/tournament/{tournament_id}")
    expect(watcher.locator("#tournament-live")).to_have_text("Live")
    expect(watcher.locator("#tournament-join")).to_be_hidden()  # signed out: nothing to join with
    watcher.evaluate("() => { window.notReloaded = true; }")

    host.get_by_role("button", name="Join").click()
    expect(watcher.locator("#standings-rows tr")).to_have_count(1)  # live: the watcher's page was not reloaded
    guest.goto(f"{base_url}/tournament/{tournament_id}")
    guest.get_by_role("button", name="Join").click()
    # the two are paired at once and both pages open the game; the watcher sees it begin
    host.wait_for_url("**/play/*")
    guest.wait_for_url("**/play/*")
    first_room = host.url.rsplit("/", 1)[1]
    assert guest.url.endswith(first_room)
    expect(watcher.locator(f"#tournament-games tr[data-room='{first_room}'] td.result")).to_have_text("playing")
    expect(host.locator("#tournament-link")).to_contain_text(f"Quick {tag}")  # the way back, from the room state
    expect(host.locator("#rematch")).to_be_hidden()  # the tournament pairs its players
    shot(host, "tournament-game")
    shot(watcher, "tournament-running")

    def first_game_over() -> bool:
        state = api.get(f"/api/rooms/{first_room}").json()
        return state["outcome"] is not None

    play_turns([host, guest], first_game_over)
    result = watcher.locator(f"#tournament-games tr[data-room='{first_room}'] td.result")
    expect(result).to_have_text(re.compile(r"^(1-0|0-1|½-½)$"))
    expect(watcher.locator("#standings-rows tr").first).to_contain_text(re.compile(r"1 \(\d/\d/\d\)"))
    expect(watcher.locator("#tournament-finish")).to_be_hidden()  # only its creator ends it

    # the arena pairs the two again at once and both game pages follow to the new game; only then
    # does the creator leave for the tournament's page (a goto before would race that navigation)
    host.wait_for_url(lambda url: "/play/" in url and not url.endswith(first_room))
    guest.wait_for_url(lambda url: "/play/" in url and not url.endswith(first_room))
    # the creator ends it from its page: no new pairing; their game under way is played out
    host.goto(f"{base_url}/tournament/{tournament_id}")
    host.get_by_role("button", name="End the tournament").click()
    expect(watcher.locator("#tournament-status")).to_have_text(re.compile(r"^(No more pairings|Finished)"))
    if api.get(f"/api/tournaments/{tournament_id}").json()["status"] != "finished":
        host.get_by_role("link", name="Your game is under way: open it").click()

    def finished() -> bool:
        return bool(api.get(f"/api/tournaments/{tournament_id}").json()["status"] == "finished")

    rooms = play_turns([host, guest], finished) | {first_room}
    final = api.get(f"/api/tournaments/{tournament_id}").json()
    assert {g["room"] for g in final["games"]} >= rooms and all(g["result"] for g in final["games"])
    # the watcher's page, never reloaded, shows the end as the server has it
    expect(watcher.locator("#tournament-podium")).to_be_visible()
    expect(watcher.locator("#tournament-winner")).to_have_text(f"{final['winner']} wins Quick {tag}")
    expect(watcher.locator("#podium li")).to_have_count(2)
    expect(watcher.locator("#podium .place-1")).to_contain_text(final["podium"][0])
    expect(watcher.locator("#tournament-status")).to_have_text(f"Finished: {final['winner']} wins")
    expect(watcher.locator("#tournament-games tr")).to_have_count(len(final["games"]))
    rows = watcher.locator("#standings-rows tr")
    expect(rows).to_have_count(2)
    for i, standing in enumerate(final["standings"]):
        expect(rows.nth(i).locator("td.score")).to_have_text(score_text(standing["score"]))
        expect(rows.nth(i)).to_contain_text(standing["name"])
        assert standing["games"] == len(final["games"])
    assert watcher.evaluate("() => window.notReloaded") is True
    doc_shot(watcher, "tournament-podium", full_page=True)
    # the tournament lists as finished, with its winner
    watcher.goto(base_url + "/tournaments")
    expect(watcher.locator(f"#tournament-rows tr[data-tournament='{tournament_id}']")).to_contain_text(final["winner"])
    assert browsers.errors == []


def test_a_swiss_made_in_the_browser_takes_players_until_its_first_round(
    browsers: Browsers, base_url: str
) -> None:
    tag = secrets.token_hex(3)
    cat = account(base_url, f"cat{tag}")
    page = browsers.page(cat)
    page.goto(base_url + "/tournaments")
    form = page.get_by_role("form", name="New tournament")
    form.get_by_label("Kind").select_option("swiss")
    expect(form.get_by_label("Length (minutes)")).to_be_hidden()
    form.get_by_label("Rounds").fill("3")
    form.get_by_label("Game").select_option("gomoku")
    form.get_by_label("Rule").select_option("renju")
    form.get_by_label("Starts").select_option("300")
    form.get_by_label("Rated").uncheck()
    form.get_by_role("button", name="Create tournament").click()
    page.wait_for_url(re.compile(r".*/tournament/[^/]+$"))
    tournament_id = page.url.rsplit("/", 1)[1]
    made = httpx.get(f"{base_url}/api/tournaments/{tournament_id}").json()
    assert (made["kind"], made["rounds"], made["options"]["rule"], made["rated"], made["status"]) == (
        "swiss", 3, "renju", False, "upcoming")
    expect(page.locator("#tournament-meta")).to_contain_text("Swiss · Gomoku renju 15×15 · 3+2 · casual · 3 rounds")
    expect(page.locator("#tournament-status")).to_have_text(re.compile(r"Starts in [45]:\d\d"))
    page.get_by_role("button", name="Join").click()
    expect(page.locator("#standings-rows tr")).to_have_count(1)
    page.get_by_role("button", name="Leave").click()  # before the start, leaving a swiss removes the player
    expect(page.locator("#standings-rows tr")).to_have_count(0)
    expect(page.get_by_role("button", name="Join")).to_be_visible()
    page.goto(base_url + "/tournaments")
    expect(page.locator(f"#tournament-rows tr[data-tournament='{tournament_id}']")).to_contain_text(re.compile(r"in [45]:"))
    page.set_viewport_size({"width": 375, "height": 740})  # a phone: the list fits its width
    page.reload()
    expect(page.locator(f"#tournament-rows tr[data-tournament='{tournament_id}']")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    doc_shot(page, "tournaments-phone", full_page=True)
    missing = page.goto(base_url + "/tournament/no-such-one")
    assert missing is not None and missing.status == 404
    expect(page.locator("#missing-title")).to_have_text("No such tournament")
    assert browsers.errors == []
