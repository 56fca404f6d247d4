# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser tests of opening a record, "My games" and sound (issue 25, points 4 to 6).

A record pasted or uploaded on the start screen is read by the server; each format
opens for review as a room holding the record's moves, a bad record shows the reader's
line and column, and a position of it can be played on against the computer.  The
start screen lists the games this browser played; the mute toggle outlives a reload.
The fixtures and helpers are the ones of ``test_web.py``.
"""

from __future__ import annotations

import calendar
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    POLL_MS,
    ROOT,
    _create_room,
    base_url,
    browser,
    context,
    doc_shot,
    kept_page,
    page,
    page_errors,
    play,
    room,
    shot,
    start_game,
    wait_moves,
    wait_ready,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
# the server's workers load no engine until one is asked for (test_web.base_url): the two games against the
# computer are Reversi ones, and their waits allow for the first move's load of its engine
ENGINES = False

DATA = Path(__file__).resolve().parent / "data"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def keep_shot(page: Page, name: str) -> None:
    """A screenshot for docs/screenshots/ (written there by ``make screenshots``)."""
    doc_shot(page, name)


def read_record(page: Page, base_url: str, text: str | None = None, upload: Path | None = None) -> None:
    """Paste ``text`` (or upload the file ``upload``) into "Open a record" on the start screen."""
    page.goto(base_url + "/")
    if upload is not None:
        page.locator("#import-file").set_input_files(str(upload))
    else:
        page.get_by_label("Paste an SGF, GGF, PSQ or OBF record").fill(text or "")
        page.get_by_role("button", name="Read the record").click()


def open_for_review(page: Page) -> dict[str, Any]:
    page.get_by_role("button", name="Review the game").click()
    page.wait_for_url(re.compile(r".*/review/[^/?]+$"))
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    return room(page)


RECORDS = [
    ("records/two-games.ggf", "GGF", "reversi", ["f5", "d6", "c3", "d3", "c4"], None),
    ("records/reversi-opening.sgf", "SGF", "reversi", ["f5", "d6", "c3", "d3", "c4", "f4"], None),
    ("records/gomoku-hand.sgf", "SGF", "gomoku", ["h8", "i8", "g7", "a15", "o1"], None),
    ("records/short.psq", "PSQ", "gomoku", ["h8", "i7", "i8"], None),
    ("records/reversi.txt", "TRANSCRIPT", "reversi", ["f5", "d6", "c3", "d3", "c4", "f4", "c5", "b3", "c2"], None),
    ("records/three-positions.obf", "OBF", "reversi", [], "--XXXXX-/-OOOXX-O/-OOOXXOX/-OXOXOXX/OXXXOXXX/--XOXOXX/-XXXOOO-/-OOOOO-- X"),
]


@pytest.mark.parametrize(("name", "label", "game", "moves", "start"), RECORDS, ids=[r[0] for r in RECORDS])
def test_each_record_format_opens_for_review_with_its_moves(
    page: Page, base_url: str, name: str, label: str, game: str, moves: list[str], start: str | None
) -> None:
    path = DATA / name
    if name.endswith(".ggf"):
        read_record(page, base_url, upload=path)  # a file, its format told by its name
    else:
        read_record(page, base_url, text=path.read_text())
    expect(page.locator("#import-summary")).to_contain_text(f"{label}:")
    expect(page.locator("#import-board svg")).to_be_visible()
    if name.endswith(".ggf") or name.endswith(".obf"):
        expect(page.locator("#import-which option")).to_have_count(2 if name.endswith(".ggf") else 3)
    state = open_for_review(page)
    assert state["game"] == game
    assert state["moves"] == moves
    assert state["start_position"] == start
    if moves:  # the review page steps through the game
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("Home")
        page.wait_for_function("() => window.tabletop.view === 0", polling=POLL_MS)


def test_a_bad_record_shows_the_readers_line_and_column(page: Page, base_url: str) -> None:
    read_record(page, base_url, text="(;FF[4]GM[2]SZ[8]\n;B[fe];W[zz])")
    error = page.locator("#import-error")
    expect(error).to_contain_text("line 2, column 8")
    expect(error).to_contain_text("[zz] is off the 8x8 board")
    expect(page.locator("#import-found")).to_be_hidden()
    page.get_by_label("Paste an SGF, GGF, PSQ or OBF record").fill("f5 d6 c3\nf5 d6 x9")
    page.get_by_role("button", name="Read the record").click()
    expect(error).to_contain_text("line 2, column 7")


def test_play_on_from_a_position_of_a_record_against_the_computer(page: Page, base_url: str) -> None:
    read_record(page, base_url, text="f5d6c3d3c4f4c5b3c2")
    panel = page.locator("#import")
    panel.get_by_label("Position").select_option(label="After 4. d3 (White)")
    expect(panel.get_by_label("I play")).to_have_value("black")  # the side to move there
    panel.get_by_label("Against").select_option("computer")
    panel.get_by_label("Level").select_option("1")
    page.set_viewport_size(DESKTOP)
    page.locator("#import").evaluate("(el) => el.scrollIntoView()")
    keep_shot(page, "import-record")
    page.get_by_role("button", name="Play from here").click()
    # the first computer seat of a server loads its engine: generous on a busy machine
    page.wait_for_url(re.compile(r".*/play/[^/?]+$"), timeout=120_000)
    wait_ready(page)
    state = room(page)
    assert state["moves"] == ["f5", "d6", "c3", "d3"]
    assert state["seats"]["white"]["kind"] == "level:1"
    assert state["turn"] == "black"
    play(page, "c4")
    wait_moves(page, "moves.length >= 6", timeout=60_000)  # the computer answers
    assert room(page)["moves"][:5] == ["f5", "d6", "c3", "d3", "c4"]


def test_my_games_lists_the_games_of_this_browser_with_opponent_result_and_date(page: Page, base_url: str) -> None:
    began = time.time()
    # a finished hot-seat game of Tic-tac-toe, made with its moves, opened in this browser
    done = _create_room(
        base_url, {"game": "tictactoe", "mode": "local", "moves": ["a1", "b1", "a2", "b2", "a3"]}
    )
    page.goto(base_url + "/")
    page.evaluate(
        "([id, tokens]) => localStorage.setItem('tabletop.room.' + id,"
        " JSON.stringify({tokens, invite: null, seq: 0, mode: 'local'}))",
        [done["room"], done["tokens"]],
    )
    # and a Reversi game against the computer, started from the form and left after a move
    live = start_game(page, base_url, "reversi", "computer", level="1", **{"as": "black"})
    play(page, "f5")
    page.goto(base_url + "/")
    items = page.locator("#my-games-list li")
    expect(items).to_have_count(2)
    newest, older = items.nth(0), items.nth(1)
    assert newest.get_attribute("data-room") == live and older.get_attribute("data-room") == done["room"]
    expect(newest).to_contain_text("Reversi 8×8")
    expect(newest).to_contain_text("vs the computer, level 1 as Black")
    expect(newest).to_contain_text(re.compile(r"your move|in progress"))
    expect(older).to_contain_text("Tic-tac-toe")
    expect(older).to_contain_text("vs a friend at this screen · X won")
    for item in (newest, older):
        stamp = item.locator("time").get_attribute("datetime")
        assert stamp is not None
        when = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
        assert began - 120 <= when <= time.time() + 5, stamp
    expect(newest.get_by_role("link", name=re.compile("^Resume"))).to_be_visible()
    for size, name in ((DESKTOP, "my-games"), (PHONE, "my-games-phone")):
        page.set_viewport_size(size)
        page.locator("#my-games").evaluate("(el) => el.scrollIntoView()")
        keep_shot(page, name)
    older.get_by_role("link", name=re.compile("^Review")).click()
    page.wait_for_url(f"**/review/{done['room']}")
    page.wait_for_function("() => window.tabletop && window.tabletop.room", polling=POLL_MS)
    assert room(page)["outcome"]["winner"] == "black"
    page.go_back()
    page.locator("#my-games-list li").nth(0).get_by_role("link", name=re.compile("^Resume")).click()
    page.wait_for_url(f"**/play/{live}")
    wait_ready(page)
    assert room(page)["moves"][0] == "f5"


COUNT_TONES = """
window.__tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
window.__audio = [];  // the states each of the page's audio contexts went through
const Native = window.AudioContext;
window.AudioContext = class extends Native {
  constructor(...args) {
    super(...args);
    const states = [this.state];
    window.__audio.push(states);
    this.addEventListener("statechange", () => states.push(this.state));
  }
};
"""
# the page's last audio context has gone to sleep (suspended) after a sound
ASLEEP = "() => window.__audio.length > 0 && window.__audio.at(-1).at(-1) === 'suspended'"


def tones(page: Page) -> int:
    value = page.evaluate("() => window.__tones")
    assert isinstance(value, int)
    return value


@pytest.mark.own_context  # an init script counts the tones
def test_moves_sound_and_the_mute_toggle_is_kept_after_a_reload(page: Page, base_url: str) -> None:
    page.add_init_script(COUNT_TONES)
    start_game(page, base_url, "tictactoe", "friend")
    toggle = page.locator("#sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    play(page, "b2")
    page.wait_for_function("() => window.__tones >= 1", polling=POLL_MS)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.reload()
    wait_ready(page)
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#sound-toggle")).to_contain_text("Sound off")
    expect(page.get_by_role("button", name="Turn sound on")).to_be_visible()
    before = tones(page)
    play(page, "a1")
    play(page, "a3")
    assert tones(page) == before, "a muted page makes no sound"
    page.locator("#sound-toggle").click()  # sound on again: a sample tone, then the moves sound
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    after_toggle = tones(page)
    play(page, "b1")
    page.wait_for_function(f"() => window.__tones > {after_toggle}", polling=POLL_MS)
    after_move = tones(page)
    # between two sounds the audio sleeps (a running context keeps the audio device busy), and wakes for the next
    page.wait_for_function(ASLEEP, polling=POLL_MS)
    play(page, "c1")  # X's a3-b2-c1: the end of the game has its own three tones after the move's
    expect(page.locator("#result-dialog")).to_be_visible()
    page.wait_for_function(f"() => window.__tones >= {after_move} + 4", polling=POLL_MS)
    page.wait_for_function(ASLEEP, polling=POLL_MS)
    assert page.evaluate("() => window.__audio.at(-1).slice(-4)") == ["running", "suspended", "running", "suspended"]


def test_the_import_panel_at_phone_width(page: Page, base_url: str) -> None:
    page.set_viewport_size(PHONE)
    read_record(page, base_url, text=(DATA / "records/gomoku-hand.sgf").read_text())
    expect(page.locator("#import-board svg")).to_be_visible()
    page.locator("#import").evaluate("(el) => el.scrollIntoView()")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at phone width"
    keep_shot(page, "import-record-phone")


def test_an_othello_transcript_with_an_illegal_move_shows_the_reversi_error_not_a_gomoku_game(
    page: Page, base_url: str
) -> None:
    from test_records_import import OTHELLO_WITH_ILLEGAL_MOVE_23

    read_record(page, base_url, text=OTHELLO_WITH_ILLEGAL_MOVE_23)  # "Moves of" left at "Reversi or Gomoku"
    error = page.locator("#import-error")
    expect(error).to_contain_text("move 23 (a4) is illegal")
    expect(error).to_contain_text("choose Gomoku")
    expect(page.locator("#import-found")).to_be_hidden()
    shot(page, "import-illegal-reversi-move")
