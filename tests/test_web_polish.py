# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of the page's words and answers: pools and colours named for people, the
computer's strength where a level is chosen, a wait asked for in the right words, names
that fit a phone, 404 for what does not exist, and a pasted record kept across Back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    ROOT,
    STEP_TIMEOUT_MS,
    PageErrors,
    _create_room,
    base_url,
    browser,
    context,
    kept_page,
    page,
    page_errors,
    shot,
    square,
    start_game,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
# the server's workers load no engine until one is asked for (test_web.base_url): one game here is against the
# computer (Reversi), and what it checks comes before the computer's answer
ENGINES = False

LEVELS = ROOT / "src" / "tabletop" / "server" / "web" / "levels.json"


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_unknown_rooms_players_and_pools_answer_404_with_a_page_that_says_so(
    page: Page, base_url: str
) -> None:
    known = _create_room(base_url, {"game": "tictactoe", "mode": "local"})["room"]
    assert status_of(f"{base_url}/play/{known}") == 200
    assert status_of(f"{base_url}/review/{known}") == 200
    assert status_of(f"{base_url}/leaderboard/reversi-8-blitz") == 200
    for path in ("/play/no-such-room", "/review/no-such-room", "/@/no_such_player",
                 "/leaderboard/reversi-8-fast", "/leaderboard/banana"):
        assert status_of(base_url + path) == 404, path
    page.goto(base_url + "/leaderboard/banana")
    expect(page.locator("#missing-view")).to_be_visible()
    expect(page.locator("#missing-title")).to_have_text("No such leaderboard")
    text = str(page.locator("#missing-text").inner_text())
    assert "banana" in text and "Reversi 8×8 · Blitz" in text
    assert "^(" not in text and "pattern" not in text  # no raw regex
    shot(page, "polish-unknown-pool")
    page.goto(base_url + "/play/no-such-room")
    expect(page.locator("#missing-view")).to_be_visible()


def test_pools_are_named_for_people_in_the_lobby_and_on_the_leaderboard(page: Page, base_url: str) -> None:
    page.goto(base_url + "/lobby")
    select = page.locator("#leaderboard-pool")
    expect(select.locator("option[value='reversi-8-blitz']")).to_have_text("Reversi 8×8 · Blitz")
    expect(select.locator("option[value='gomoku-renju-rapid']")).to_have_text("Gomoku Renju · Rapid")
    expect(select.locator("option[value='tictactoe-blitz']")).to_have_text("Tic-tac-toe · Blitz")
    page.goto(base_url + "/leaderboard/reversi-8-blitz")
    expect(page.locator("#player-title")).to_have_text("Leaderboard: Reversi 8×8 · Blitz")


def test_tictactoe_names_the_sides_x_and_o_from_the_start_form_on(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    page.get_by_label("Tic-tac-toe", exact=True).check()
    page.get_by_label("The computer").check()
    options = page.locator("select[name=as] option")
    expect(options).to_have_text(["X (first)", "O", "Random"])
    page.get_by_label("A friend online, by link").check()
    expect(page.locator("select[name=online-as] option")).to_have_text(["X (first)", "O", "Random"])
    page.get_by_label("Reversi", exact=True).check()
    expect(page.locator("select[name=online-as] option")).to_have_text(["Black (first)", "White", "Random"])


def test_each_level_says_how_strong_it_is_where_it_is_chosen(page: Page, base_url: str) -> None:
    levels = json.loads(LEVELS.read_text())
    page.goto(base_url + "/")
    page.get_by_label("Reversi", exact=True).check()
    page.get_by_label("The computer").check()
    level = page.locator("input[name=level]")
    for n in ("1", "3", "10"):
        level.fill(n)
        elo = levels["elo"]["reversi"]["levels"][n]
        expect(page.locator("#level-strength")).to_have_text(f"about {elo} Elo")
    page.get_by_label("Gomoku", exact=True).check()
    page.locator("select[name=gomoku-rule]").select_option("renju")
    expect(page.locator("#level-strength")).to_have_text(
        f"about {levels['elo']['gomoku-renju']['levels']['10']} Elo"
    )
    page.get_by_label("Tic-tac-toe", exact=True).check()
    expect(page.locator("#level-strength")).to_have_text("plays perfectly: never loses")
    level.fill("1")
    expect(page.locator("#level-strength")).to_have_text("plays at random")
    shot(page, "polish-level-strength")
    # and where a record's position is played on against the computer
    page.locator("#import-text").fill("f5d6c3")
    page.get_by_role("button", name="Read the record").click()
    page.locator("#import-opponent").select_option("computer")
    elo = levels["elo"]["reversi"]["levels"]["3"]
    expect(page.locator("#import-level option[value='3']")).to_have_text(f"3 · about {elo} Elo")
    shot(page, "polish-import-level-strength")


def test_the_level_estimates_are_what_the_ladder_gives() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "level_elo.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    levels = json.loads(LEVELS.read_text())
    reversi = [levels["elo"]["reversi"]["levels"][str(n)] for n in range(1, 11)]
    assert reversi[0] == levels["anchor"] and reversi == sorted(reversi)
    # the 10 vs 9 step scored 67 %: 400 * log10(0.67 / 0.33) = +123
    assert abs((reversi[9] - reversi[8]) - 123) <= 10


def test_a_click_while_the_players_move_is_on_its_way_says_it_is_the_computers_turn(
    page: Page, base_url: str
) -> None:
    start_game(page, base_url, "reversi", "computer", level="3", **{"as": "black"})
    page.wait_for_function("() => (window.tabletop.room.legal || []).includes('d3')", polling=POLL_MS)
    # two clicks in one go: the second lands before the server has even seen the first
    page.evaluate(
        "() => { for (const m of ['d3', 'f3']) document.querySelector(`#board g.sq[data-move=\"${m}\"]`)"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true})); }"
    )
    message = page.locator("#message")
    expect(message).to_contain_text("the computer's turn (White)")
    assert "flips no" not in str(message.inner_text())


def test_a_finished_games_review_marks_nobody_away(page: Page, base_url: str) -> None:
    finished = _create_room(
        base_url, {"game": "tictactoe", "mode": "local", "moves": ["a1", "b1", "a2", "b2", "a3"]}
    )
    page.goto(f"{base_url}/review/{finished['room']}")
    page.wait_for_function("() => window.tabletop && window.tabletop.room && window.tabletop.room.outcome", polling=POLL_MS)
    for color in ("black", "white"):
        expect(page.locator(f"#player-{color} .kind")).not_to_contain_text("away")


def test_player_names_fit_a_phone_in_an_online_game_with_clocks(browser: Browser, base_url: str) -> None:
    errors = PageErrors()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = errors.watch(ctx.new_page())
        start_game(page, base_url, "reversi", "online", clock="300+5")
        cut = page.evaluate(
            "() => [...document.querySelectorAll('.player .name, .player .kind')]"
            ".filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"
        )
        shot(page, "polish-names-phone")
        assert cut == [], f"cut on a phone: {cut}"
        expect(page.locator("#player-white .kind")).to_have_text("opponent, not joined yet")
        assert errors.errors == []
    finally:
        ctx.close()


def test_the_pasted_record_is_kept_after_back(page: Page, base_url: str) -> None:
    record = "f5d6c3d3c4"
    page.goto(base_url + "/")
    page.locator("#import-text").fill(record)
    page.get_by_role("button", name="Read the record").click()
    expect(page.locator("#import-found")).to_be_visible()
    page.get_by_role("button", name="Review the game").click()
    page.wait_for_url(re.compile(r".*/review/[^/?]+$"))
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    page.go_back()
    page.wait_for_url(base_url + "/")
    expect(page.locator("#import-text")).to_have_value(record)
    expect(page.locator("#import-found")).to_be_visible()


def test_the_analysis_box_never_shows_two_notes_that_disagree(page: Page, base_url: str) -> None:
    created = _create_room(base_url, {"game": "tictactoe", "mode": "local", "moves": ["b2", "a1", "c3"]})
    seat = {"tokens": created["tokens"], "invite": None, "seq": 0, "mode": "local"}
    page.goto(base_url + "/")
    page.evaluate(
        "([id, seat]) => localStorage.setItem('tabletop.room.' + id, JSON.stringify(seat))",
        [created["room"], seat],
    )
    page.goto(f"{base_url}/play/{created['room']}")
    wait_ready(page)
    note = page.locator("#analysis-note")
    expect(note).to_have_text("The engine has not analysed this game yet.")
    page.get_by_role("button", name="Analyse").click()
    expect(page.locator("#analysis-ply")).not_to_be_empty(timeout=60_000)
    page.wait_for_function("() => window.tabletop.analysis && window.tabletop.analysis.status === 'done'", polling=POLL_MS)
    expect(note).to_have_text(re.compile(r"^\d+ blunders?, \d+ mistakes?, \d+ inaccurac(y|ies)$"))
    shot(page, "polish-analysis-done")
    # a move after the analysis: its summary speaks of another game now, and Analyse is offered
    square(page, "c1").click()
    page.wait_for_function("() => window.tabletop.room.moves.length === 4", polling=POLL_MS)
    expect(page.get_by_role("button", name="Analyse")).to_be_visible()
    expect(note).to_have_text("The game went on after the analysis: Analyse looks at it again.")
