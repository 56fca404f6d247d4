# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser test of opening names (issue 44 point 6): the game page names the opening on the board
as it is played, and the review names the opening of each position it steps to."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from test_server import Server
from test_web import (  # noqa: F401  (fixtures are found by name)
    browser,
    context,
    kept_page,
    page,
    page_errors,
    play,
    shot,
    start_game,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose workers start cold (test_server's): nothing here asks the computer for a
    move, and loading the engines first about doubles the time the server takes to answer."""
    server = Server(tmp_path_factory.mktemp("web-openings") / "web.db")
    try:
        yield server.url
    finally:
        server.stop()


def test_the_opening_is_named_in_play_and_in_review(page: Page, base_url: str) -> None:
    opening = page.locator("#opening")
    start_game(page, base_url, "reversi", "friend", size="8")
    expect(opening).to_be_hidden()
    # the Tiger turned half a turn (c4 for f5): the same opening under the board's symmetry
    for move in ("c4", "e3"):
        play(page, move)
    expect(opening).to_have_text("Opening: Perpendicular Opening")
    for move in ("f6", "e6", "f5"):
        play(page, move)
    expect(opening).to_have_text("Opening: Tiger")
    play(page, "c5")  # Tiger, then off to a longer named line
    expect(opening).to_have_text("Opening: Tiger")
    play(page, "c3")
    expect(opening).to_have_text("Opening: Stephenson")
    shot(page, "opening-play-reversi")

    # stepping back names each position shown
    page.get_by_role("button", name="Previous move").click()
    expect(opening).to_have_text("Opening: Tiger")
    for _ in range(4):
        page.get_by_role("button", name="Previous move").click()
    expect(opening).to_have_text("Opening: Perpendicular Opening")
    page.get_by_role("button", name="Previous move").click()
    expect(opening).to_be_hidden()

    # the game page's export carries the game's facts, and the import reads them back
    page.locator("#export-format").select_option("sgf")
    href = page.locator("#export").get_attribute("href")
    sgf = httpx.get(base_url + str(href)).text
    assert re.search(r"DT\[\d{4}-\d{2}-\d{2}\]", sgf) and "EV[tabletop game at one screen]" in sgf, sgf
    page.goto(base_url + "/")
    page.get_by_label("Paste an SGF, GGF, PSQ or OBF record").fill(sgf)
    page.get_by_role("button", name="Read the record").click()
    expect(page.locator("#import-summary")).to_contain_text("tabletop game at one screen, 20")
    page.locator("#import-summary").scroll_into_view_if_needed()
    shot(page, "opening-import-facts")

    # a renju game's review names its opening from the third stone on, under any symmetry
    made = httpx.post(base_url + "/api/rooms", json={
        "game": "gomoku", "options": {"size": 15, "rule": "renju"}, "mode": "local",
        "moves": ["h8", "g8", "g7", "j9"],  # Kagetsu (h8 h9 i9) turned a quarter and mirrored
    })
    assert made.status_code == 201, made.text
    page.goto(f"{base_url}/review/{made.json()['room']}")
    expect(opening).to_have_text("Opening: Kagetsu (4D)")
    expect(opening).to_have_attribute("title", re.compile("花月"))
    shot(page, "opening-review-renju")
    page.locator("#move-list").focus()
    page.keyboard.press("Home")
    expect(opening).to_be_hidden()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(opening).to_be_hidden()  # two stones are no pattern yet
    page.keyboard.press("ArrowRight")
    expect(opening).to_have_text(re.compile(r"^Opening: Kagetsu"))
