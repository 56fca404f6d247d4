"""Bot accounts, challenges and the bot's event stream (server/bots.py, routers/bots.py, cli/bot.py).

The account rules and the stream's lines through the app (TestClient); then, end to end with real
processes, a ``tabletop serve`` and our own engines connected by ``tabletop bot`` (``tabletop engine
nboard`` and ``tabletop engine gomocup`` behind them) play rated games against a person over the API
and the room sockets: Reversi across a restart of the server (20 plies, then the person resigns, to
keep the test short), Gomoku to its five; the ratings and records agree with the games played."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from tabletop.ratings import DEFAULT, rate_game
from tabletop.server.app import create_app
from tabletop.server.bots import Challenges, EventStream
from tabletop.server.lobby import LOBBY_CHANNEL
from tabletop.server.settings import Settings
from tabletop.server.store import players_table, ratings_table
from test_lobby import PASSWORD, Players
from test_web import _free_port, _wait_until_serving

ROOT = Path(__file__).resolve().parent.parent
TABLETOP = str(Path(sys.executable).with_name("tabletop"))
CLOCK = {"initial": 300, "increment": 0}


# -- the account rules, through the app --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Players]:
    database = tmp_path_factory.mktemp("bots") / "b.db"
    with TestClient(create_app(Settings(database=f"sqlite:///{database}", workers=1))) as client:
        p = Players(client)
        for name in ("ann", "robo", "busy"):
            p.sign_up(name)
        yield p


def test_a_fresh_account_becomes_a_bot_once_and_its_token_signs_it_in(players: Players) -> None:
    answer = players.as_("robo").post("/api/account/bot")
    assert answer.status_code == 200, answer.text
    token = answer.json()["token"]
    assert answer.json()["bot"] is True
    assert players.as_("robo").post("/api/account/bot").json()["code"] == "already_bot"
    me = players.as_(None).get("/api/session", headers={"authorization": f"Bearer {token}"}).json()
    assert me == {"name": "robo", "bot": True}
    assert players.as_("ann").get("/api/session").json() == {"name": "ann", "bot": False}
    assert players.as_(None).get("/api/session", headers={"authorization": "Bearer nonsense"}).json()["name"] is None


def test_an_account_with_a_game_waiting_or_played_does_not_become_a_bot(players: Players) -> None:
    seek = players.as_("busy").post("/api/seeks", json={"game": "tictactoe", "clock": CLOCK}).json()
    refused = players.as_("busy").post("/api/account/bot")
    assert refused.status_code == 409 and refused.json()["code"] == "not_fresh"
    players.as_("busy").delete(f"/api/seeks/{seek['id']}")


def test_a_bot_never_seeks_nor_plays_now_nor_takes_a_seek_of_play_now(players: Players) -> None:
    if players.as_("robo").get("/api/session").json()["bot"] is False:
        players.as_("robo").post("/api/account/bot")
    bot = players.as_("robo")
    assert bot.post("/api/seeks", json={"game": "tictactoe", "clock": CLOCK}).json()["code"] == "bot_account"
    assert bot.post("/api/play-now", json={"game": "tictactoe", "clock": CLOCK}).json()["code"] == "bot_account"
    waiting = players.as_("ann").post("/api/play-now", json={"game": "tictactoe", "clock": CLOCK}).json()
    taken = players.as_("robo").post(f"/api/seeks/{waiting['seek']['id']}/accept")
    assert taken.status_code == 403 and taken.json()["code"] == "bot_account"
    players.as_("ann").delete(f"/api/seeks/{waiting['seek']['id']}")
    # a seek a person posted, the bot may take: the game's players are marked
    seek = players.as_("ann").post("/api/seeks", json={"game": "tictactoe", "clock": CLOCK, "color": "black"}).json()
    assert seek["bot"] is False
    accepted = players.as_("robo").post(f"/api/seeks/{seek['id']}/accept").json()
    state = players.as_(None).get(f"/api/rooms/{accepted['room']}").json()
    assert state["players"]["white"]["bot"] is True and state["players"]["black"]["bot"] is False
    live = [g for g in players.as_(None).get("/api/live").json()["games"] if g["room"] == accepted["room"]]
    assert live and live[0]["white"]["bot"] is True and live[0]["black"]["bot"] is False
    page = players.as_(None).get("/api/players/robo").json()
    assert page["bot"] is True and page["games"][0]["white_bot"] is True and page["games"][0]["black_bot"] is False


def test_a_bot_on_a_leaderboard_is_marked(players: Players) -> None:
    """Ten rated games are written as the results would have written them, for the board to list it."""
    store = players.client.app.state.hub.store
    with store.engine.begin() as conn:
        robo = conn.execute(sa.select(players_table.c.id).where(players_table.c.name == "robo")).scalar_one()
        conn.execute(ratings_table.insert().values(player_id=robo, pool="gomoku-renju-classical", rating=1600.0,
                                                   deviation=80.0, volatility=0.06, games=10, wins=7, draws=0,
                                                   losses=3))
    board = players.as_(None).get("/api/leaderboard/gomoku-renju-classical").json()["players"]
    assert [(p["name"], p["bot"]) for p in board] == [("robo", True)]


def test_a_challenge_is_answered_once_by_the_challenged_player_only(players: Players) -> None:
    made = players.as_("ann").post("/api/challenges", json={"to": "ROBO", "game": "reversi", "clock": CLOCK,
                                                             "rated": True, "color": "white"})
    assert made.status_code == 201, made.text
    challenge = made.json()
    assert challenge["challenged"] == {"name": "robo", "bot": True} and challenge["pool"] == "reversi-8-blitz"
    assert players.as_("ann").post(f"/api/challenges/{challenge['id']}/accept").status_code == 404
    accepted = players.as_("robo").post(f"/api/challenges/{challenge['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["seat"] == "black"
    again = players.as_("robo").post(f"/api/challenges/{challenge['id']}/decline")
    assert again.status_code == 409 and again.json()["code"] == "challenge_closed"
    seen = players.as_("ann").get(f"/api/challenges/{challenge['id']}").json()
    assert seen["status"] == "accepted" and seen["room"] == accepted.json()["room"]
    assert players.as_("ann").post("/api/challenges", json={"to": "nobody", "game": "reversi"}).status_code == 404
    assert players.as_("busy").get(f"/api/challenges/{challenge['id']}").status_code == 404
    assert players.as_("ann").get("/api/bot/stream").json()["code"] == "not_a_bot"


# -- end to end: a real server, our engines through `tabletop bot`, a person over the API -----------------------------
class Server:
    """``tabletop serve`` on a port and a database that outlive a restart."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = folder / "e2e.db"
        self.log = folder / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [TABLETOP, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--database", f"sqlite:///{self.database}", "--workers", "1", "--cold-workers"],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        _wait_until_serving(self.url + "/", self.process, self.log)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)


class Person:
    """A signed-in person playing over HTTP and a room socket: always the first legal move."""

    def __init__(self, server: Server, name: str) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=30)
        answer = self.http.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text

    def challenge(self, to: str, game: str, **options: Any) -> str:
        """Challenge ``to`` to a rated game; the room once the bot accepted."""
        made = self.http.post("/api/challenges", json={"to": to, "game": game, "options": options,
                                                       "clock": CLOCK, "rated": True, "color": "black"})
        assert made.status_code == 201, made.text
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            seen = self.http.get(f"/api/challenges/{made.json()['id']}").json()
            if seen["status"] == "accepted":
                return str(seen["room"])
            assert seen["status"] == "open", seen
            time.sleep(0.1)
        logs = {log.name: log.read_text(errors="replace")[-2000:] for log in self.server.database.parent.glob("*.log")}
        raise AssertionError(f"{to} did not accept the challenge; the logs: {logs}")

    def play(self, room: str, until_ply: int | None = None, seconds: float = 120) -> dict[str, Any]:
        """Play the person's seat of ``room`` until the game ends (or ``until_ply`` moves); the state."""
        seat = self.http.post(f"/api/rooms/{room}/seat")
        assert seat.status_code == 200, seat.text
        token = seat.json()["token"]
        deadline = time.monotonic() + seconds
        with connect(f"ws://127.0.0.1:{self.server.port}/api/rooms/{room}/ws") as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            color = json.loads(ws.recv(timeout=10))["you"][0]
            while time.monotonic() < deadline:
                state = self.http.get(f"/api/rooms/{room}").json()
                if state["outcome"] is not None or (until_ply is not None and len(state["moves"]) >= until_ply):
                    return dict(state)
                if state["turn"] == color and state["legal"]:
                    seq = len(state["moves"]) + 1
                    ws.send(json.dumps({"type": "move", "move": state["legal"][0], "seq": seq}))
                    while (f := json.loads(ws.recv(timeout=30)))["type"] not in ("ack", "error"):
                        pass
                    assert f["type"] == "ack", f
                else:
                    time.sleep(0.05)
        raise AssertionError(f"the game in {room} did not end in {seconds} s")

    def resign(self, room: str) -> dict[str, Any]:
        """Resign the person's game in ``room``; the state at its end."""
        token = self.http.post(f"/api/rooms/{room}/seat").json()["token"]
        with connect(f"ws://127.0.0.1:{self.server.port}/api/rooms/{room}/ws") as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            ws.send(json.dumps({"type": "resign"}))
            while (f := json.loads(ws.recv(timeout=30)))["type"] != "event" or f["event"]["kind"] != "game_ended":
                assert f["type"] != "error", f
        return dict(self.http.get(f"/api/rooms/{room}").json())


def start_bot(server: Server, name: str, engine: str, folder: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """Sign up ``name``, make it a bot, and connect ``engine`` to it with ``tabletop bot``."""
    http = httpx.Client(base_url=server.url, timeout=30)
    assert http.post("/api/accounts", json={"name": name, "password": PASSWORD}).status_code == 201
    token = http.post("/api/account/bot").json()["token"]
    log = folder / f"{name}.log"
    with log.open("wb") as out:  # --token=: a token may begin with "-", which argparse takes for an option
        process = subprocess.Popen([TABLETOP, "bot", "--server", server.url, f"--token={token}", "--engine", engine,
                                    "--seconds", "0.2"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    return process, log


@pytest.mark.timeout(300)
def test_our_engines_play_as_bots_against_a_person_through_a_restart_and_the_ratings_agree(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    bots: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        ann = Person(server, "ann")
        bots.append(start_bot(server, "edaxish", f"nboard:{TABLETOP} engine nboard --level 1", tmp_path))
        bots.append(start_bot(server, "rapfish", f"gomocup:{TABLETOP} engine gomocup --level 1", tmp_path))

        # Reversi against the NBoard engine, with the server restarted in the middle of the game
        reversi = ann.challenge("edaxish", "reversi")
        ann.play(reversi, until_ply=10)
        server.stop()
        server.start()  # the bot's stream and socket drop; it reconnects and goes on with its game
        # the bot's moves after the restart come from its reconnected stream and socket; then ann resigns
        assert len(ann.play(reversi, until_ply=20)["moves"]) >= 20
        reversi_end = ann.resign(reversi)
        assert reversi_end["outcome"]["reason"] == "resign" and reversi_end["outcome"]["winner"] == "white"

        # Gomoku against the Gomocup engine
        gomoku = ann.challenge("rapfish", "gomoku")
        gomoku_end = ann.play(gomoku)
        assert gomoku_end["outcome"]["reason"] == "line" and len(gomoku_end["moves"]) >= 9

        http = ann.http
        for room, end, bot, pool in ((reversi, reversi_end, "edaxish", "reversi-8-blitz"),
                                     (gomoku, gomoku_end, "rapfish", "gomoku-freestyle-blitz")):
            assert end["players"]["white"]["bot"] is True and end["players"]["black"]["bot"] is False
            winner = end["outcome"]["winner"]
            ann_score = {"black": 1.0, "white": 0.0, None: 0.5}[winner]
            new_ann, new_bot = rate_game(DEFAULT, DEFAULT, ann_score)
            mine = http.get("/api/players/ann").json()["ratings"][pool]
            theirs = http.get(f"/api/players/{bot}").json()
            assert theirs["bot"] is True
            assert (mine["games"], theirs["ratings"][pool]["games"]) == (1, 1)
            assert mine["rating"] == round(new_ann.rating, 1)
            assert theirs["ratings"][pool]["rating"] == round(new_bot.rating, 1)
            assert (mine["wins"], mine["draws"], mine["losses"]) == (
                ann_score == 1, ann_score == 0.5, ann_score == 0)
            assert theirs["games"][0]["result"] == {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[ann_score]
            record = http.get(f"/api/rooms/{room}/record", params={"format": "transcript"}).text
            # a transcript: the moves without passes (Reversi's run together, Gomoku's spaced)
            assert "".join(record.split()) == "".join(m for m in end["moves"] if m != "pass")
        assert all(process.poll() is None for process, _ in bots), "a bot stopped"
        logs = {log.name: log.read_text() for _, log in bots}
        assert "reconnecting" in logs["edaxish.log"], logs["edaxish.log"]
    finally:
        for process, _ in bots:
            process.terminate()
        for process, _ in bots:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        server.stop()


def test_the_event_stream_tells_a_bot_of_its_challenge_the_game_each_move_and_the_end(players: Players) -> None:
    """The stream's lines, read in the server's own loop (the app's TestClient portal)."""
    client = players.client
    players.sign_up("streamer")
    token = players.as_("streamer").post("/api/account/bot").json()["token"]
    bearer = {"authorization": f"Bearer {token}"}
    app = client.app
    me = client.portal.call(app.state.accounts.find, "streamer")
    challenges = Challenges(app.state.hub)
    lines = EventStream(app.state.hub, challenges, me, LOBBY_CHANNEL).lines()

    def next_line(kind: str) -> dict[str, Any]:
        """The next line of ``kind`` (keep-alives and other kinds skipped)."""
        for _ in range(20):
            text = client.portal.call(asyncio.wait_for, lines.__anext__(), 10)
            line = json.loads(text) if text.strip() else {}
            if line.get("type") == kind:
                return dict(line)
        raise AssertionError(f"no {kind} line")

    made = players.as_("ann").post("/api/challenges", json={"to": "streamer", "game": "tictactoe",
                                                             "color": "black"}).json()
    assert next_line("challenge")["challenge"]["id"] == made["id"]
    accepted = client.post(f"/api/challenges/{made['id']}/accept", headers=bearer)
    assert accepted.status_code == 200, accepted.text
    started = next_line("game_started")
    room = accepted.json()["room"]
    assert started["room"] == room and started["color"] == "white" and started["state"]["moves"] == []
    ann = players.as_("ann").post(f"/api/rooms/{room}/seat").json()["token"]
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black, \
            client.websocket_connect(f"/api/rooms/{room}/ws") as white:
        for ws, seat_token in ((black, ann), (white, started["token"])):  # the stream's token opens the seat
            ws.send_json({"type": "hello", "token": seat_token})
            assert ws.receive_json()["you"] == (["black"] if ws is black else ["white"])
        black.send_json({"type": "move", "move": "b2", "seq": 1})
        assert next_line("game_state")["state"]["moves"] == ["b2"]
        white.send_json({"type": "move", "move": "a1", "seq": 2})
        assert next_line("game_state")["state"]["moves"] == ["b2", "a1"]
        black.send_json({"type": "resign"})
        ended = next_line("game_ended")
    assert ended["room"] == room and ended["outcome"]["winner"] == "white"
    client.portal.call(lines.aclose)


def test_tabletop_bot_names_a_bad_engine_or_server_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.cli import main

    assert main(["bot", "--server", "http://127.0.0.1:1", "--token", "t", "--engine", "uci:stockfish"]) == 2
    assert 'error: --engine must be nboard:"COMMAND" or gomocup:"COMMAND"' in capsys.readouterr().err
    assert main(["bot", "--server", "localhost:8000", "--token", "t", "--engine", "nboard:x"]) == 2
    assert "--server must start with http://" in capsys.readouterr().err


def test_tabletop_bot_takes_a_token_beginning_with_a_dash_or_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tabletop.cli.bot as bot_cli
    from tabletop.cli import main

    given: list[str] = []

    class Recorder:
        def __init__(self, server: str, token: str, *rest: object, **options: object) -> None:
            given.append(token)
            self.stopping = threading.Event()

        def run(self) -> int:
            return 0

    monkeypatch.setattr(bot_cli, "Bot", Recorder)
    monkeypatch.delenv(bot_cli.TOKEN_VARIABLE, raising=False)
    server = ["--server", "http://127.0.0.1:1"]
    engine = ["--engine", "gomocup:x"]
    assert main(["bot", *server, "--token", "-Xq_9", *engine]) == 0
    assert main(["bot", "--token", "--dash", *server, *engine]) == 0
    assert main(["bot", *server, *engine]) == 2
    assert "token is missing: give --token TOKEN or set TABLETOP_BOT_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv(bot_cli.TOKEN_VARIABLE, "-from-env")
    assert main(["bot", *server, *engine]) == 0
    assert given == ["-Xq_9", "--dash", "-from-env"]
    with pytest.raises(SystemExit):  # a missing value is still argparse's error, not the next option
        main(["bot", *server, "--token", "--engine", "gomocup:x"])


def test_a_move_refused_as_one_frame_too_many_is_sent_again_once_the_second_has_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server takes at most so many frames a second from a connection (``--frame-rate``) and answers
    a move beyond them with ``rate_limited``: two quick engines playing each other reach it.  The bot's
    game sends the move again, same number, after RATE_WAIT, rather than wait for a turn that never
    comes until its clock runs out."""
    from tabletop.cli import bot as tabletop_bot

    monkeypatch.setattr(tabletop_bot, "RATE_WAIT", 0.2)
    state = {"game": "tictactoe", "options": {}, "start_position": None, "moves": [], "turn": "black",
             "legal": ["a1", "b2"], "outcome": None}
    reads: list[float] = []

    class FakeBot:
        seconds = 1.0

        def get(self, path: str) -> dict[str, Any]:
            assert path == "/api/rooms/r1"
            reads.append(time.monotonic())
            return state

    class FakeEngine:
        def choose(self, board: Any, limit: Any) -> str:
            return "b2"

    class FakeSocket:
        def __init__(self) -> None:
            self.sent: list[tuple[float, dict[str, Any]]] = []
            self.inbox: list[dict[str, Any]] = []
            self.idle = 0

        def send(self, text: str) -> None:
            frame = json.loads(text)
            self.sent.append((time.monotonic(), frame))
            if frame["type"] != "move":
                return
            if len([f for _, f in self.sent if f["type"] == "move"]) == 1:
                self.inbox.append({"type": "error", "code": "rate_limited", "message": "at most 20 frames a second",
                                   "seq": frame["seq"]})
            else:
                self.inbox += [{"type": "ack", "seq": frame["seq"]},
                               {"type": "event", "event": {"kind": "game_ended", "outcome": {"winner": None}}}]

        def recv(self, timeout: float) -> str:
            if not self.inbox:
                self.idle += 1
                assert self.idle < 5, f"the bot sent nothing more; it sent {[f for _, f in self.sent]}"
                raise TimeoutError
            return json.dumps(self.inbox.pop(0))

    game = tabletop_bot.Game(FakeBot(), "r1", "black", "seat-token")  # type: ignore[arg-type]
    game.player = FakeEngine()
    ws = FakeSocket()
    game._serve(ws)
    moves = [(at, f) for at, f in ws.sent if f["type"] == "move"]
    assert [f for _, f in moves] == [{"type": "move", "move": "b2", "seq": 1}] * 2
    assert moves[1][0] - moves[0][0] >= 0.2
    assert len(reads) == 2 and game.done.is_set()  # the room read again before the move went again
