# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the analysis of a whole game and the read-only review page (issue 25
point 3), in Debian's chromium against a real server.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per
module, same flags, no downloaded browser).  Screenshots for the docs go to
``docs/screenshots/`` under ``make screenshots``.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    STEP_TIMEOUT_MS,
    PageErrors,
    _create_room,
    base_url,
    browser,
    context,
    doc_shot,
    kept_page,
    page,
    page_errors,
    play,
    start_game,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]

def _get(base_url: str, path: str) -> Any:
    with urllib.request.urlopen(base_url + path, timeout=30) as response:
        return json.loads(response.read())


def finished_game(base_url: str, game: str = "reversi") -> dict[str, Any]:
    """A game two computer seats play to the end at one screen; its final state."""
    created = _create_room(
        base_url, {"game": game, "mode": "local", "seats": {"black": "level:1", "white": "level:3"}}
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        state: dict[str, Any] = _get(base_url, f"/api/rooms/{created['room']}")
        if state["outcome"] is not None:
            return state
        time.sleep(0.3)
    raise AssertionError("the computers did not finish their game")


def open_game(page: Page, base_url: str, room_id: str) -> None:
    page.goto(f"{base_url}/play/{room_id}")
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    page.locator("#result-close").click()


def marks_agree_with_the_graph(page: Page, analysis: dict[str, Any]) -> None:
    """Each move's loss is the drop of the evaluations (the graph's numbers) from the mover's
    side, the engine's own choice loses nothing, and the drawn line drops by as many pixels
    on a marked move as its loss is worth on the graph's scale."""
    evals = [p["eval"] for p in analysis["positions"]]
    for m in analysis["moves"]:
        before, after = evals[m["ply"] - 1], evals[m["ply"]]
        drop = before - after if m["color"] == "black" else after - before
        assert m["loss"] == pytest.approx(max(0.0, drop), abs=0.006), m
        if m["move"] == analysis["positions"][m["ply"] - 1]["best"]:
            assert m["loss"] == 0 and before == after, m
    path = page.locator("#graph svg.analysis-graph .graph-line").get_attribute("d") or ""
    ys = [float(y) for y in re.findall(r"[ML][\d.]+ (-?[\d.]+)", path)]
    assert len(ys) == len(evals), "one point per position"
    scale = max(2.0, *(abs(v) for v in evals))
    pixels_per_disc = (140 / 2 - 22 / 2) / scale  # the graph's height and padding (analysis.js)
    for m in analysis["moves"]:
        if not m["mark"]:
            continue
        fall = ys[m["ply"]] - ys[m["ply"] - 1]  # y grows downwards: Black's loss is a fall
        if m["color"] == "white":
            fall = -fall
        assert fall == pytest.approx(m["loss"] * pixels_per_disc, abs=0.15), m


@pytest.mark.own_context  # a request listener of its own
def test_a_finished_reversi_game_is_analysed_marked_stored_and_shared_read_only(
    page: Page, base_url: str, browser: Browser, page_errors: PageErrors
) -> None:
    state = finished_game(base_url)
    room_id, moves = state["id"], state["moves"]
    page.set_viewport_size({"width": 1280, "height": 800})
    open_game(page, base_url, room_id)
    analyse = page.get_by_role("button", name="Analyse")
    expect(analyse).to_be_visible()
    analyse.click()
    # the engine runs on the server: a progress bar and a Cancel button while it does
    expect(page.locator("#analysis-progress")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel")).to_be_visible()
    expect(page.locator("#analysis-note")).to_contain_text("Analysing…")
    graph = page.locator("#graph svg.analysis-graph")
    expect(graph).to_be_visible(timeout=120_000)
    expect(page.locator("#analysis-progress")).to_be_hidden()
    stored = _get(base_url, f"/api/rooms/{room_id}/analysis")
    assert stored["status"] == "done" and stored["analysed_moves"] == moves
    marked = {m["ply"]: m["mark"] for m in stored["moves"] if m["mark"]}
    assert marked, "a level-1 game with no inaccuracy at all"
    marks_agree_with_the_graph(page, stored)
    # every mark of the analysis is on its move in the list and as a dot on the graph, and no other
    shown = page.eval_on_selector_all(
        "#move-list li[data-mark]", "items => items.map(li => [Number(li.dataset.ply), li.dataset.mark])"
    )
    assert dict(shown) == marked
    assert page.locator("#graph .mark-dot").count() == len(marked)
    expect(page.locator("#analysis-legend")).to_contain_text("?? blunder from 12")
    # stepping to a marked move names it, what it lost and the engine's choice, and rings the best move
    ply = min(marked)
    page.locator(f"#move-list li[data-ply='{ply}']").click()
    words = page.locator("#analysis-ply")
    expect(words).to_contain_text(f"Move {ply}, ")
    expect(words).to_contain_text(marked[ply])
    expect(words).to_contain_text(f"the engine preferred {stored['positions'][ply - 1]['best']}")
    expect(words).to_contain_text(f"Best now: {stored['positions'][ply]['best']}; line ")
    expect(page.locator(f"#board g.sq[data-move='{stored['positions'][ply]['best']}'] .hint")).to_have_count(
        1
    )
    # at 1280x800 the graph and the analysis of the move shown fit on screen beside the board
    for part in ("#graph svg", "#analysis-note", "#analysis-ply", "#analysis-legend"):
        bottom = page.evaluate(f"() => document.querySelector('{part}').getBoundingClientRect().bottom + scrollY")
        assert bottom <= 800, f"{part} ends at {bottom:.0f} px, below the fold"
    doc_shot(page, "analysis-review-1280x800")
    doc_shot(page, "analysis-reversi", full_page=True)

    # a second visit shows the stored analysis at once: no new analysis is asked for
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/analysis" in r.url else None)
    page.reload()
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    expect(graph).to_be_visible(timeout=10_000)  # a GET of the stored analysis: no search
    expect(page.locator("#move-list li[data-mark]")).to_have_count(len(marked))
    expect(page.get_by_role("button", name="Analyse")).to_be_hidden()
    assert posts == []

    # the review link opens the game read-only in another browser: no controls, no socket
    link = page.locator("#review-link")
    assert link.get_attribute("href") == f"/review/{room_id}"
    other = browser.new_context(viewport={"width": 375, "height": 812})
    other.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        guest = page_errors.watch(other.new_page())
        sockets: list[str] = []
        guest.on("websocket", lambda ws: sockets.append(ws.url))
        guest.goto(f"{base_url}/review/{room_id}")
        expect(guest.locator("#graph svg.analysis-graph")).to_be_visible()
        expect(guest.locator("#move-list li[data-mark]")).to_have_count(len(marked))
        expect(guest.locator("#result-dialog")).to_be_hidden()
        # on a phone "Moves" follows the board closely: no empty lines kept for a message or watchers
        gap = guest.evaluate("() => document.querySelector('.moves-title').getBoundingClientRect().top"
                             " - document.querySelector('#board').getBoundingClientRect().bottom")
        between = guest.evaluate("""() => {
            const top = document.querySelector('#board').getBoundingClientRect().bottom;
            const end = document.querySelector('.moves-title').getBoundingClientRect().top;
            return [...document.querySelectorAll('body *')].filter(e => {
                const r = e.getBoundingClientRect();
                return r.height > 0 && r.top >= top - 1 && r.bottom <= end + 1;
            }).map(e => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().height)}px: ${(e.textContent || '').slice(0, 40)}`);
        }""")
        assert gap <= 24, f"{gap:.0f} px between the board and the move list's title: {between}"
        for control in ("Resign", "Undo", "Hint", "New game", "Analyse"):
            expect(guest.get_by_role("button", name=control, exact=True)).to_be_hidden()
        guest.locator("body").press("Home")
        expect(guest.locator("#board")).to_have_attribute("data-ply", "0")
        guest.locator("body").press("ArrowRight")
        expect(guest.locator("#board")).to_have_attribute("data-ply", "1")
        expect(guest.locator("#analysis-ply")).to_contain_text(f"Move 1, Black {moves[0]}")
        guest.locator("#board g.sq").first.click(force=True)  # the board takes no move here
        assert _get(base_url, f"/api/rooms/{room_id}")["moves"] == moves
        doc_shot(guest, "analysis-review-phone", full_page=True)
        assert sockets == []
    finally:
        other.close()


def test_an_analysis_is_cancelled_from_the_page_and_can_be_started_again(page: Page, base_url: str) -> None:
    state = finished_game(base_url)
    open_game(page, base_url, state["id"])
    page.get_by_role("button", name="Analyse").click()
    cancel = page.get_by_role("button", name="Cancel")
    expect(cancel).to_be_visible()
    cancel.click()
    expect(page.locator("#analysis-note")).to_have_text("Analysis cancelled.")
    expect(page.locator("#analysis-progress")).to_be_hidden()
    expect(page.get_by_role("button", name="Analyse")).to_be_visible()
    assert _get(base_url, f"/api/rooms/{state['id']}/analysis")["status"] == "cancelled"


def test_a_tictactoe_analysis_draws_the_chance_to_win(page: Page, base_url: str) -> None:
    state = finished_game(base_url, "tictactoe")
    open_game(page, base_url, state["id"])
    page.get_by_role("button", name="Analyse").click()
    expect(page.locator("#graph svg.analysis-graph")).to_be_visible(timeout=60_000)
    expect(page.locator("#graph .graph-label").first).to_have_text("X 100 %")
    page.locator("#move-list li[data-ply='1']").click()
    expect(page.locator("#analysis-ply")).to_contain_text("% to win")


def test_a_game_at_one_screen_is_analysed_while_it_goes_on_and_the_analysis_lapses_with_a_new_move(
    page: Page, base_url: str
) -> None:
    start_game(page, base_url, "tictactoe", "friend")
    play(page, "b2")
    play(page, "a1")
    page.get_by_role("button", name="Analyse").click()
    expect(page.locator("#graph svg.analysis-graph")).to_be_visible(timeout=60_000)
    expect(page.locator("#analysis-note")).to_have_text("0 blunders, 0 mistakes, 0 inaccuracies")
    play(page, "a2")  # a move past the analysed ones: its graph and marks no longer fit
    expect(page.locator("#graph svg.analysis-graph")).to_have_count(0)
    expect(page.get_by_role("button", name="Analyse")).to_be_visible()


def test_an_unknown_review_says_so(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/review/nosuchroom")
    expect(page.locator("#missing-title")).to_have_text("No such game")
