# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser test of the page's event versions: an event it already holds is left out, and
an event after a gap is not applied: the page fetches the room's state instead.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per
module, same flags, no downloaded browser).
"""

from __future__ import annotations

from playwright.sync_api import Page

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    base_url,
    browser,
    context,
    kept_page,
    labels,
    page,
    page_errors,
    room,
    square,
    start_game,
    wait_moves,
)

ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


def _deliver(page: Page, version: int, move: str) -> None:
    """Hand the page's socket handler a move_played event, as if the server had sent it."""
    frame = {"type": "event", "version": version, "event": {"kind": "move_played", "color": "white", "move": move}}
    page.evaluate("(frame) => window.tabletop.conn.onFrame(frame)", frame)


def test_the_page_leaves_out_events_it_holds_and_fetches_the_state_after_a_gap(page: Page, base_url: str) -> None:
    room_id = start_game(page, base_url, "tictactoe", "friend")
    square(page, "b2").click()
    wait_moves(page, "moves.length === 1")
    version = room(page)["version"]
    before = labels(page)["c3"]
    _deliver(page, version, "a1")  # an event the page already holds (as a catch-up can send one twice)
    assert room(page)["moves"] == ["b2"] and room(page)["version"] == version
    with page.expect_request(lambda r: r.url.endswith(f"/api/rooms/{room_id}") and r.method == "GET"):
        _deliver(page, version + 2, "c3")  # version + 1 never came
    page.wait_for_function(f"() => window.tabletop.room.version === {version}", polling=POLL_MS)
    assert room(page)["moves"] == ["b2"], "the event after the gap was not applied"
    assert labels(page)["c3"] == before, "c3 is drawn as it was"
    square(page, "a1").click()  # and the game goes on from the server's state
    wait_moves(page, "moves.length === 2")
    assert room(page)["moves"] == ["b2", "a1"] and room(page)["version"] > version
