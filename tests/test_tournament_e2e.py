"""An arena end to end (issue 45, point 5): a real ``tabletop serve``, two people who join and play
in the browser (Debian's chromium, one context each), and two bots, our own Gomocup engine at level 1
run by ``tabletop bot``, who join over the API.  The arena (Gomoku, 1-minute games) runs until six
games have been played, when its creator ends it and the games under way are played out.  Then the
standings, the ratings and the records must agree with the games played: each game's record holds
its moves and its result, each player's points follow from the arena rules applied to their games
in order, their games and wins/draws/losses match their rating in the pool, and the ratings are
Glicko-2 applied game by game in the order the games ended.

The people play "the longest line" (``line_builder_move``): quick games, against each other and
against the bots.  The tournament page and the game pages take each person from game to game by
themselves, as they would a player."""

from __future__ import annotations

import secrets
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Error, Page, expect

from tabletop.ratings import Rating, rate_game
from test_bots import TABLETOP, Server
from test_web import POLL_MS, STEP_TIMEOUT_MS, browser, line_builder_move, square  # noqa: F401  (browser: a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]

PASSWORD = "correct horse battery"
CLOCK = {"initial": 60, "increment": 0}
POOL = "gomoku-freestyle-bullet"
ENGINE = f"gomocup:{TABLETOP} engine gomocup --level 1"


def sign_up(server: Server, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=30)
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return client


def start_bot(server: Server, name: str, folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A bot account ``name`` played by our Gomocup engine through ``tabletop bot``; its process and token."""
    token = sign_up(server, name).post("/api/account/bot").json()["token"]
    with (folder / f"{name}.log").open("wb") as out:  # --token=: a token may begin with "-" (argparse: an option)
        process = subprocess.Popen([TABLETOP, "bot", "--server", server.url, f"--token={token}", "--engine", ENGINE,
                                    "--seconds", "0.05"], stdout=out, stderr=subprocess.STDOUT)
    return process, token


# the page's Gomoku position when this page holds the seat to move, else null
MY_TURN = """() => { const t = window.tabletop; const r = t && t.conn && t.room;
  if (!r || r.outcome || !r.turn || !t.seat.tokens[r.turn] || t.awaitingTurn || !t.pos) return null;
  return {color: r.turn, moves: (r.moves || []).length, legal: r.legal || [], cells: t.pos.cells}; }"""


# how often play_until asks ``done()``: each ask is a request for the tournament's whole view (some 8 ms of
# processor time, server and client), where the pages are looked at every 50 ms
DONE_EVERY = 0.5


def play_until(pages: list[Page], done: Any, seconds: float) -> None:
    """Play each person's turn in whichever game their page shows, until ``done()`` (asked every
    ``DONE_EVERY`` seconds)."""
    deadline = time.monotonic() + seconds
    ask_at = 0.0
    while True:
        now = time.monotonic()
        if now >= ask_at:
            if done():
                return
            ask_at = now + DONE_EVERY
        assert now < deadline, f"the arena did not finish in {seconds} s"
        for page in pages:
            try:
                turn = page.evaluate(MY_TURN)
                if not turn:
                    continue
                square(page, line_builder_move(turn["cells"], turn["legal"], turn["color"])).click(timeout=3000)
                page.wait_for_function(f"() => (window.tabletop.room.moves || []).length > {turn['moves']}",
                                       timeout=5000, polling=POLL_MS)
            except Error:
                continue  # the page is on its way to the next game, or this one just ended
        time.sleep(0.05)


def arena_points(results: list[float]) -> list[int]:
    """The points of each of a player's games, in order, by the arena rules of docs/wire.md: a win 2,
    a draw 1, a loss 0; on a streak (after two wins in a row) a win 4 and a draw 2."""
    points, wins = [], 0
    for score in results:
        fire = wins >= 2
        points.append(int({1.0: 2, 0.5: 1, 0.0: 0}[score] * (2 if fire else 1)))
        wins = wins + 1 if score == 1.0 else 0
    return points


def test_two_people_in_the_browser_and_two_bots_play_an_arena_whose_standings_ratings_and_records_agree(
    browser: Browser, tmp_path: Path  # noqa: F811  (the fixture imported from test_web)
) -> None:
    started = time.monotonic()
    server = Server(tmp_path)
    server.start()
    tag = secrets.token_hex(2)
    people = [f"ann{tag}", f"bob{tag}"]
    bots: list[tuple[subprocess.Popen[bytes], str]] = []
    contexts = []
    errors: list[str] = []
    try:
        for name in (f"rapa{tag}", f"rapb{tag}"):
            bots.append(start_bot(server, name, tmp_path))
        clients = [sign_up(server, name) for name in people]
        # each bot loads its engine as it starts; the arena begins once both are ready to move
        deadline = time.monotonic() + 60
        while not all("the engine is ready" in (tmp_path / f"{name}.log").read_text()
                      for name in (f"rapa{tag}", f"rapb{tag}")):
            assert time.monotonic() < deadline, "the bots' engines did not load in 60 s"
            time.sleep(0.2)
        made = clients[0].post("/api/tournaments", json={
            "kind": "arena", "name": "End to end", "game": "gomoku", "options": {"rule": "freestyle", "size": 15},
            "clock": CLOCK, "rated": True, "minutes": 10})
        assert made.status_code == 201, made.text
        tournament = made.json()["id"]

        # each person joins on the tournament's page, then a bot over the API with its token: the
        # first pairings are person against bot (a bot's game against a bot is the longest)
        pages = []
        for client, (_, token) in zip(clients, bots):
            ctx = browser.new_context(viewport={"width": 1200, "height": 860})
            ctx.set_default_timeout(STEP_TIMEOUT_MS)
            ctx.add_cookies([{"name": "tabletop_session", "value": client.cookies["tabletop_session"],
                              "url": server.url}])
            contexts.append(ctx)
            page = ctx.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/tournament/{tournament}")
            page.get_by_role("button", name="Join", exact=True).click()
            expect(page.locator("#standings-rows tr.me")).to_have_count(1)
            joined = httpx.post(f"{server.url}/api/tournaments/{tournament}/join",
                                headers={"authorization": f"Bearer {token}"}, timeout=30)
            assert joined.status_code == 200, joined.text
            page.wait_for_url("**/play/*")  # paired with that bot, the page opens the game
            pages.append(page)

        # one client for the polls below: each httpx.get() builds a client (some 45 ms of processor time)
        looker = httpx.Client(base_url=server.url, timeout=30)

        def view() -> dict[str, Any]:
            return dict(looker.get(f"/api/tournaments/{tournament}").json())

        def six_played() -> bool:
            return sum(g["result"] in ("1-0", "0-1", "1/2-1/2") for g in view()["games"]) >= 6

        # six games played, the creator ends the arena: the games under way are played out
        play_until(pages, six_played, seconds=240)
        ended = clients[0].post(f"/api/tournaments/{tournament}/finish")
        assert ended.status_code == 200, ended.text
        play_until(pages, lambda: view()["status"] == "finished", seconds=120)
        final = view()
        played = time.monotonic() - started

        # every game is over, and at least six were played to a result, bots and people on both sides (a
        # game that ended before both sides moved has no result and counts for nothing, by the rules)
        scores = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
        assert all(g["result"] in (*scores, "aborted") for g in final["games"]), final["games"]
        games = sorted((g for g in final["games"] if g["result"] in scores), key=lambda g: g["ended"])
        lengths = [(g["black"], g["white"], g["result"], round(g["ended"] - g["started"], 1)) for g in games]
        assert len(games) >= 6, lengths
        names = {n for g in games for n in (g["black"], g["white"])}
        assert names == {*people, f"rapa{tag}", f"rapb{tag}"}, names

        # the records: each game's room ended as the tournament says, its transcript holds its moves
        for g in games:
            state = looker.get(f"/api/rooms/{g['room']}").json()
            winner = state["outcome"]["winner"]
            assert {"black": "1-0", "white": "0-1", None: "1/2-1/2"}[winner] == g["result"], (g, state["outcome"])
            # quick games on a minute's clock: a game lost on time is a side that stopped moving (a bot's
            # move refused as a frame too many and never sent again)
            assert state["outcome"]["reason"] != "time", (g, state["outcome"])
            assert (state["players"]["black"]["name"], state["players"]["white"]["name"]) == (g["black"], g["white"])
            record = looker.get(f"/api/rooms/{g['room']}/record", params={"format": "transcript"}).text
            assert record.split() == state["moves"], (record, state["moves"])

        # the standings: each player's points follow from their games in the order they started
        by_start = sorted(games, key=lambda g: g["started"])
        for standing in final["standings"]:
            name = standing["name"]
            results = [scores[g["result"]] if g["black"] == name else 1 - scores[g["result"]]
                       for g in by_start if name in (g["black"], g["white"])]
            assert standing["sheet"] == arena_points(results), (name, standing, results)
            assert standing["score"] == sum(standing["sheet"])
            assert (standing["games"], standing["wins"], standing["draws"], standing["losses"]) == (
                len(results), results.count(1.0), results.count(0.5), results.count(0.0))
        ranked = sorted(final["standings"], key=lambda s: s["rank"])
        assert final["winner"] == ranked[0]["name"] and final["podium"] == [s["name"] for s in ranked[:3]]

        # the ratings: Glicko-2 game by game in the order the games ended, from a new rating each
        ratings = {s["name"]: Rating() for s in final["standings"]}
        for g in games:
            ratings[g["black"]], ratings[g["white"]] = rate_game(ratings[g["black"]], ratings[g["white"]],
                                                                  scores[g["result"]])
        for standing in final["standings"]:
            name = standing["name"]
            profile = looker.get(f"/api/players/{name}").json()
            assert profile["bot"] == name.startswith("rap")
            if not standing["games"]:
                assert POOL not in profile["ratings"], profile  # a player who played no game is not rated
                continue
            mine = profile["ratings"][POOL]
            assert mine["rating"] == round(ratings[name].rating, 1), (name, mine, ratings[name])
            assert (mine["games"], mine["wins"], mine["draws"], mine["losses"]) == (
                standing["games"], standing["wins"], standing["draws"], standing["losses"])
            assert {p["room"] for p in profile["games"]} >= {g["room"] for g in games if name in (g["black"], g["white"])}

        # each person's browser shows the end: their tournament page has the winner and the podium
        for page in pages:
            page.goto(f"{server.url}/tournament/{tournament}")
            expect(page.locator("#tournament-winner")).to_have_text(f"{final['winner']} wins End to end")
            expect(page.locator("#podium li")).to_have_count(3)
            expect(page.locator("#tournament-games tr")).to_have_count(len(final["games"]))
            bot_games = sum(1 for g in final["games"] for n in (g["black"], g["white"]) if n.startswith("rap"))
            expect(page.locator("#tournament-games .bot-mark")).to_have_count(bot_games)  # bots marked
        assert errors == []
        assert all(process.poll() is None for process, _ in bots), "a bot stopped"
        print(f"{len(games)} games; the arena took {played:.1f} s from the server's start: {lengths}")
    finally:
        for ctx in contexts:
            ctx.close()
        for process, _ in bots:
            process.terminate()
        for process, _ in bots:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        server.stop()
