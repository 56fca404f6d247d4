# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the lobby, Play now, player pages and leaderboards (issue 26), in Debian's
chromium against a real server: separate browser contexts are separate players, each with its
own session cookie.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per module,
same flags, no downloaded browser).  The expected ratings come from ``tabletop.ratings``.
"""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from websockets.sync.client import connect

from tabletop.ratings import DEFAULT, rate_game
from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    STEP_TIMEOUT_MS,
    PageErrors,
    base_url,
    browser,
    doc_shot,
    kept_page,
    page,
    page_errors,
    play,
    result_dialog,
    room,
    shot,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
# the server's workers load no engine until one is asked for (test_web.base_url): one test seats the
# computer and checks the room, not how soon the computer moves
ENGINES = False

PASSWORD = "correct horse battery"
DESKTOP = {"width": 1280, "height": 800}


# ------------------------------------------------------------------ helpers
@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Three players' browsers (three cookie jars) at 1280x800 (a test with one player takes the kept ``page``
    at that size)."""
    made = []
    for _ in range(3):
        ctx = browser.new_context(viewport=DESKTOP)
        ctx.set_default_timeout(STEP_TIMEOUT_MS)
        made.append(ctx)
    try:
        yield made
    finally:
        for ctx in made:
            ctx.close()


def unique(name: str) -> str:
    """A name no other test of this server took (the server process is shared per module)."""
    return f"{name}_{secrets.token_hex(3)}"


def sign_up(page: Page, base_url: str, name: str) -> None:
    """Open the lobby and sign up through the top bar's dialog, as a new player does."""
    page.goto(base_url + "/lobby")
    page.get_by_role("button", name="Sign in").click()
    dialog = page.locator("#account-dialog")
    dialog.get_by_label("Name").fill(name)
    dialog.get_by_label("Password").fill(PASSWORD)
    dialog.get_by_role("button", name="Sign up").click()
    expect(page.locator("#account-name")).to_have_text(name)
    expect(page.locator("#seek-form")).to_be_visible()
    expect(page.locator("#lobby-live")).to_have_text("Live")


def seek_row(page: Page, player: str) -> Locator:
    return page.locator("#seek-rows tr", has=page.get_by_role("link", name=player, exact=True))


def choose_seek(page: Page, game: str, clock: str, color: str = "random", rated: bool = True) -> None:
    form = page.locator("#seek-form")
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=seek-clock]").select_option(clock)
    form.locator("select[name=color]").select_option(color)
    form.locator("input[name=rated]").set_checked(rated)


def watch_policy(page: Page, refused: list[str]) -> Page:
    """Note every breach of the server's Content-Security-Policy on ``page`` in ``refused``."""
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => console.error("
        "'Content Security Policy: ' + e.violatedDirective + ' ' + e.blockedURI))"
    )
    return page


def room_id(page: Page) -> str:
    page.wait_for_url(re.compile(r".*/play/[^/?]+$"))
    match = re.search(r"/play/([^/?]+)", page.url)
    assert match is not None
    return match.group(1)




# ------------------------------------------------------------------ the three-context game
def test_two_players_meet_in_the_lobby_play_a_rated_game_and_a_third_watches_the_lobby(
    contexts: list[BrowserContext], base_url: str, page_errors: PageErrors
) -> None:
    alice_name, bob_name = unique("alice"), unique("bob")
    refused: list[str] = []
    alice, bob, watcher = (watch_policy(page_errors.watch(ctx.new_page()), refused) for ctx in contexts)
    watcher.goto(base_url + "/lobby")
    expect(watcher.locator("#lobby-live")).to_have_text("Live")
    expect(watcher.locator("#seek-signed-out")).to_be_visible()
    sign_up(alice, base_url, alice_name)
    sign_up(bob, base_url, bob_name)

    # a casual seek comes and goes: the watcher sees both without a reload
    choose_seek(bob, "reversi", "", rated=False)
    bob.get_by_role("button", name="Post seek").click()
    expect(seek_row(watcher, bob_name)).to_have_count(1)
    expect(seek_row(watcher, bob_name)).to_contain_text("Casual")
    seek_row(bob, bob_name).get_by_role("button", name=re.compile("Cancel")).click()
    expect(seek_row(watcher, bob_name)).to_have_count(0)

    # alice's rated seek: the lobby shows her name, her provisional rating and the clock
    choose_seek(alice, "tictactoe", "60+0", color="black")
    alice.get_by_role("button", name="Post seek").click()
    row = seek_row(watcher, alice_name)
    expect(row).to_have_count(1)
    expect(row.locator("td")).to_have_text([alice_name, "1500?", "Tic-tac-toe", "1+0", "X", "Rated",
                                           re.compile("Accept")])
    expect(seek_row(bob, alice_name)).to_have_count(1)
    shot(bob, "lobby")
    bob.set_viewport_size({"width": 375, "height": 812})
    shot(bob, "lobby-phone")
    bob.set_viewport_size({"width": 1280, "height": 800})

    # bob accepts from the lobby: both are taken to the same game, and the seek leaves the lobby
    seek_row(bob, alice_name).get_by_role("button", name=re.compile("Accept")).click()
    game = room_id(bob)
    assert room_id(alice) == game
    expect(seek_row(watcher, alice_name)).to_have_count(0)
    expect(watcher.locator("#no-seeks")).to_be_visible()
    for player in (alice, bob):
        wait_ready(player)
    assert page_seat(alice) == ["black"] and page_seat(bob) == ["white"]
    # the players bar names both, linking to their pages, with their provisional ratings in the pool
    for player in (alice, bob):
        for color, name in (("black", alice_name), ("white", bob_name)):
            expect(player.locator(f"#player-{color} .name")).to_have_text(name)
            expect(player.locator(f"#player-{color} .kind")).to_have_text(re.compile(r"^1500\? · "))
            assert player.locator(f"#player-{color} .name a").get_attribute("href") == f"/@/{name}"

    # a Tic-tac-toe played to the end by clicks: Black (alice) makes a column
    for player, move in ((alice, "a1"), (bob, "b1"), (alice, "a2"), (bob, "b2"), (alice, "a3")):
        player.wait_for_function(
            "() => { const r = window.tabletop.room; return r && r.turn && window.tabletop.seat.tokens[r.turn]"
            " && !window.tabletop.awaitingTurn; }", polling=POLL_MS)
        play(player, move)
    result_dialog(alice)
    result_dialog(bob)
    assert room(alice)["outcome"]["winner"] == "black" and room(bob)["outcome"]["winner"] == "black"

    # both ratings changed as Glicko-2 says for one win between two new players: the result dialog
    # and the players bar say by how much
    new_alice, new_bob = rate_game(DEFAULT, DEFAULT, 1.0)
    expected = {alice_name: new_alice, bob_name: new_bob}
    gain, loss = round(new_alice.rating) - 1500, 1500 - round(new_bob.rating)
    assert gain > 0 and loss > 0
    for player in (alice, bob):
        changes = player.locator("#result-ratings")
        expect(changes).to_contain_text(f"{alice_name} 1500? → {new_alice.display()} (+{gain})")
        expect(changes).to_contain_text(f"{bob_name} 1500? → {new_bob.display()} (−{loss})")
        expect(player.locator("#player-black .kind")).to_have_text(re.compile(rf"^1500\? \+{gain} · "))
        expect(player.locator("#player-white .kind")).to_have_text(re.compile(rf"^1500\? −{loss} · "))
    doc_shot(alice, "rated-game-end")
    bob.set_viewport_size({"width": 375, "height": 812})
    doc_shot(bob, "rated-game-end-phone")
    for name, rating in expected.items():
        alice.goto(f"{base_url}/@/{name}")
        card = alice.locator('.rating-card[data-pool="tictactoe-bullet"]')
        expect(card.locator(".rating-value")).to_have_text(f"{round(rating.rating)}?")
        won = name == alice_name
        expect(card.locator(".record")).to_contain_text("1 W / 0 D / 0 L" if won else "0 W / 0 D / 1 L")
        expect(card.locator("svg.history circle")).to_have_count(2)  # before and after the game
        title = card.locator(".rating-value").get_attribute("title")
        assert title is not None and f"rating {round(rating.rating, 1)}," in title
        assert f"deviation {round(rating.deviation, 1)}" in title
        review = alice.locator("#player-games tr").first
        expect(review).to_contain_text("1-0")
        assert review.get_by_role("link", name="Review").get_attribute("href") == f"/review/{game}"
    alice.locator("#player-games tr").first.get_by_role("link", name="Review").click()
    alice.wait_for_url(re.compile(rf".*/review/{game}$"))
    alice.wait_for_function("() => window.tabletop && window.tabletop.room && window.tabletop.room.outcome", polling=POLL_MS)
    assert room(alice)["moves"] == ["a1", "b1", "a2", "b2", "a3"]
    alice.go_back()
    expect(alice.locator(".rating-card")).to_have_count(1)
    shot(alice, "player")
    alice.set_viewport_size({"width": 375, "height": 812})
    shot(alice, "player-phone")
    assert refused == []  # the lobby, its dialog and the history graphs keep to the page's policy


def page_seat(page: Page) -> list[str]:
    value = page.evaluate("() => Object.keys(window.tabletop.seat.tokens || {})")
    assert isinstance(value, list)
    return [str(v) for v in value]


# ------------------------------------------------------------------ Play now
def test_play_now_pairs_two_waiting_players_in_the_same_pool(
    contexts: list[BrowserContext], base_url: str, page_errors: PageErrors
) -> None:
    carol_name, dave_name = unique("carol"), unique("dave")
    carol, dave, _ = (page_errors.watch(ctx.new_page()) for ctx in contexts)
    sign_up(carol, base_url, carol_name)
    sign_up(dave, base_url, dave_name)
    for player in (carol, dave):
        choose_seek(player, "tictactoe", "180+2")
    carol.get_by_role("button", name="Play now").click()
    expect(carol.locator("#seek-status")).to_contain_text("Looking for a player")
    expect(seek_row(dave, carol_name)).to_have_count(1)  # her quick-pairing seek waits in the lobby
    dave.get_by_role("button", name="Play now").click()
    game = room_id(dave)
    assert room_id(carol) == game
    for player in (carol, dave):
        wait_ready(player)
    assert sorted(page_seat(carol) + page_seat(dave)) == ["black", "white"]


def test_play_now_offers_the_computer_after_the_chosen_wait(
    contexts: list[BrowserContext], base_url: str, page_errors: PageErrors
) -> None:
    erin_name = unique("erin")
    erin, watcher, _ = (page_errors.watch(ctx.new_page()) for ctx in contexts)
    sign_up(erin, base_url, erin_name)
    watcher.goto(base_url + "/lobby")
    form = erin.locator("#seek-form")
    form.locator("select[name=game]").select_option("gomoku")
    form.locator("select[name=rule]").select_option("renju")
    form.locator("select[name=seek-clock]").select_option("900+10")
    form.locator("select[name=wait]").select_option("5")
    erin.get_by_role("button", name="Play now").click()
    expect(seek_row(watcher, erin_name)).to_contain_text("Gomoku renju 15×15")
    offer = erin.get_by_role("button", name=re.compile(r"Play the computer \(level \d+\)"))
    expect(offer).to_have_count(0)  # not before the wait is over
    expect(offer).to_be_visible(timeout=15_000)
    offer.click()
    room_id(erin)
    wait_ready(erin)
    state = room(erin)
    assert state["game"] == "gomoku" and state["options"]["rule"] == "renju"
    computer = [c for c in ("black", "white") if state["seats"][c]["kind"] != "human"]
    assert len(computer) == 1 and state["seats"][computer[0]]["kind"].startswith("level:")
    expect(seek_row(watcher, erin_name)).to_have_count(0)  # her seek was cancelled


def test_a_leaderboard_and_an_unknown_player_page(page: Page, base_url: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(base_url + "/lobby")
    page.locator("#leaderboard-pool").select_option("reversi-8-blitz")
    page.get_by_role("link", name="Show").click()
    page.wait_for_url(re.compile(r".*/leaderboard/reversi-8-blitz$"))
    expect(page.locator("#player-title")).to_have_text("Leaderboard: Reversi 8×8 · Blitz")
    expect(page.locator("#player-meta")).to_contain_text("at least 10 rated games")
    page.goto(base_url + "/@/nobody_here")
    expect(page.locator("#missing-view")).to_be_visible()
    expect(page.locator("#missing-text")).to_contain_text("nobody_here")


def test_sign_out_and_a_wrong_password_then_sign_in_again(page: Page, base_url: str) -> None:
    name = unique("frank")
    page.set_viewport_size(DESKTOP)
    sign_up(page, base_url, name)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.locator("#seek-form")).to_be_hidden()
    page.get_by_role("button", name="Sign in").click()
    dialog = page.locator("#account-dialog")
    dialog.get_by_label("Name").fill(name)
    dialog.get_by_label("Password").fill("not the password")
    dialog.get_by_role("button", name="Sign in").click()
    expect(page.locator("#account-error")).not_to_be_empty()
    expect(dialog).to_be_visible()
    dialog.get_by_label("Password").fill(PASSWORD)
    dialog.get_by_role("button", name="Sign in").click()
    expect(page.locator("#account-name")).to_have_text(name)
    page.reload()  # the session is the cookie: a reload stays signed in
    expect(page.locator("#account-name")).to_have_text(name)


# ------------------------------------------------------------------ a leaderboard with players on it
class ApiPlayer:
    """A player who talks to the server's API directly (urllib, their own session cookie)."""

    def __init__(self, base_url: str, name: str) -> None:
        self.base_url = base_url
        self.name = name
        answer = self._request("POST", "/api/accounts", {"name": name, "password": PASSWORD}, cookie=None)
        self.cookie = answer.headers["set-cookie"].split(";", 1)[0]

    def _request(self, method: str, path: str, body: object, cookie: str | None) -> Any:
        headers = {"content-type": "application/json"}
        if cookie:
            headers["cookie"] = cookie
        request = urllib.request.Request(self.base_url + path, method=method, headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
        return urllib.request.urlopen(request, timeout=20)

    def call(self, method: str, path: str, body: object = None) -> dict[str, str]:
        with self._request(method, path, body, self.cookie) as answer:
            found = json.loads(answer.read())
        assert isinstance(found, dict)
        return found


def play_over_sockets(base_url: str, room: str, tokens: dict[str, str], moves: list[str]) -> None:
    """Play ``moves`` alternately from Black, each through its seat's own room socket, to the game's end."""
    url = base_url.replace("http", "ws", 1) + f"/api/rooms/{room}/ws"
    with connect(url) as black, connect(url) as white:
        sockets = {"black": black, "white": white}
        for color, ws in sockets.items():
            ws.send(json.dumps({"type": "hello", "token": tokens[color]}))
            assert json.loads(ws.recv(timeout=20))["type"] == "state"
        for ply, move in enumerate(moves):
            ws = sockets["black" if ply % 2 == 0 else "white"]
            ws.send(json.dumps({"type": "move", "move": move, "seq": ply + 1}))
            while (frame := json.loads(ws.recv(timeout=20)))["type"] != "ack":
                assert frame["type"] != "error", frame
        while not ((f := json.loads(black.recv(timeout=20)))["type"] == "event"
                   and f["event"]["kind"] == "game_ended"):
            pass


def test_a_pools_leaderboard_lists_players_with_ten_rated_games_by_rating(page: Page, base_url: str) -> None:
    winner, loser = ApiPlayer(base_url, unique("grace")), ApiPlayer(base_url, unique("heidi"))
    clock = {"initial": 60, "increment": 0}
    expected = (DEFAULT, DEFAULT)
    for _ in range(10):
        seek = winner.call("POST", "/api/seeks", {"game": "tictactoe", "clock": clock, "color": "black", "rated": True})
        taken = loser.call("POST", f"/api/seeks/{seek['id']}/accept")
        mine = winner.call("POST", f"/api/seeks/{seek['id']}/seat")
        play_over_sockets(base_url, taken["room"], {taken["seat"]: taken["token"], mine["seat"]: mine["token"]},
                          ["a1", "b1", "a2", "b2", "a3"])
        expected = rate_game(*expected, 1.0)
    page.set_viewport_size(DESKTOP)
    page.goto(f"{base_url}/leaderboard/tictactoe-bullet")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(2)  # the players of the other tests have fewer than 10 games here
    expect(rows.nth(0).locator("td")).to_have_text(["1", winner.name, expected[0].display(), "10"])
    expect(rows.nth(1).locator("td")).to_have_text(["2", loser.name, expected[1].display(), "10"])
    rows.nth(0).get_by_role("link", name=winner.name).click()
    card = page.locator('.rating-card[data-pool="tictactoe-bullet"]')
    expect(card.locator(".record")).to_contain_text("10 games · 10 W / 0 D / 0 L")
    expect(card.locator("svg.history circle")).to_have_count(11)
    expect(page.locator("#player-games tr")).to_have_count(10)
