# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of an abandoned online game and of watching games being played (issue 44, must-holds
2 and 3), in Debian's chromium against a real server.

The fixtures and page helpers are the ones of ``test_web.py`` (one server process for the module,
one browser); this module's server lets a player be gone for only :data:`AWAY` seconds before the
other may end the game (``--away-timeout``), so the countdown runs out while the test watches.  The
other players are websocket clients and API calls, which cost less than more browsers.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import ClientConnection, connect

from test_web import (  # noqa: F401  (fixtures are found by name)
    STEP_TIMEOUT_MS,
    PageErrors,
    browser,
    context,
    kept_page,
    page,
    page_errors,
    play,
    result_dialog,
    room,
    serve,
    shot,
    wait_moves,
    wait_ready,
)
from test_web_lobby import ApiPlayer, unique

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]

AWAY = 3  # seconds this module's server lets a player be gone


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's own server (a short away timeout; no computer plays, so the engines load on demand)."""
    yield from serve(tmp_path_factory, "--away-timeout", str(AWAY), "--cold-workers")


def api(base_url: str, method: str, path: str, body: object = None) -> dict[str, Any]:
    request = urllib.request.Request(base_url + path, method=method, headers={"content-type": "application/json"},
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=20) as answer:
        found = json.loads(answer.read())
    assert isinstance(found, dict)
    return found


class Player:
    """A player at the other end of a room socket."""

    def __init__(self, base_url: str, room_id: str, token: str | None) -> None:
        opening = connect(base_url.replace("http", "ws", 1) + f"/api/rooms/{room_id}/ws")
        self.ws: ClientConnection = opening.__enter__()  # closed by close()
        self.ws.send(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
        self.until(lambda f: f["type"] == "state")
        self.seq = 0

    def until(self, test: Any) -> dict[str, Any]:
        while True:
            frame: dict[str, Any] = json.loads(self.ws.recv(timeout=20))
            if test(frame):
                return frame

    def move(self, move: str) -> None:
        self.seq += 1
        self.ws.send(json.dumps({"type": "move", "move": move, "seq": self.seq}))
        self.until(lambda f: f["type"] == "ack" or f["type"] == "error")

    def close(self) -> None:
        self.ws.close()


def online_game(page: Page, base_url: str, game: str = "gomoku") -> tuple[str, str, Player]:
    """An online game with a clock: this page plays Black, a socket client White (its token too)."""
    created = api(base_url, "POST", "/api/rooms", {"game": game, "clock": {"initial": 300, "increment": 5}})
    joined = api(base_url, "POST", f"/api/rooms/{created['room']}/join",
                 {"invite": created["invite"].split("invite=", 1)[1]})
    page.goto(base_url + "/")
    seat = {"tokens": created["tokens"], "invite": None, "seq": 0, "mode": "online"}
    page.evaluate("([id, seat]) => localStorage.setItem('tabletop.room.' + id, JSON.stringify(seat))",
                  [created["room"], seat])
    page.goto(f"{base_url}/play/{created['room']}")
    wait_ready(page)
    return created["room"], joined["token"], Player(base_url, created["room"], joined["token"])


# ------------------------------------------------------------------ an abandoned game
def test_an_opponent_who_left_is_counted_down_then_the_win_is_claimed_by_abandonment(
    page: Page, base_url: str
) -> None:
    room_id, _, white = online_game(page, base_url)
    play(page, "h8")
    white.move("i9")
    wait_moves(page, "moves.length === 2")
    expect(page.locator("#abort")).to_be_hidden()  # both have moved: the game can no longer be aborted
    white.close()  # White's browser is gone
    box = page.locator("#away")
    expect(box).to_be_visible()
    expect(box).to_contain_text(re.compile(r"White has left the game\. If they are not back in 0:0[1-3]"))
    expect(page.locator("#claim-win")).to_be_disabled()
    expect(page.locator("#claim-abort")).to_be_disabled()
    shot(page, "away-countdown")
    expect(page.locator("#claim-win")).to_be_enabled(timeout=(AWAY + 5) * 1000)
    expect(box).to_contain_text("White has been gone too long")
    shot(page, "away-claim")
    page.get_by_role("button", name="Claim the win").click()
    text = result_dialog(page)
    assert "Black wins by abandonment — you win!" in text and "the other player left the game" in text
    assert room(page)["outcome"]["reason"] == "abandoned"
    expect(box).to_be_hidden()
    shot(page, "away-claimed")


def test_a_returning_player_stops_the_countdown_and_a_game_one_side_has_not_moved_in_is_aborted(
    page: Page, base_url: str
) -> None:
    room_id, token, white = online_game(page, base_url)
    expect(page.locator("#status")).to_contain_text("your clock starts with your first move")
    play(page, "h8")
    page.wait_for_timeout(1100)
    assert room(page)["clocks"]["black"] == 300 and page.locator("#player-white .clock").inner_text() == "5:00"
    white.close()
    expect(page.locator("#away")).to_be_visible()
    expect(page.locator("#claim-win")).to_be_hidden()  # before both have moved there is no win to claim
    spectator = Player(base_url, room_id, None)  # someone watching is not the player: the countdown goes on
    expect(page.locator("#watchers")).to_have_text(re.compile(r"^1 watching"))
    expect(page.locator("#away")).to_be_visible()
    white = Player(base_url, room_id, token)  # the player is back
    expect(page.locator("#away")).to_be_hidden()
    white.close()
    spectator.close()
    expect(page.locator("#abort")).to_be_visible()
    page.get_by_role("button", name="Abort").click()
    text = result_dialog(page)
    assert "Game aborted" in text and "not rated" in text
    assert api(base_url, "GET", f"/api/rooms/{room_id}")["outcome"]["reason"] == "aborted"
    page.goto(base_url + "/")  # this browser's games say so too
    expect(page.locator(f'#my-games-list li[data-room="{room_id}"]')).to_contain_text("aborted, no result")


# ------------------------------------------------------------------ games to watch
def test_the_start_page_and_the_lobby_list_games_being_played_and_a_spectator_watches_one_live(
    browser: Browser, base_url: str, page_errors: PageErrors
) -> None:
    alice, bob = ApiPlayer(base_url, unique("alice")), ApiPlayer(base_url, unique("bob"))
    games = {}
    for rated in (False, True):
        seek = alice.call("POST", "/api/seeks", {"game": "reversi", "options": {"size": 8},
                                                 "clock": {"initial": 300, "increment": 5}, "color": "black",
                                                 "rated": rated})
        accepted = bob.call("POST", f"/api/seeks/{seek['id']}/accept")
        collected = alice.call("POST", f"/api/seeks/{seek['id']}/seat")
        games[rated] = (accepted["room"], {"black": collected["token"], "white": accepted["token"]})
    guests = api(base_url, "POST", "/api/rooms", {"game": "gomoku", "listed": True})
    api(base_url, "POST", f"/api/rooms/{guests['room']}/join", {})
    rated_room, tokens = games[True]

    ctx = browser.new_context(viewport={"width": 1200, "height": 860})
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    black = white = None
    try:
        watcher = page_errors.watch(ctx.new_page())
        watcher.goto(base_url + "/")
        rows = watcher.locator("#live-list li")
        expect(rows).to_have_count(3)
        # rated first: the order is the server's (the players' ratings are in tests/test_room_abandon.py)
        assert rows.evaluate_all("els => els.map(e => e.dataset.room)") == [rated_room, games[False][0], guests["room"]]
        expect(rows.nth(0)).to_contain_text(f"{alice.name} (1500?) – {bob.name} (1500?)")
        expect(rows.nth(0)).to_contain_text("Reversi 8×8 · 5+5 · Rated")
        expect(rows.nth(2).locator("strong")).to_have_text("Black – White")  # guests have no names
        expect(rows.nth(2)).to_contain_text("Gomoku freestyle · Guests")
        shot(watcher, "live-games-start-page", full_page=True)
        watcher.goto(base_url + "/lobby")
        expect(watcher.locator("#watch-list li")).to_have_count(3)
        expect(watcher.locator("#no-live")).to_be_hidden()
        shot(watcher, "live-games-lobby", full_page=True)

        watcher.locator("#watch-list li").first.get_by_role("link", name=re.compile("^Watch")).click()
        watcher.wait_for_url(re.compile(rf".*/play/{rated_room}$"))
        wait_ready(watcher)
        black, white = Player(base_url, rated_room, tokens["black"]), Player(base_url, rated_room, tokens["white"])
        # the spectator is counted, and everyone in the room is told: the players' sockets too
        expect(watcher.locator("#watchers")).to_have_text(re.compile(r"^1 watching"))
        assert white.until(lambda f: f["type"] == "watchers")["count"] == 1
        expect(watcher.locator("#player-black .name")).to_have_text(alice.name)
        black.move("f5")
        white.move("d6")
        wait_moves(watcher, "moves.length === 2")
        assert room(watcher)["moves"] == ["f5", "d6"] and room(watcher)["clock_running"] == "black"
        start = watcher.locator("#player-black .clock").inner_text()
        # Black's clock runs on the spectator's page (it shows whole seconds: the next one within
        # about a second, given a few on a loaded machine); White's stands
        expect(watcher.locator("#player-black .clock")).not_to_have_text(start, timeout=5000)
        expect(watcher.locator("#player-white .clock")).to_have_text("5:00")
        expect(watcher.locator("#resign")).to_be_hidden()
        expect(watcher.locator("#abort")).to_be_hidden()
        shot(watcher, "live-spectator")
    finally:
        for player in (black, white):
            if player is not None:
                player.close()
        ctx.close()
