# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of stepping through a game (issue 25 point 2): arrow keys, Home/End, a
click on a move in the list or on the graph shows the board at that move; the move list
is laid out as numbered Black/White pairs.  The page's replay of a move list is checked
against the rules library, position by position.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    STEP_TIMEOUT_MS,
    PageErrors,
    base_url,
    browser,
    context,
    kept_page,
    labels,
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
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


def shown_ply(page: Page) -> int:
    return int(str(page.locator("#board").get_attribute("data-ply")))


def marks(page: Page) -> dict[str, str]:
    """What each square holds in the drawn board: 'black', 'white' or 'empty'."""
    return {name: label.split(", ")[1] for name, label in labels(page).items()}


def test_a_finished_game_steps_through_with_keys_the_list_and_the_graph(page: Page, base_url: str) -> None:
    start_game(page, base_url, "tictactoe", "friend")
    for move in ("a1", "a2", "b1", "b2", "c1"):  # X takes the bottom row
        play(page, move)
    result_dialog(page)
    graph = page.locator("#graph svg")
    expect(graph).to_be_visible(timeout=60_000)
    page.locator("#result-close").click()

    # the list: numbered rows of one X move and one O move
    rows = page.locator("#move-list li")
    expect(rows).to_have_count(5)
    y = [rows.nth(i).bounding_box()["y"] for i in range(5)]  # type: ignore[index]
    assert y[0] == y[1] and y[2] == y[3] and y[0] < y[2] < y[4]
    assert [rows.nth(i).get_attribute("data-number") for i in (0, 2, 4)] == ["1", "2", "3"]

    # keys, from the move list (the board keeps its arrows for moving between squares)
    page.locator("#move-list").focus()
    page.keyboard.press("ArrowLeft")
    assert shown_ply(page) == 4
    assert marks(page)["c1"] == "empty" and marks(page)["b2"] == "white"
    expect(page.locator("#status")).to_contain_text("Move 4 of 5 (b2)")
    page.keyboard.press("Home")
    assert shown_ply(page) == 0
    assert set(marks(page).values()) == {"empty"}
    page.keyboard.press("ArrowRight")
    assert marks(page)["a1"] == "black" and list(marks(page).values()).count("empty") == 8
    page.keyboard.press("End")
    assert shown_ply(page) == 5
    assert sum("winning line" in label for label in labels(page).values()) == 3

    # a click on a move shows the board after it
    rows.nth(1).click()
    assert shown_ply(page) == 2
    assert marks(page)["a2"] == "white" and marks(page)["b1"] == "empty"
    expect(rows.nth(1)).to_have_attribute("aria-current", "step")
    shot(page, "review-tictactoe")

    # a click on the graph: its left end is the start, its right end the last move
    box = graph.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
    assert shown_ply(page) == 0
    assert page.locator("#graph .graph-cursor").count() == 1
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    assert shown_ply(page) == 5


def test_a_hot_seat_game_in_progress_steps_back_and_returns_to_play(page: Page, base_url: str) -> None:
    start_game(page, base_url, "reversi", "friend", size="8")
    for move in ("f5", "f6", "e6"):
        play(page, move)
    page.get_by_role("button", name="Previous move").click()
    assert shown_ply(page) == 2
    assert marks(page)["e6"] == "empty" and marks(page)["f6"] == "white"
    expect(page.locator("#player-black .count")).to_have_text("3")
    shot(page, "review-reversi-hotseat")
    # the board takes no move while an earlier one is shown
    square(page, "f4").click()
    expect(page.locator("#message")).to_contain_text("earlier move")
    assert len(room(page)["moves"]) == 3
    page.get_by_role("button", name="The latest move").click()
    assert shown_ply(page) == 3
    play(page, "f4")
    assert room(page)["moves"] == ["f5", "f6", "e6", "f4"]


def test_a_spectator_steps_through_a_game_in_progress_and_a_player_online_does_not(
    browser: Browser, base_url: str
) -> None:
    errors = PageErrors()
    host_ctx, guest_ctx, watch_ctx = browser.new_context(), browser.new_context(), browser.new_context()
    try:
        for ctx in (host_ctx, guest_ctx, watch_ctx):
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
        host = errors.watch(host_ctx.new_page())
        room_id = start_game(host, base_url, "gomoku", "online", size="15", rule="freestyle")
        guest = errors.watch(guest_ctx.new_page())
        guest.goto(host.locator("#invite-url").input_value())
        wait_ready(guest)
        play(host, "h8")
        wait_moves(guest, "moves.length === 1")
        play(guest, "i9")
        wait_moves(host, "moves.length === 2")
        expect(host.locator("#review-nav")).to_be_hidden()
        host.locator("#move-list").focus()
        host.keyboard.press("Home")
        assert shown_ply(host) == 2, "a player online sees the game as it stands"

        watcher = errors.watch(watch_ctx.new_page())
        watcher.goto(f"{base_url}/play/{room_id}")
        wait_ready(watcher)
        expect(watcher.locator("#review-nav")).to_be_visible()
        watcher.get_by_role("button", name="The start").click()
        assert shown_ply(watcher) == 0
        assert marks(watcher)["h8"] == "empty"
        # a new move arrives while the spectator looks back: the view stays, the list grows
        play(host, "h9")
        wait_moves(watcher, "moves.length === 3")
        assert shown_ply(watcher) == 0
        watcher.get_by_role("button", name="The latest move").click()
        assert marks(watcher)["h9"] == "black"
        assert errors.errors == []
    finally:
        for ctx in (host_ctx, guest_ctx, watch_ctx):
            ctx.close()


# ------------------------------------------------------------------ the replay is the library's
def _library_games() -> list[tuple[str, dict[str, Any], list[str], list[str]]]:
    """Seeded random games of the rules library: (game, options, moves, position after each ply)."""
    from tabletop.games import new_board

    rng = random.Random(25)
    games = []
    for game, options in (
        ("reversi", {"size": 8}),
        ("reversi", {"size": 6}),
        ("reversi", {"size": 10}),
        ("gomoku", {"size": 15}),
        ("tictactoe", {}),
    ):
        for _ in range(2):
            board = new_board(game, options)
            texts = [board.to_text()]
            moves: list[str] = []
            while not board.is_game_over() and len(moves) < 120:
                move = rng.choice(board.legal_moves)
                moves.append(str(move))
                board.push(move)
                texts.append(board.to_text())
            games.append((game, options, moves, texts))
    return games


REPLAY_JS = """
async ([game, moves, start]) => {
  const replay = await import('/web/replay.js');
  const board = await import('/web/board.js');
  const first = board.parsePosition(start);
  const own = replay.positionText(replay.startPosition(game, first.width, first.height));
  return { start: own, positions: replay.replay(game, start, moves) };
}
"""


def test_the_page_replays_a_game_exactly_as_the_rules_library_plays_it(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    for game, options, moves, texts in _library_games():
        drawn = page.evaluate(REPLAY_JS, [game, moves, texts[0]])
        assert drawn["start"] == texts[0], (game, options)
        assert drawn["positions"] == texts, (game, options, moves)


@pytest.mark.own_context  # a console listener and an init script
def test_the_page_keeps_to_its_content_security_policy(page: Page, base_url: str) -> None:
    """The server allows only the page's own scripts and styles: no inline code or style."""
    refused: list[str] = []
    page.on(
        "console",
        lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => console.error("
        "'Content Security Policy: ' + e.violatedDirective + ' ' + e.blockedURI))"
    )
    start_game(page, base_url, "reversi", "friend", size="8")
    play(page, "f5")
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#message")).to_contain_text("Hint:", timeout=30_000)
    page.get_by_role("button", name="Previous move").click()
    assert shown_ply(page) == 0
    page.goto(f"{base_url}/play/no-such-room")
    expect(page.get_by_role("heading", name="No such game")).to_be_visible()
    assert refused == []
