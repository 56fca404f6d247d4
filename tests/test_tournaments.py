"""Tournaments (server/tournaments.py, server/tournament_scores.py): the arena's pairing and scoring
rules, swiss rounds paired by the FIDE Dutch engine, standings, podium, rated and casual.

One app on a SQLite file for the module, with its tick off (``Settings(tournament_tick=0)``): each
test ticks by hand (``client.portal.call(tournaments.tick)``) and moves the app's wall clock, so
nothing sleeps.  Games are played over the room sockets as a browser plays them: each player takes
their seat with ``POST /api/rooms/{id}/seat``, both move, and the loser resigns (or both agree a
draw)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from tabletop.ratings import DEFAULT
from tabletop.server.app import create_app
from tabletop.server.bots import Challenges, EventStream
from tabletop.server.lobby import LOBBY_CHANNEL
from tabletop.server.settings import Settings
from tabletop.server.tournament_scores import arena_points
from tabletop.server.tournaments import Candidate, SwissPlayer, _due, colours, pair_arena, pair_swiss
from test_lobby import Players

CLOCK = {"initial": 60, "increment": 0}
NAMES = ("ann", "ben", "cat", "dan", "eve")


# -- the rules, pure -------------------------------------------------------------------------------------------
def test_an_arena_win_counts_2_a_draw_1_and_both_double_after_two_wins_in_a_row() -> None:
    streak, sheet = 0, []
    for score in (1, 1, 1, 0.5, 1, 0, 1, 1, 0.5):
        points, streak = arena_points(score, streak)
        sheet.append(points)
    assert sheet == [2, 2, 4, 2, 2, 0, 2, 2, 2]


def test_arena_pairing_takes_the_nearest_score_and_never_the_last_opponent_again() -> None:
    free = [Candidate("a", 10, last_opponent="b"), Candidate("b", 9, last_opponent="a"), Candidate("c", 2),
            Candidate("d", 0)]
    pairs = pair_arena(free, 4, coin=lambda: True)
    assert sorted(map(sorted, pairs)) == [["a", "c"], ["b", "d"]]  # a's nearest, b, was its last opponent


def test_the_last_two_active_players_may_meet_again() -> None:
    free = [Candidate("a", last_opponent="b"), Candidate("b", last_opponent="a")]
    assert pair_arena(free, 3) == []  # a third player is active: they wait for someone else
    assert len(pair_arena(free, 2)) == 1


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 9)), min_size=0, max_size=12), st.integers(2, 14))
def test_arena_pairing_never_seats_a_player_twice_nor_rematches_the_last_game_and_leaves_no_pairable_two(
        players: list[tuple[int, int]], extra_active: int) -> None:
    free = [Candidate(f"p{n}", score, last_opponent=f"p{last}") for n, (score, last) in enumerate(players)]
    active = len(free) + extra_active
    pairs = pair_arena(free, active)
    seated = [p for pair in pairs for p in pair]
    assert len(seated) == len(set(seated))
    last = {c.player_id: c.last_opponent for c in free}
    assert all(last[a] != b and last[b] != a for a, b in pairs)
    waiting = [c.player_id for c in free if c.player_id not in seated]
    for index, a in enumerate(waiting):  # nobody waits who could have played another who waits
        assert all(last[a] == b or last[b] == a for b in waiting[index + 1:])


def test_the_player_who_had_black_more_often_takes_white() -> None:
    assert colours(Candidate("a", blacks=3, whites=1), Candidate("b", blacks=1, whites=1)) == ("b", "a")
    assert colours(Candidate("a", blacks=1, whites=1), Candidate("b", blacks=2, whites=1)) == ("a", "b")
    seen = {colours(Candidate("a"), Candidate("b")) for _ in range(64)}
    assert seen == {("a", "b"), ("b", "a")}  # even: a coin


def test_the_dutch_engine_gives_an_odd_fields_bye_to_its_lowest_and_pairs_top_half_against_bottom() -> None:
    players = [SwissPlayer(f"p{n}", seed=2000 - 100 * n) for n in range(1, 6)]
    games, bye = pair_swiss(players, set(), 1, 3)
    assert bye == "p5"
    assert sorted(frozenset(g) for g in games) == sorted([frozenset({"p1", "p3"}), frozenset({"p2", "p4"})])


def test_a_swiss_round_that_only_a_rematch_could_pair_has_no_pairing() -> None:
    met = [SwissPlayer("a", 1600, 1.0, ["white"], ["none"]), SwissPlayer("b", 1500, 0.0, ["black"], ["none"])]
    with pytest.raises(ValueError, match="no pairing without a rematch"):
        pair_swiss(met, {("a", "b"), ("b", "a")}, 2, 3)


# -- through the app -------------------------------------------------------------------------------------------
class Wall:
    """A wall clock that stands still until the test moves it."""

    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Players, Wall]]:
    wall = Wall()
    database = tmp_path_factory.mktemp("tournaments") / "t.db"
    # no tick of its own, and no game called off for a first move not made (unless a test asks)
    settings = Settings(database=f"sqlite:///{database}", workers=1, tournament_tick=0, tournament_first_move=1e9)
    with TestClient(create_app(settings, now=wall)) as client:
        players = Players(client)
        for name in NAMES:
            players.sign_up(name)
        yield players, wall


def tick(players: Players) -> list[str]:
    changed: list[str] = players.client.portal.call(players.client.app.state.tournaments.tick)  # type: ignore[attr-defined]
    return changed


def create(players: Players, who: str = "ann", **body: Any) -> dict[str, Any]:
    answer = players.as_(who).post("/api/tournaments", json={"game": "tictactoe", "clock": CLOCK, **body})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def view(players: Players, tournament_id: str) -> dict[str, Any]:
    answer = players.as_(None).get(f"/api/tournaments/{tournament_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def join(players: Players, tournament_id: str, *names: str) -> None:
    for name in names:
        answer = players.as_(name).post(f"/api/tournaments/{tournament_id}/join")
        assert answer.status_code == 200, answer.text


def playing(t: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in t["games"] if g["result"] is None]


def finish(players: Players, game: dict[str, Any], result: str) -> None:
    """Play the tournament ``game`` to ``result`` ("1-0", "0-1", "draw") from both players' seats."""
    client = players.client
    tokens = {}
    for color in ("black", "white"):
        seat = players.as_(game[color]).post(f"/api/rooms/{game['room']}/seat")
        assert seat.status_code == 200, seat.text
        tokens[seat.json()["seat"]] = seat.json()["token"]
    with client.websocket_connect(f"/api/rooms/{game['room']}/ws") as black, \
            client.websocket_connect(f"/api/rooms/{game['room']}/ws") as white:
        for color, ws in (("black", black), ("white", white)):
            ws.send_json({"type": "hello", "token": tokens[color]})
            assert ws.receive_json()["type"] == "state"
        for ply, (ws, move) in enumerate(((black, "b2"), (white, "a1"))):
            ws.send_json({"type": "move", "move": move, "seq": ply + 1})
            while (f := ws.receive_json())["type"] != "ack":
                assert f["type"] != "error", f
        if result == "draw":
            black.send_json({"type": "draw"})
            white.send_json({"type": "draw", "accept": True})
        else:
            (white if result == "1-0" else black).send_json({"type": "resign"})
        while not ((f := black.receive_json())["type"] == "event" and f["event"]["kind"] == "game_ended"):
            pass


def test_an_arena_pairs_the_free_plays_scores_streaks_stops_at_its_end_and_names_the_podium(
        app: tuple[Players, Wall]) -> None:
    players, wall = app
    t = create(players, kind="arena", minutes=10, name="Friday arena")
    assert (t["status"], t["name"], t["ends"] - t["starts"]) == ("upcoming", "Friday arena", 600)
    join(players, t["id"], "ann", "ben", "cat", "dan")
    tick(players)
    t = view(players, t["id"])
    assert t["status"] == "running"
    first = playing(t)
    assert len(first) == 2 and {n for g in first for n in (g["black"], g["white"])} == {"ann", "ben", "cat", "dan"}
    room = players.as_(None).get(f"/api/rooms/{first[0]['room']}").json()  # a game names its tournament
    assert room["players"]["tournament"] == {"id": t["id"], "name": "Friday arena"}
    assert (room["players"]["black"]["name"], room["turn"]) == (first[0]["black"], "black")
    # every game won by Black: each Black is 2, each White 0, and they meet others next
    for game in first:
        finish(players, game, "1-0")
    tick(players)
    t = view(players, t["id"])
    scores = {s["name"]: s["score"] for s in t["standings"]}
    winners = {g["black"] for g in first}
    assert all(scores[n] == (2 if n in winners else 0) for n in scores)
    second = playing(t)
    assert len(second) == 2
    last = {g["black"]: g["white"] for g in first} | {g["white"]: g["black"] for g in first}
    for game in second:
        assert last[game["black"]] != game["white"]  # never the last opponent
        assert {game["black"], game["white"]} <= winners or {game["black"], game["white"]}.isdisjoint(winners)
    # the two winners meet (nearest score); the winner of that is on a streak after a third... play on
    top = next(g for g in second if g["black"] in winners)
    finish(players, top, "1-0")
    tick(players)
    leader = top["black"]
    t = view(players, t["id"])
    mine = next(s for s in t["standings"] if s["name"] == leader)
    assert (mine["score"], mine["streak"], mine["fire"], mine["sheet"]) == (4, 2, True, [2, 2])
    assert t["standings"][0]["name"] == leader and t["standings"][0]["rank"] == 1
    # the end time passes: the games under way go on, nobody is paired, then the arena finishes
    wall.t += 11 * 60
    tick(players)
    t = view(players, t["id"])
    assert t["status"] == "finishing"
    for game in playing(t):
        finish(players, game, "draw")
    tick(players)
    t = view(players, t["id"])
    assert t["status"] == "finished" and playing(t) == []
    assert t["winner"] == leader and t["podium"][0] == leader and len(t["podium"]) == 3
    ranked = [s["score"] for s in t["standings"]]
    assert ranked == sorted(ranked, reverse=True)
    # the points each game gave add up to each player's score
    for s in t["standings"]:
        gained = sum((g["black_points"] if g["black"] == s["name"] else g["white_points"]) or 0
                     for g in t["games"] if s["name"] in (g["black"], g["white"]))
        assert gained == s["score"] == sum(s["sheet"])


def test_a_rated_tournaments_games_change_ratings_and_a_casual_ones_do_not(app: tuple[Players, Wall]) -> None:
    players, _wall = app
    before = {n: players.as_(None).get(f"/api/players/{n}").json()["ratings"] for n in ("eve", "ben")}
    for rated in (False, True):
        t = create(players, kind="arena", minutes=5, rated=rated)
        join(players, t["id"], "eve", "ben")
        tick(players)
        (game,) = playing(view(players, t["id"]))
        finish(players, game, "1-0")
        tick(players)
        pool = t["pool"]
        ratings = {n: players.as_(None).get(f"/api/players/{n}").json()["ratings"].get(pool) for n in ("eve", "ben")}
        if not rated:
            assert ratings == {n: before[n].get(pool) for n in ratings}  # nothing rated
        else:
            winner, loser = ratings[game["black"]], ratings[game["white"]]
            assert winner["rating"] > DEFAULT.rating > loser["rating"]  # their first rated game in the pool
            assert (winner["wins"], loser["losses"]) == (1, 1)
        players.as_("eve").post(f"/api/tournaments/{t['id']}/leave")
        players.as_("ben").post(f"/api/tournaments/{t['id']}/leave")


def test_a_swiss_pairs_each_round_by_the_dutch_engine_once_the_last_ends_with_one_bye_each_and_no_rematch(
        app: tuple[Players, Wall]) -> None:
    players, wall = app
    t = create(players, kind="swiss", rounds=3, starts=wall.t + 60)
    join(players, t["id"], *NAMES)
    tick(players)
    assert view(players, t["id"])["status"] == "upcoming"  # not yet its time
    wall.t += 61
    results = ["1-0", "0-1", "draw"]
    met: set[frozenset[str]] = set()
    for number in (1, 2, 3):
        tick(players)
        t = view(players, t["id"])
        assert t["round"] == number
        games = [g for g in t["games"] if g["round"] == number]
        byes = [g for g in games if g["result"] == "bye"]
        assert len(byes) == 1 and len(games) == 3
        for index, game in enumerate(playing(t)):
            pair = frozenset({game["black"], game["white"]})
            assert pair not in met
            met.add(pair)
            finish(players, game, results[(number + index) % 3])
            if index == 0:
                tick(players)  # a game of the round still goes on: no next round yet
                assert view(players, t["id"])["round"] == number
    tick(players)
    t = view(players, t["id"])
    assert t["status"] == "finished"
    byes = [g["black"] for g in t["games"] if g["result"] == "bye"]
    assert len(byes) == len(set(byes)) == 3  # nobody twice
    assert sum(s["score"] for s in t["standings"]) == 3 * 2 + 3  # two games a round give 1 each, a bye 1
    for s in t["standings"]:
        assert s["sheet"].count("+") == s["byes"] and len(s["sheet"]) == 3
    assert t["winner"] == t["standings"][0]["name"] and t["podium"] == [s["name"] for s in t["standings"][:3]]


def test_a_swiss_takes_nobody_after_its_start_and_one_without_two_players_is_cancelled(
        app: tuple[Players, Wall]) -> None:
    players, _wall = app
    lonely = create(players, kind="swiss", rounds=2.0)  # JSON's 2.0 is the integer 2
    assert lonely["rounds"] == 2
    join(players, lonely["id"], "ann")
    tick(players)
    assert view(players, lonely["id"])["status"] == "cancelled"
    t = create(players, kind="swiss", rounds=1)
    join(players, t["id"], "ann", "ben")
    tick(players)
    late = players.as_("cat").post(f"/api/tournaments/{t['id']}/join")
    assert (late.status_code, late.json()["code"]) == (409, "tournament_started")
    (game,) = playing(view(players, t["id"]))
    finish(players, game, "0-1")
    tick(players)
    over = players.as_("cat").post(f"/api/tournaments/{t['id']}/join")
    assert (over.status_code, over.json()["code"]) == (409, "tournament_over")
    assert view(players, t["id"])["winner"] == game["white"]
    short = create(players, kind="swiss", rounds=3)  # two players meet once: the swiss ends after round 1
    join(players, short["id"], "dan", "eve")
    tick(players)
    (first,) = playing(view(players, short["id"]))
    finish(players, first, "draw")
    tick(players)
    short = view(players, short["id"])
    assert (short["status"], short["round"], len(short["games"])) == ("finished", 1, 1)
    listed = {x["id"]: x for x in players.as_(None).get("/api/tournaments").json()["tournaments"]}
    assert (listed[t["id"]]["status"], listed[t["id"]]["winner"], listed[t["id"]]["players"]) == (
        "finished", game["white"], 2)
    assert (listed[lonely["id"]]["status"], listed[lonely["id"]]["winner"]) == ("cancelled", None)


def test_a_paused_arena_player_is_paired_no_more_until_they_come_back(app: tuple[Players, Wall]) -> None:
    players, _wall = app
    t = create(players, kind="arena", minutes=5)
    join(players, t["id"], "cat", "dan", "eve")
    players.as_("eve").post(f"/api/tournaments/{t['id']}/leave")
    tick(players)
    t = view(players, t["id"])
    (game,) = playing(t)
    assert "eve" not in (game["black"], game["white"])
    assert next(s for s in t["standings"] if s["name"] == "eve")["active"] is False
    finish(players, game, "1-0")
    join(players, t["id"], "eve")
    tick(players)
    (again,) = playing(view(players, t["id"]))
    assert "eve" in (again["black"], again["white"])
    finish(players, again, "draw")
    players.as_("eve").post(f"/api/tournaments/{t['id']}/leave")


@pytest.mark.parametrize(("body", "code"), [
    ({"kind": "arena"}, "bad_tournament"),  # an arena without its length
    ({"kind": "swiss", "rounds": 3, "starts": 1.0}, "bad_tournament"),  # a start long past
    ({"kind": "arena", "minutes": 5, "options": {"size": 7}}, "bad_tournament"),
    ({"kind": "arena", "minutes": 5, "clock": {"days": 3}}, "bad_request"),
    ({"kind": "knockout", "minutes": 5}, "bad_request"),
    ({"kind": "swiss", "rounds": 2.5}, "bad_request"),
    ({"kind": "swiss", "rounds": "3"}, "bad_request"),
])
def test_a_bad_tournament_is_refused_naming_what_is_wrong(app: tuple[Players, Wall], body: dict[str, Any],
                                                          code: str) -> None:
    players, _wall = app
    answer = players.as_("ann").post("/api/tournaments", json={"game": "tictactoe", "clock": CLOCK, **body})
    assert answer.status_code in (400, 422) and answer.json()["code"] == code, answer.text


def test_the_tournament_socket_sends_the_tournament_then_each_pairing_and_end_live(app: tuple[Players, Wall]) -> None:
    players, _wall = app
    t = create(players, kind="arena", minutes=5)
    with players.client.websocket_connect(f"/api/tournaments/{t['id']}/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "tournament" and first["tournament"]["id"] == t["id"]
        join(players, t["id"], "ann", "ben")
        join(players, t["id"], "ann")  # joined already: no change, nothing announced
        for name in ("ann", "ben"):
            joined, snapshot = ws.receive_json(), ws.receive_json()
            assert (joined["event"], joined["name"], snapshot["type"]) == ("joined", name, "tournament")
        tick(players)
        frames = []
        while not frames or frames[-1]["type"] != "tournament":
            frames.append(ws.receive_json())
        started = [f for f in frames if f.get("event") == "game_started"]
        assert len(started) == 1
        room = started[0]["game"]["room"]
        assert [s["playing"] for s in frames[-1]["tournament"]["standings"]] == [room, room]
        finish(players, started[0]["game"], "0-1")
        tick(players)
        frames = []
        while not frames or frames[-1]["type"] != "tournament":
            frames.append(ws.receive_json())
        ended = [f for f in frames if f.get("event") == "game_ended"]
        assert ended and ended[0]["game"]["result"] == "0-1"
        assert frames[-1]["tournament"]["version"] > first["tournament"]["version"]
    for name in ("ann", "ben"):
        players.as_(name).post(f"/api/tournaments/{t['id']}/leave")


def test_an_unknown_tournament_is_404_everywhere(app: tuple[Players, Wall]) -> None:
    players, wall = app
    assert players.as_(None).get("/api/tournaments/nope").json()["code"] == "unknown_tournament"
    assert players.as_("ann").post("/api/tournaments/nope/join").status_code == 404
    assert players.as_("ann").post("/api/tournaments/nope/leave").status_code == 404
    with players.client.websocket_connect("/api/tournaments/nope/ws") as ws:
        assert ws.receive_json()["code"] == "unknown_tournament"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404
    made = create(players, kind="swiss", rounds=2, starts=wall.t + 3600)
    listed = players.as_(None).get("/api/tournaments").json()["tournaments"]
    assert made["id"] in [t["id"] for t in listed] and all("standings" not in t for t in listed)


def test_leaving_a_tournament_one_never_joined_is_a_conflict_and_the_tournament_stays(
        app: tuple[Players, Wall]) -> None:
    players, wall = app
    made = create(players, kind="swiss", rounds=2, starts=wall.t + 3600)
    answer = players.as_("ben").post(f"/api/tournaments/{made['id']}/leave")
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "not_joined"
    assert view(players, made["id"])["id"] == made["id"]


def test_a_bot_joins_with_its_token_and_its_stream_starts_each_tournament_game(app: tuple[Players, Wall]) -> None:
    """The bot's event stream (read in the server's loop, as test_bots.py reads it) gets
    ``game_started`` with a seat token for a tournament's pairing, as for a challenge: ``tabletop
    bot`` plays it unchanged."""
    players, _wall = app
    client = players.client
    players.sign_up("tourbot")
    token = players.as_("tourbot").post("/api/account/bot").json()["token"]
    t = create(players, kind="arena", minutes=5)
    players.as_(None)
    joined = client.post(f"/api/tournaments/{t['id']}/join", headers={"authorization": f"Bearer {token}"})
    assert joined.status_code == 200, joined.text
    assert [s["bot"] for s in joined.json()["standings"]] == [True]
    refused = client.post("/api/tournaments", headers={"authorization": f"Bearer {token}"},
                          json={"kind": "arena", "minutes": 5, "game": "tictactoe", "clock": CLOCK})
    assert (refused.status_code, refused.json()["code"]) == (403, "bot_account")
    app_ = client.app
    me = client.portal.call(app_.state.accounts.find, "tourbot")  # type: ignore[attr-defined]
    lines = EventStream(app_.state.hub, Challenges(app_.state.hub), me, LOBBY_CHANNEL).lines()  # type: ignore[attr-defined]

    def next_line(kind: str) -> dict[str, Any]:
        for _ in range(20):
            text = client.portal.call(asyncio.wait_for, lines.__anext__(), 10)
            line = json.loads(text) if text.strip() else {}
            if line.get("type") == kind:
                return dict(line)
        raise AssertionError(f"no {kind} line")

    waiting = client.portal.start_task_soon(lines.__anext__)  # the stream subscribes, then waits
    time.sleep(0.3)
    join(players, t["id"], "ann")
    tick(players)
    first = json.loads(waiting.result(10))
    started = first if first.get("type") == "game_started" else next_line("game_started")
    (game,) = playing(view(players, t["id"]))
    assert started["room"] == game["room"] and started["color"] == ("black" if game["black"] == "tourbot" else "white")
    ann = players.as_("ann").post(f"/api/rooms/{game['room']}/seat").json()
    tokens = {started["color"]: started["token"], ann["seat"]: ann["token"]}  # the line's token opens the bot's seat
    with client.websocket_connect(f"/api/rooms/{game['room']}/ws") as black, \
            client.websocket_connect(f"/api/rooms/{game['room']}/ws") as white:
        for color, ws in (("black", black), ("white", white)):
            ws.send_json({"type": "hello", "token": tokens[color]})
            assert ws.receive_json()["you"] == [color]
        for seq, (ws, move) in enumerate(((black, "b2"), (white, "a1")), 1):
            ws.send_json({"type": "move", "move": move, "seq": seq})
            while (f := ws.receive_json())["type"] != "ack":
                assert f["type"] != "error", f
        (black if started["color"] == "black" else white).send_json({"type": "resign"})
        # the socket's event comes once the end is committed (the stream reads the room as it is in
        # memory, and may tell of the end a moment before)
        while not ((f := black.receive_json())["type"] == "event" and f["event"]["kind"] == "game_ended"):
            pass
        assert next_line("game_ended")["room"] == game["room"]
    client.portal.call(lines.aclose)
    tick(players)
    assert next(s for s in view(players, t["id"])["standings"] if s["name"] == "ann")["score"] == 2
    players.as_("ann").post(f"/api/tournaments/{t['id']}/leave")


def test_a_game_whose_player_never_moves_is_called_off_and_the_no_show_paused(app: tuple[Players, Wall]) -> None:
    players, wall = app
    tournaments = players.client.app.state.tournaments  # type: ignore[attr-defined]
    t = create(players, kind="arena", minutes=30)
    join(players, t["id"], "cat", "dan")
    tick(players)
    (game,) = playing(view(players, t["id"]))
    seat = players.as_(game["black"]).post(f"/api/rooms/{game['room']}/seat").json()
    with players.client.websocket_connect(f"/api/rooms/{game['room']}/ws") as ws:  # Black moves; White never comes
        ws.send_json({"type": "hello", "token": seat["token"]})
        ws.receive_json()
        ws.send_json({"type": "move", "move": "b2", "seq": 1})
        while ws.receive_json()["type"] != "ack":
            pass
    tournaments.first_move = 30.0
    try:
        wall.t += 20
        tick(players)
        assert playing(view(players, t["id"])) == [game]  # 20 s: White still has time
        wall.t += 11
        tick(players)
    finally:
        tournaments.first_move = 1e9
    t = view(players, t["id"])
    assert playing(t) == [] and t["games"][0]["result"] == "aborted"
    standing = {s["name"]: s for s in t["standings"]}
    assert standing[game["white"]]["active"] is False and standing[game["black"]]["active"] is True
    assert standing[game["black"]]["score"] == standing[game["white"]]["score"] == 0
    assert players.as_(None).get(f"/api/rooms/{game['room']}").json()["outcome"]["reason"] == "aborted"
    players.as_(game["black"]).post(f"/api/tournaments/{t['id']}/leave")


def test_tabletop_serve_names_a_first_move_wait_out_of_range_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.cli import main

    assert main(["serve", "--tournament-first-move", "0"]) == 2
    assert "error: --tournament-first-move 0 is not a number of seconds" in capsys.readouterr().err


def test_a_tournament_with_nothing_to_do_is_not_ticked(app: tuple[Players, Wall]) -> None:
    """A tick writes (and on SQLite syncs to disk) only for a tournament with work due."""
    players, wall = app
    tournaments = players.client.app.state.tournaments  # type: ignore[attr-defined]

    def due() -> list[str]:
        found: list[str] = players.client.portal.call(tournaments._read, _due, wall.t)
        return found

    t = create(players, kind="arena", minutes=30)
    join(players, t["id"], "ann", "ben", "cat")
    assert t["id"] in due()  # to start
    tick(players)
    assert t["id"] not in due()  # two play, the third waits alone
    (game,) = playing(view(players, t["id"]))
    finish(players, game, "draw")
    assert t["id"] in due()  # an end to announce, and two free players who did not just meet
    tick(players)
    assert t["id"] not in due()
    for name in ("ann", "ben", "cat"):
        players.as_(name).post(f"/api/tournaments/{t['id']}/leave")


def test_the_creator_ends_a_tournament_early_and_it_finishes_with_its_last_game(app: tuple[Players, Wall]) -> None:
    players, wall = app
    t = create(players, who="ben", kind="arena", minutes=60)
    join(players, t["id"], "ben", "cat", "dan")
    tick(players)
    (game,) = playing(view(players, t["id"]))
    refused = players.as_("cat").post(f"/api/tournaments/{t['id']}/finish")
    assert (refused.status_code, refused.json()["code"]) == (403, "not_creator")
    wall.t += 5
    ended = players.as_("ben").post(f"/api/tournaments/{t['id']}/finish")
    assert ended.status_code == 200, ended.text
    assert (ended.json()["status"], ended.json()["ends"]) == ("finishing", wall.t)
    finish(players, game, "1-0")
    tick(players)  # the freed players are not paired again: the arena finishes
    t = view(players, t["id"])
    assert (t["status"], len(t["games"]), t["winner"]) == ("finished", 1, game["black"])
    again = players.as_("ben").post(f"/api/tournaments/{t['id']}/finish")
    assert (again.status_code, again.json()["code"]) == (409, "tournament_over")
    later = create(players, who="ben", kind="swiss", rounds=3, starts=wall.t + 600)
    assert players.as_("ben").post(f"/api/tournaments/{later['id']}/finish").json()["status"] == "cancelled"
