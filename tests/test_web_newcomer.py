# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of what a new player meets on the page (issue 25): each pins one defect
a newcomer found, in Debian's chromium against a real server.

The fixtures and page helpers are the ones of ``test_web.py`` (same server process per
module, same flags, no downloaded browser).
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    STEP_TIMEOUT_MS,
    PageErrors,
    _create_room,
    base_url,
    browser,
    context,
    kept_page,
    labels,
    measured_box,
    page,
    page_errors,
    play,
    result_dialog,
    room,
    shot,
    square,
    start_game,
    wait_moves,
    wait_ready,
    wait_turn_or_end,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]


# ------------------------------------------------------------------ helpers
def open_room(page: Page, base_url: str, created: dict[str, Any], mode: str) -> None:
    """Open a room made through the API as the browser that holds ``created``'s tokens."""
    page.goto(base_url + "/")
    seat = {"tokens": created["tokens"], "invite": None, "seq": 0, "mode": mode}
    page.evaluate(
        "([id, seat]) => localStorage.setItem('tabletop.room.' + id, JSON.stringify(seat))",
        [created["room"], seat],
    )
    page.goto(f"{base_url}/play/{created['room']}")
    wait_ready(page)


def join(base_url: str, room_id: str, invite_url: str) -> dict[str, Any]:
    """Take the free seat of an online room through the API, as a second player would."""
    import json

    secret = invite_url.split("invite=", 1)[1]
    request = urllib.request.Request(
        f"{base_url}/api/rooms/{room_id}/join",
        data=json.dumps({"invite": secret}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        joined = json.loads(response.read())
    assert isinstance(joined, dict)
    return joined


def send_moves(page: Page, moves: list[str]) -> None:
    """Play ``moves`` through the page's own connection (quicker than clicks for long games)."""
    for move in moves:
        before = len(room(page)["moves"])
        page.evaluate("(m) => window.tabletop.conn.move(m)", move)
        try:
            wait_moves(page, f"moves.length > {before}")
        except PlaywrightTimeout:
            state = room(page)
            raise AssertionError(
                f"{move} did not land after {state['moves']}: page says {page.locator('#message').inner_text()!r},"
                f" turn {state['turn']}, awaiting {page.evaluate('() => window.tabletop.awaitingTurn')}"
            ) from None


# 40 Gomoku moves that make no five: columns a, b and c from the bottom, colours alternating
LONG_GOMOKU = [f"{col}{row}" for col in "abc" for row in range(1, 16)][:40]


# ------------------------------------------------------------------ the move list
def test_the_move_list_keeps_every_move_in_view_and_follows_the_latest(page: Page, base_url: str) -> None:
    start_game(page, base_url, "gomoku", "friend", size="15", rule="freestyle")
    send_moves(page, LONG_GOMOKU)
    expect(page.locator("#move-list li")).to_have_count(40)
    listed = measured_box(page, "#move-list")
    last = measured_box(page, "#move-list li >> nth=-1")
    # the latest move is inside the list's visible box, not spilled into a column off to the right
    assert last["x"] + last["width"] <= listed["x"] + listed["width"] + 1, (last, listed)
    assert listed["y"] - 1 <= last["y"] and last["y"] + last["height"] <= listed["y"] + listed["height"] + 1
    sideways = page.evaluate(
        "() => { const l = document.getElementById('move-list'); return l.scrollWidth - l.clientWidth; }"
    )
    assert sideways <= 1, "the move list does not overflow sideways"
    # the wheel scrolls back to the first moves
    top = page.evaluate("() => document.getElementById('move-list').scrollTop")
    assert top > 0, "the list scrolled down to the latest move"
    page.mouse.move(listed["x"] + listed["width"] / 2, listed["y"] + listed["height"] / 2)
    page.mouse.wheel(0, -2000)
    page.wait_for_function("() => document.getElementById('move-list').scrollTop === 0", polling=POLL_MS)
    shot(page, "move-list-40-moves")


def test_a_move_refused_as_one_frame_too_many_is_sent_again_not_lost(page: Page, base_url: str) -> None:
    """The server takes at most 20 frames a second from a connection; a move past that
    budget is refused as ``rate_limited`` and the page sends it again a second later."""
    start_game(page, base_url, "gomoku", "friend", size="15", rule="freestyle")
    refusals = page.evaluate(
        """async () => {
          const conn = window.tabletop.conn;
          const seen = [];
          conn.socket.addEventListener("message", (m) => {
            const f = JSON.parse(m.data);
            if (f.type === "error") seen.push(f.code);
          });
          for (let i = 0; i < 25; i++) conn.send({ type: "ping" });
          conn.move("h8");
          await new Promise((r) => setTimeout(r, 300));
          return seen;
        }"""
    )
    assert "rate_limited" in refusals, f"the burst was not limited: {refusals}"
    wait_moves(page, "moves.length === 1 && moves[0] === 'h8'")
    expect(page.locator("#move-list li")).to_have_count(1)


# ------------------------------------------------------------------ layout at 1280x800
@pytest.mark.parametrize(("game", "size"), [("reversi", "8"), ("gomoku", "15")])
def test_the_message_line_is_on_screen_at_1280x800(page: Page, base_url: str, game: str, size: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    start_game(page, base_url, game, "friend", size=size)
    play(page, "d3" if game == "reversi" else "h8")
    square(page, "d3" if game == "reversi" else "h8").click()
    expect(page.locator("#message")).to_contain_text("taken")
    message = measured_box(page, "#message")
    assert message["y"] + message["height"] <= 800, (
        f"the message line ends at {message['y'] + message['height']} px"
    )
    assert measured_box(page, "#board svg")["y"] >= 0
    shot(page, f"desktop-1280x800-{game}")


# ------------------------------------------------------------------ pages that do not exist
def test_a_room_that_does_not_exist_shows_a_not_found_page(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/play/no-such-room")
    expect(page.get_by_role("heading", name="No such game")).to_be_visible()
    expect(page.locator("#play-view")).to_be_hidden()
    link = page.get_by_role("link", name="Start a new game")
    expect(link).to_be_visible()
    link.click()
    page.wait_for_url(base_url + "/")
    expect(page.get_by_role("button", name="Start game")).to_be_visible()


def test_an_unknown_path_answers_a_not_found_page_not_json(page: Page, base_url: str) -> None:
    response = page.goto(f"{base_url}/no/such/page")
    assert response is not None and response.status == 404
    assert response.headers["content-type"].startswith("text/html")
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    expect(page.get_by_role("link", name="Start a new game")).to_be_visible()
    assert "Not Found" not in page.locator("body").inner_text().split("Page not found")[0]
    # the API keeps answering JSON
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(f"{base_url}/api/no-such-thing", timeout=10)
    assert error.value.code == 404
    assert error.value.headers["content-type"].startswith("application/json")


# ------------------------------------------------------------------ words
def test_one_move_is_one_move_and_tictactoe_graph_names_x_and_o(page: Page, base_url: str) -> None:
    start_game(page, base_url, "tictactoe", "friend")
    play(page, "b2")
    page.get_by_role("button", name="Resign").click()
    text = result_dialog(page)
    assert "1 move." in text and "1 moves" not in text
    labels_ = page.locator("#graph .graph-label")
    expect(labels_.first).to_be_visible(timeout=60_000)
    words = " ".join(labels_.all_text_contents())
    assert "Black" not in words and "White" not in words, words
    assert "X" in words and "O" in words, words


def test_redo_is_offered_only_after_an_undo(page: Page, base_url: str) -> None:
    start_game(page, base_url, "reversi", "friend", size="8")
    expect(page.locator("#redo")).to_be_disabled()
    play(page, "f5")
    expect(page.locator("#redo")).to_be_disabled()
    page.get_by_role("button", name="Undo").click()
    wait_moves(page, "moves.length === 0")
    expect(page.locator("#redo")).to_be_enabled()
    page.get_by_role("button", name="Redo").click()
    wait_moves(page, "moves.length === 1")
    expect(page.locator("#redo")).to_be_disabled()
    # a new move after an undo drops what could have been redone
    page.get_by_role("button", name="Undo").click()
    wait_moves(page, "moves.length === 0")
    play(page, "d3")
    expect(page.locator("#redo")).to_be_disabled()


def test_undo_clears_a_refusal_that_no_longer_holds(page: Page, base_url: str) -> None:
    start_game(page, base_url, "tictactoe", "friend")
    play(page, "c3")
    square(page, "c3").click()
    expect(page.locator("#message")).to_contain_text("c3 is taken by X")
    page.get_by_role("button", name="Undo").click()
    wait_moves(page, "moves.length === 0")
    # at once, not when the line's own five seconds run out
    assert page.locator("#message").inner_text().strip() == ""


def test_no_watcher_count_at_one_screen_or_against_the_computer(page: Page, base_url: str) -> None:
    start_game(page, base_url, "tictactoe", "friend")
    play(page, "b2")
    page.wait_for_timeout(500)
    assert "watching" not in page.locator("#watchers").inner_text()
    start_game(page, base_url, "tictactoe", "computer", level="1")
    play(page, "b2")
    page.wait_for_timeout(500)
    assert "watching" not in page.locator("#watchers").inner_text()


def test_reversi_result_says_the_empty_squares_go_to_the_winner(page: Page, base_url: str) -> None:
    # Black's c1 takes White's only disc: 3-0 on the board, 64-0 by the rules
    position = "/".join(["XO------"] + ["--------"] * 7) + " X"
    created = _create_room(
        base_url, {"game": "reversi", "options": {"size": 8}, "position": position, "mode": "local"}
    )
    open_room(page, base_url, created, "local")
    play(page, "c1")
    text = result_dialog(page)
    assert "Black wins 64–0" in text
    assert re.search(r"3 discs to 0.*61 empty squares go to the winner", text), text
    expect(page.locator("#player-black .count")).to_have_text("3")


def test_hint_scores_have_units_and_fit_their_circles(page: Page, base_url: str) -> None:
    start_game(page, base_url, "reversi", "friend", size="8")
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#message")).to_contain_text("Hint:", timeout=30_000)
    assert re.search(r"Hint: [a-h][1-8] \(.*discs?.*\)", page.locator("#message").inner_text())
    start_game(page, base_url, "gomoku", "friend", size="15", rule="freestyle")
    send_moves(page, ["h8", "i9", "h9", "a1", "h10", "a2"])
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#message")).to_contain_text("Hint:", timeout=30_000)
    message = page.locator("#message").inner_text()
    assert re.search(r"Hint: [a-o]\d+ \((a win|a loss|[+\-−]?[\d.,k]+ points?) for Black", message), message
    fits = page.eval_on_selector_all(
        "#board g.sq",
        """gs => gs.filter(g => g.querySelector('.hint-text')).map(g => {
             const t = g.querySelector('.hint-text').getBBox(), c = g.querySelector('.hint').getBBox();
             return [g.dataset.move, g.querySelector('.hint-text').textContent, t.width <= c.width - 2];
           })""",
    )
    assert fits, "the hint marked some points"
    assert all(ok for _, _, ok in fits), fits
    shot(page, "gomoku-hint-units")


def test_a_renju_refusal_names_the_foul(page: Page, base_url: str) -> None:
    start_game(page, base_url, "gomoku", "friend", size="15", rule="renju")
    send_moves(page, ["h8", "a1", "i8", "a3", "j9", "a5", "j10", "a7"])
    page.wait_for_function(
        "() => document.querySelector('#board g.sq[data-move=\"j8\"]').getAttribute('aria-label').includes('forbidden')", polling=POLL_MS,
    )
    square(page, "j8").click()
    expect(page.locator("#message")).to_contain_text("j8 is forbidden for Black (double-three)")
    page.wait_for_timeout(300)
    assert len(room(page)["moves"]) == 8


# ------------------------------------------------------------------ online
def test_a_rematch_offer_has_one_accept_control_in_front_of_the_result(
    browser: Browser, base_url: str
) -> None:
    errors = PageErrors()
    contexts: list[BrowserContext] = []
    try:
        host_ctx, guest_ctx = browser.new_context(), browser.new_context()
        contexts += [host_ctx, guest_ctx]
        for ctx in contexts:
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
        host = errors.watch(host_ctx.new_page())
        start_game(host, base_url, "tictactoe", "online")
        guest = errors.watch(guest_ctx.new_page())
        guest.goto(host.locator("#invite-url").input_value())
        wait_ready(guest)
        play(host, "b2")
        wait_moves(guest, "moves.length === 1")
        guest.once("dialog", lambda dialog: dialog.accept())
        guest.get_by_role("button", name="Resign").click()
        result_dialog(host)
        result_dialog(guest)
        host.locator("#result-rematch").click()
        expect(guest.locator("#result-dialog")).to_contain_text("X offers a rematch")
        # one answer, in the dialog: no second Accept box behind it, where it cannot be clicked
        expect(guest.locator("#request")).to_be_hidden()
        accept = guest.locator("#result-dialog button:visible", has_text=re.compile(r"^(Accept|Rematch)"))
        expect(accept).to_have_count(1)
        expect(guest.locator("#result-dialog").get_by_role("button", name="Decline")).to_be_visible()
        shot(guest, "rematch-offer")
        old = guest.url
        accept.click()  # a control behind the modal dialog could not be clicked
        guest.wait_for_url(lambda url: url != old and "/play/" in url)
        host.wait_for_url(lambda url: url != old and "/play/" in url)
        wait_ready(guest)
        assert errors.errors == []
    finally:
        for ctx in contexts:
            ctx.close()


def test_an_online_player_gets_no_hint_and_hears_when_the_opponent_arrives(
    browser: Browser, base_url: str
) -> None:
    errors = PageErrors()
    host_ctx, guest_ctx = browser.new_context(), browser.new_context()
    try:
        for ctx in (host_ctx, guest_ctx):
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
        host = errors.watch(host_ctx.new_page())
        start_game(host, base_url, "gomoku", "online", size="15", rule="freestyle")
        expect(host.locator("#hint")).to_be_hidden()
        guest = errors.watch(guest_ctx.new_page())
        guest.goto(host.locator("#invite-url").input_value())
        wait_ready(guest)
        expect(host.locator("#message")).to_contain_text("Your opponent has joined")
        expect(guest.locator("#hint")).to_be_hidden()
        assert errors.errors == []
    finally:
        host_ctx.close()
        guest_ctx.close()


def clock_seconds(page: Page, color: str) -> float:
    text = str(page.locator(f"#player-{color} .clock").inner_text()).strip()
    if ":" in text:
        minutes, seconds = text.split(":")
        return int(minutes) * 60 + float(seconds)
    return float(text)


def test_an_online_clock_waits_for_the_opponent_to_join(page: Page, base_url: str) -> None:
    room_id = start_game(page, base_url, "gomoku", "online", size="15", rule="freestyle", clock="300+5")
    page.wait_for_timeout(2500)
    assert clock_seconds(page, "black") == 300, "no time runs while the opponent has not joined"
    expect(page.locator("#player-white .kind")).to_have_text("opponent, not joined yet")
    expect(page.locator("#status")).to_contain_text("your opponent has not joined yet")
    with urllib.request.urlopen(f"{base_url}/api/rooms/{room_id}", timeout=10) as response:
        import json

        assert json.loads(response.read())["clocks"]["black"] == 300
    join(base_url, room_id, page.locator("#invite-url").input_value())
    page.wait_for_function("() => window.tabletop.room.seats.white.taken", polling=POLL_MS)
    expect(page.locator("#player-white .kind")).not_to_contain_text("not joined")
    page.wait_for_timeout(1100)
    # online, each side's clock starts with its first move
    assert clock_seconds(page, "black") == 300, "no time runs before Black's first move"
    expect(page.locator("#status")).to_contain_text("your clock starts with your first move")


def test_the_clock_warns_when_time_runs_low(page: Page, base_url: str) -> None:
    # at one screen (online, no clock runs before its side's first move)
    created = _create_room(
        base_url, {"game": "tictactoe", "mode": "local", "clock": {"initial": 13, "increment": 0}}
    )
    open_room(page, base_url, created, "local")
    # 13 s to play: the warning comes at 10 s left (a tenth of the time, but never under 10 s)
    expect(page.locator("#player-black .clock")).to_have_class(re.compile(r"\blow\b"), timeout=15_000)
    expect(page.locator("#message")).to_contain_text("X: 10 seconds left")


# ------------------------------------------------------------------ habits of a returning player
def test_new_game_remembers_the_last_settings(page: Page, base_url: str) -> None:
    start_game(page, base_url, "gomoku", "computer", size="19", rule="renju", level="4", **{"as": "white"})
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(base_url + "/")
    expect(page.get_by_label("Gomoku", exact=True)).to_be_checked()
    expect(page.locator("select[name=gomoku-size]")).to_have_value("19")
    expect(page.locator("select[name=gomoku-rule]")).to_have_value("renju")
    expect(page.get_by_label("The computer")).to_be_checked()
    expect(page.locator("input[name=level]")).to_have_value("4")
    expect(page.locator("select[name=as]")).to_have_value("white")


@pytest.mark.own_context  # a dialog listener of its own
def test_resigning_against_the_computer_asks_first(page: Page, base_url: str) -> None:
    start_game(page, base_url, "tictactoe", "computer", level="1")
    play(page, "b2")
    wait_turn_or_end(page)
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    page.get_by_role("button", name="Resign").click()
    page.wait_for_timeout(500)
    assert asked == ["Resign this game?"]
    assert room(page)["outcome"] is None


# ------------------------------------------------------------------ phone
def test_a_19x19_board_on_a_phone_has_readable_points_and_coordinates(
    browser: Browser, base_url: str
) -> None:
    ctx = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = ctx.new_page()
        start_game(page, base_url, "gomoku", "friend", size="19", rule="freestyle")
        cell = measured_box(page, '#board g.sq[data-move="k10"]')
        assert cell["width"] >= 19, f"a point is {cell['width']:.1f} px wide"
        font = page.eval_on_selector_all(
            "#board svg > text",
            "ts => ts.length ? Math.min(...ts.map(t => t.getBoundingClientRect().height)) : 0",
        )
        assert font >= 9, f"the coordinates are {font:.1f} px high"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
        shot(page, "gomoku-19-phone")
    finally:
        ctx.close()
