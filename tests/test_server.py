"""The game server against a real ``tabletop serve`` process: REST, websockets, bad input.

Each test talks HTTP (httpx) and websockets (``websockets``) to a server on a
free port with its own SQLite file.  Durability (kill -9 and restart) is in
``test_server_durability.py``; the store and bus interfaces in
``test_server_parts.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
Frame = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A ``tabletop serve`` process on a free port."""

    def __init__(self, database: Path | str, *extra: str, warm: bool = False) -> None:
        """``database``: a SQLite file, or a database URL (``postgresql://...``); ``warm``: the
        workers load the engines before the server answers (``tabletop serve``'s default; the
        tests that need no fast first move start cold, which costs less)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = database
        url = database if isinstance(database, str) else f"sqlite:///{database}"
        command = [
            str(Path(sys.executable).with_name("tabletop")),
            "serve",
            "--port",
            str(self.port),
            "--database",
            url,
            *extra,
            *(() if warm else ("--cold-workers",)),
        ]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # one client for the polls and the test: each httpx.get() builds a client and its TLS context
        # (some 45 ms of processor time), dozens of times while a server starts on a busy machine
        self.http = httpx.Client(base_url=self.url, timeout=10)
        self.leftovers = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"tabletop serve exited with {self.process.returncode}: {out[-2000:]}")
            try:
                if self.http.get("/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("the server did not start")

    def ws(self, room: str) -> Socket:
        # close_timeout: websockets 13's client (the lower bound) holds its closing handshake behind an
        # unread frame until this runs out (10 s by default); later versions close at once
        opening = connect(f"ws://127.0.0.1:{self.port}/api/rooms/{room}/ws", open_timeout=10, close_timeout=1)
        return Socket(opening.__enter__())  # closed by Socket.close

    def kill(self) -> None:
        children = psutil.Process(self.process.pid).children(recursive=True)
        self.process.kill()  # SIGKILL: no shutdown code runs
        self.process.wait()
        for child in children:  # its worker pool dies with it, as in a crash of the machine
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()

    def stop(self) -> None:
        children: list[psutil.Process] = []
        if self.process.poll() is None:
            with contextlib.suppress(psutil.NoSuchProcess):
                children = psutil.Process(self.process.pid).children(recursive=True)
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        _, alive = psutil.wait_procs(children, timeout=3)
        self.leftovers = len(alive)  # worker processes the server failed to end
        for child in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()


class Socket:
    """A websocket client that reads JSON frames and keeps those it skipped."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.seen: list[Frame] = []

    def send(self, frame: Frame | str) -> None:
        self.conn.send(frame if isinstance(frame, str) else json.dumps(frame))

    def recv(self, timeout: float = 10.0) -> Frame:
        data = json.loads(self.conn.recv(timeout=timeout))
        self.seen.append(data)
        assert isinstance(data, dict)
        return data

    def until(self, test: Callable[[Frame], bool], timeout: float = 60.0) -> Frame:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no such frame; saw {self.seen[-8:]}")
            frame = self.recv(left)
            if test(frame):
                return frame

    def ack(self, seq: int) -> Frame:
        return self.until(lambda f: f.get("type") == "ack" and f.get("seq") == seq)

    def error(self, code: str) -> Frame:
        return self.until(lambda f: f.get("type") == "error" and f.get("code") == code)

    def event(self, kind: str) -> Frame:
        return self.until(lambda f: f.get("type") == "event" and f["event"].get("kind") == kind)

    def hello(self, *tokens: str, since: int | None = None) -> Frame:
        frame: Frame = {"type": "hello"}
        if len(tokens) == 1:
            frame["token"] = tokens[0]
        elif tokens:
            frame["tokens"] = list(tokens)
        if since is not None:
            frame["since"] = since
        self.send(frame)
        if since is not None:
            return {}
        return self.until(lambda f: f.get("type") == "state")

    def close(self) -> None:
        self.conn.close()


def started_pair(start: Callable[[], Server]) -> tuple[Server, Server]:
    """Two servers from ``start``: the first is stopped when the second does not start, which would
    otherwise outlive its test and take processor time from the rest of the run."""
    one = start()
    try:
        return one, start()
    except BaseException:
        one.stop()
        raise


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("server") / "rooms.db")
    try:
        yield s
    finally:
        s.stop()


def online_room(server: Server, **body: Any) -> tuple[str, str, str]:
    """An online Tic-tac-toe room joined by a second player: (room, black token, white token)."""
    created = server.http.post("/api/rooms", json={"game": "tictactoe", **body})
    assert created.status_code == 201, created.text
    data = created.json()
    secret = data["invite"].split("invite=")[1]
    joined = server.http.post(f"/api/rooms/{data['room']}/join", json={"invite": secret})
    assert joined.status_code == 200, joined.text
    return data["room"], data["tokens"]["black"], joined.json()["token"]


def state(server: Server, room: str) -> Frame:
    reply = server.http.get(f"/api/rooms/{room}")
    assert reply.status_code == 200
    data: Frame = reply.json()
    return data


# -- rooms over REST -------------------------------------------------------------------------------


def test_creating_a_room_gives_a_long_secret_token_and_an_invite_link(server: Server) -> None:
    reply = server.http.post("/api/rooms", json={"game": "reversi", "options": {"size": 8}, "as": "white"})
    assert reply.status_code == 201
    data = reply.json()
    token = data["tokens"]["white"]
    assert set(data["tokens"]) == {"white"}
    assert len(token) >= 22  # url-safe base64: 22 characters carry 128 bits
    assert data["invite"].startswith(f"{server.url}/play/{data['room']}?invite=")
    room = state(server, data["room"])
    assert room["game"] == "reversi" and room["turn"] == "black" and room["moves"] == []
    assert token not in json.dumps(room) and data["invite"].split("=")[1] not in json.dumps(room)
    assert room["seats"]["white"]["taken"] and not room["seats"]["black"]["taken"]


def test_local_room_gives_the_creator_every_human_seat(server: Server) -> None:
    data = server.http.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    assert set(data["tokens"]) == {"black", "white"} and data["invite"] is None


def test_joining_needs_the_invite_and_a_free_seat(server: Server) -> None:
    data = server.http.post("/api/rooms", json={"game": "tictactoe"}).json()
    room, secret = data["room"], data["invite"].split("invite=")[1]
    wrong = server.http.post(f"/api/rooms/{room}/join", json={"invite": "not-the-secret"})
    assert wrong.status_code == 403 and wrong.json()["code"] == "bad_invite"
    missing = server.http.post(f"/api/rooms/{room}/join", json={})
    assert missing.status_code == 403
    unknown = server.http.post("/api/rooms/nosuchroom/join", json={"invite": secret})
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_room"
    ok = server.http.post(f"/api/rooms/{room}/join", json={"invite": secret})
    assert ok.status_code == 200 and ok.json()["seat"] == "white"
    again = server.http.post(f"/api/rooms/{room}/join", json={"invite": secret})
    assert again.status_code == 409 and again.json()["code"] == "seat_taken"


def test_the_lobby_lists_listed_rooms_until_someone_joins(server: Server) -> None:
    listed = server.http.post("/api/rooms", json={"game": "gomoku", "listed": True}).json()["room"]
    hidden = server.http.post("/api/rooms", json={"game": "gomoku"}).json()["room"]
    ids = [r["id"] for r in server.http.get("/api/rooms").json()["rooms"]]
    assert listed in ids and hidden not in ids
    assert server.http.post(f"/api/rooms/{listed}/join", json={}).status_code == 200
    assert listed not in [r["id"] for r in server.http.get("/api/rooms").json()["rooms"]]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"game": "chess"}, 422, "game"),
        ({"game": "reversi", "options": {"size": 7}}, 400, "size"),
        ({"game": "gomoku", "options": {"colour": 1}}, 400, "colour"),
        ({"game": "tictactoe", "seats": {"white": "level:99"}}, 400, "level"),
        ({"game": "tictactoe", "seats": {"white": "gomocup:/bin/sh"}}, 400, "external engines"),
        ({"game": "tictactoe", "clock": {"initial": -5}}, 422, "clock.initial"),
        ({"game": "tictactoe", "surprise": True}, 422, "surprise"),
        ({"game": "tictactoe", "position": "XXXX"}, 400, ""),
    ],
)
def test_bad_room_requests_get_a_code_and_a_message(
    server: Server, body: Frame, status: int, words: str
) -> None:
    reply = server.http.post("/api/rooms", json=body)
    assert reply.status_code == status, reply.text
    data = reply.json()
    assert data["code"] and words in data["message"]


def test_unknown_rooms_and_unfit_record_formats_are_refused(server: Server) -> None:
    assert server.http.get("/api/rooms/nosuchroom").status_code == 404
    room = server.http.post("/api/rooms", json={"game": "tictactoe"}).json()["room"]
    reply = server.http.get(f"/api/rooms/{room}/record", params={"format": "ggf"})
    assert reply.status_code == 400 and "tictactoe" in reply.json()["message"]
    unknown = server.http.get(f"/api/rooms/{room}/record", params={"format": "doc"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "bad_request"  # not one of the documented formats


def test_openapi_and_web_app_are_served(server: Server) -> None:
    assert server.http.get("/docs").status_code == 200
    paths = server.http.get("/openapi.json").json()["paths"]
    assert "/api/rooms" in paths and "/api/rooms/{room_id}/join" in paths
    reply = server.http.get("/")
    assert reply.status_code == 200 and "<html" in reply.text.lower()
    # a room that does not exist gets the app's not-found page, with a 404
    missing = server.http.get("/play/abc")
    assert missing.status_code == 404 and "<html" in missing.text.lower()
    assert server.http.get("/web/net.js").status_code == 200


# -- live play -------------------------------------------------------------------------------------------


def test_a_move_is_acked_then_relayed_to_opponent_and_spectator_with_rising_versions(server: Server) -> None:
    room, black, white = online_room(server)
    a, b, spectator = server.ws(room), server.ws(room), server.ws(room)
    try:
        start = a.hello(black)
        assert start["you"] == ["black"] and start["turn"] == "black"
        b.hello(white)
        watched = spectator.hello()
        assert watched["you"] == []
        a.send({"type": "move", "move": "b2", "seq": 1})
        assert a.until(lambda f: f["type"] in ("ack", "event"))["type"] == "ack"
        for sock in (b, spectator):
            played = sock.event("move_played")
            assert played["event"]["move"] == "b2" and played["version"] == start["version"] + 1
            turn = sock.event("turn_changed")
            assert turn["version"] == played["version"] + 1 and turn["event"]["turn"] == "white"
        assert state(server, room)["watchers"] == 1
        spectator.send({"type": "move", "move": "a1", "seq": 1})
        assert spectator.error("not_seated")
        a.send({"type": "move", "move": "a1", "seq": 2})
        assert a.error("not_your_turn")["seq"] == 2
        b.send({"type": "move", "move": "b2", "seq": 1})
        assert "b2" in b.error("illegal_move")["message"]
        after = state(server, room)
        assert after["moves"] == ["b2"] and after["version"] == start["version"] + 2
    finally:
        for sock in (a, b, spectator):
            sock.close()


def test_a_resent_move_is_acknowledged_again_and_not_applied_twice(server: Server) -> None:
    room, black, white = online_room(server)
    a = server.ws(room)
    try:
        a.hello(black)
        a.send({"type": "move", "move": "a1", "seq": 7})
        assert a.until(lambda f: f["type"] == "ack")["seq"] == 7
        version = state(server, room)["version"]
        a.close()
        a = server.ws(room)  # a reconnect re-sends the frame it is not sure of
        a.hello(black)
        a.send({"type": "move", "move": "a1", "seq": 7})
        ack = a.until(lambda f: f["type"] == "ack")
        assert ack["seq"] == 7 and ack["duplicate"] is True
        after = state(server, room)
        assert after["moves"] == ["a1"] and after["version"] == version
    finally:
        a.close()


def test_reconnecting_with_since_replays_exactly_the_missed_events(server: Server) -> None:
    room, black, white = online_room(server)
    a, b = server.ws(room), server.ws(room)
    try:
        seen = a.hello(black)["version"]
        b.hello(white)
        a.close()
        moves = [("b", "a1"), ("w", "b1"), ("b", "a2")]
        sock = {"b": None, "w": b}
        for who, move in moves:
            if who == "w":
                b.send({"type": "move", "move": move, "seq": len(b.seen)})
                b.until(lambda f: f["type"] == "ack")
            else:
                other = server.ws(room)
                other.hello(black)
                other.send({"type": "move", "move": move, "seq": 100 + len(moves) + len(other.seen)})
                other.until(lambda f: f["type"] == "ack")
                other.close()
        assert sock["w"] is b
        now = state(server, room)["version"]
        again = server.ws(room)
        again.hello(black, since=seen)
        versions = [
            again.until(lambda f: f["type"] == "event" and "version" in f)["version"]
            for _ in range(now - seen)
        ]
        assert versions == list(range(seen + 1, now + 1))
        again.close()
        stale = server.ws(room)
        stale.hello(black, since=now + 50)  # a version the room never had: full state instead
        assert stale.until(lambda f: f["type"] == "state")["version"] == now
        stale.close()
    finally:
        b.close()


def test_hot_seat_client_plays_both_sides_and_undoes(server: Server) -> None:
    data = server.http.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    sock = server.ws(data["room"])
    try:
        sock.hello(data["tokens"]["black"], data["tokens"]["white"])
        for i, move in enumerate(["b2", "a1"], start=1):
            sock.send({"type": "move", "move": move, "seq": i})
            sock.ack(i)
        sock.send({"type": "undo"})
        sock.event("move_undone")
        assert state(server, data["room"])["moves"] == ["b2"]
    finally:
        sock.close()


def test_takeback_draw_resign_and_rematch_online(server: Server) -> None:
    room, black, white = online_room(server)
    a, b = server.ws(room), server.ws(room)
    try:
        a.hello(black)
        b.hello(white)
        a.send({"type": "undo"})
        assert a.error("not_allowed")  # online games use takebacks
        a.send({"type": "move", "move": "b2", "seq": 1})
        b.event("move_played")
        a.send({"type": "takeback"})
        b.event("takeback_requested")
        b.send({"type": "takeback", "accept": True})
        a.event("move_undone")
        assert state(server, room)["moves"] == []
        a.send({"type": "draw"})
        b.event("draw_offered")
        b.send({"type": "draw", "accept": False})
        a.event("draw_answered")
        assert state(server, room)["outcome"] is None
        a.send({"type": "rematch"})
        assert a.error("game_not_over")
        b.send({"type": "resign"})
        ended = a.event("game_ended")
        assert (
            ended["event"]["outcome"]["winner"] == "black" and ended["event"]["outcome"]["reason"] == "resign"
        )
        a.send({"type": "move", "move": "c3", "seq": 2})
        assert a.error("game_over")
        a.send({"type": "rematch"})
        b.event("rematch_offered")
        b.send({"type": "rematch"})
        started = a.event("rematch_started")
        new_room = started["event"]["room"]
        assert started["event"]["tokens"] == {"white": black}  # colours swap, the token stays
        fresh = state(server, new_room)
        assert fresh["moves"] == [] and fresh["seats"]["black"]["taken"]
        c = server.ws(new_room)
        assert c.hello(white)["you"] == ["black"]
        c.close()
    finally:
        a.close()
        b.close()


class BatchSocket(Socket):
    """A socket opened with ``?batch=1``: unpacks ``batch`` frames and counts them."""

    def __init__(self, conn: ClientConnection) -> None:
        super().__init__(conn)
        self.pending: list[Frame] = []
        self.batches = 0
        self.batch_of: dict[int, int] = {}  # id(frame) -> the number of the batch frame it came in

    def recv(self, timeout: float = 10.0) -> Frame:
        if not self.pending:
            data = json.loads(self.conn.recv(timeout=timeout))
            if data.get("type") == "batch":
                self.batches += 1
                self.pending.extend(data["frames"])
                self.batch_of.update((id(f), self.batches) for f in data["frames"])
            else:
                self.pending.append(data)
        frame = self.pending.pop(0)
        self.seen.append(frame)
        return frame


def test_batched_sockets_follow_the_rematch_without_reconnecting(server: Server) -> None:
    room, black, white = online_room(server)
    url = f"ws://127.0.0.1:{server.port}/api/rooms/{room}/ws?batch=1&follow=1"
    a = BatchSocket(connect(url, open_timeout=10, close_timeout=1).__enter__())
    b = BatchSocket(connect(url, open_timeout=10, close_timeout=1).__enter__())
    try:
        assert a.hello(black)["you"] == ["black"]
        assert b.hello(white)["you"] == ["white"]
        for seq, (sock, move) in enumerate(zip([a, b, a, b, a], ["a1", "b1", "a2", "b2", "a3"], strict=True)):
            sock.send({"type": "move", "move": move, "seq": seq // 2 + 1})
            sock.ack(seq // 2 + 1)
            other = b if sock is a else a
            other.until(lambda f: f.get("type") == "event" and f["event"].get("move") == move)  # noqa: B023
        a.event("game_ended")
        assert a.batches > 0  # the ack and the move's events came as one frame
        a.send({"type": "rematch"})
        b.event("rematch_offered")
        b.send({"type": "rematch"})
        notice = a.event("rematch_started")
        new_room = notice["event"]["room"]
        assert new_room != room
        # the same connections are now seated in the rematch room, colours swapped
        fresh_a = a.until(lambda f: f.get("type") == "state")
        fresh_b = b.until(lambda f: f.get("type") == "state")
        # the notice waited for the move: it and the new room's state came in one frame
        assert a.batch_of.get(id(notice)) is not None
        assert a.batch_of.get(id(notice)) == a.batch_of.get(id(fresh_a))
        assert fresh_a["id"] == fresh_b["id"] == new_room
        assert fresh_a["you"] == ["white"] and fresh_b["you"] == ["black"]
        b.send({"type": "move", "move": "b2", "seq": 1})
        b.ack(1)
        a.until(lambda f: f.get("type") == "event" and f["event"].get("move") == "b2")
        assert state(server, new_room)["moves"] == ["b2"]
        assert state(server, room)["moves"] == ["a1", "b1", "a2", "b2", "a3"]
        a.send({"type": "move", "move": "b2", "seq": 1})
        assert a.error("illegal_move")  # refused by the new room's board, not the old one's
    finally:
        a.close()
        b.close()


def test_computer_seat_thinks_off_the_loop_and_answers(server: Server) -> None:
    data = server.http.post(
        "/api/rooms", json={"game": "tictactoe", "mode": "local", "seats": {"white": "level:5"}}
    ).json()
    sock = server.ws(data["room"])
    try:
        sock.hello(data["tokens"]["black"])
        sock.send({"type": "move", "move": "b2", "seq": 1})
        thinking = sock.event("thinking")
        assert thinking["event"]["color"] == "white" and "version" not in thinking
        reply = sock.until(
            lambda f: (
                f["type"] == "event"
                and f["event"].get("color") == "white"
                and f["event"]["kind"] == "move_played"
            )
        )
        assert reply["event"]["move"] != "b2"
        assert state(server, data["room"])["turn"] == "black"
    finally:
        sock.close()


def test_clock_flag_fall_ends_the_game_for_time(server: Server) -> None:
    room, black, white = online_room(server, clock={"initial": 0.6, "increment": 0})
    sock, other = server.ws(room), server.ws(room)
    try:
        sock.hello(black)
        other.hello(white)
        # online, each side's clock starts with its first move: then Black's 0.6 s run out
        sock.send({"type": "move", "move": "b2", "seq": 1})
        sock.ack(1)
        other.send({"type": "move", "move": "a1", "seq": 1})
        other.ack(1)
        ended = sock.event("game_ended")
        assert (
            ended["event"]["outcome"]["reason"] == "time" and ended["event"]["outcome"]["winner"] == "white"
        )
        final = state(server, room)
        assert final["clocks"]["black"] == 0 and final["clocks"]["white"] == 0.6 and final["turn"] is None
    finally:
        sock.close()
        other.close()


def test_a_computers_thinking_time_is_charged_to_its_own_clock(server: Server) -> None:
    data = server.http.post(
        "/api/rooms",
        json={
            "game": "gomoku",
            "mode": "local",
            "seats": {"white": "minimax:0.4"},
            "clock": {"initial": 60, "increment": 0},
        },
    ).json()
    sock = server.ws(data["room"])
    try:
        sock.hello(data["tokens"]["black"])
        sock.send({"type": "move", "move": "h8", "seq": 1})
        sock.until(
            lambda f: (
                f["type"] == "event"
                and f["event"].get("kind") == "move_played"
                and f["event"]["color"] == "white"
            ),
            timeout=120,
        )
        clocks = sock.event("turn_changed")["event"]["clocks"]
        assert clocks["white"] <= 60 - 0.35  # the engine's search time
        assert clocks["black"] > 60 - 0.35  # Black's clock stood still meanwhile
    finally:
        sock.close()


def test_a_correspondence_clock_gives_days_per_move(server: Server) -> None:
    room, black, white = online_room(server, clock={"days": 2})
    clocks = state(server, room)["clocks"]
    assert 2 * 86400 - 60 < clocks["black"] <= 2 * 86400 and clocks["white"] == 2 * 86400
    sock = server.ws(room)
    try:
        sock.hello(black)
        sock.send({"type": "move", "move": "b2", "seq": 1})
        sock.ack(1)
        assert state(server, room)["clocks"]["black"] == 2 * 86400  # a fresh allowance for the next move
    finally:
        sock.close()


def _double_three_for_black(server: Server, rule: str) -> tuple[Socket, str, Frame]:
    """A local gomoku room under ``rule`` where g8 h8 across and i9 i10 down make i8 a double-three
    point for Black, played up to Black's turn: its socket, its room and the turn's frame."""
    data = server.http.post(
        "/api/rooms", json={"game": "gomoku", "mode": "local", "options": {"rule": rule}}
    ).json()
    sock = server.ws(data["room"])
    try:
        sock.hello(*data["tokens"].values())
        for i, move in enumerate(["g8", "a1", "h8", "a3", "i9", "a5", "i10"], start=1):
            sock.send({"type": "move", "move": move, "seq": i})
            sock.ack(i)
        assert state(server, data["room"])["forbidden"] == []  # White to move: nothing is forbidden
        sock.send({"type": "move", "move": "a7", "seq": 8})
        sock.until(lambda f: f["type"] == "event" and f["event"].get("move") == "a7")
        turn = sock.event("turn_changed")
    except BaseException:
        sock.close()
        raise
    return sock, data["room"], turn


def test_renju_state_names_blacks_forbidden_points(server: Server) -> None:
    sock, room, turn = _double_three_for_black(server, "renju")
    try:
        assert "i8" in turn["event"]["forbidden"]
        assert state(server, room)["forbidden"] == turn["event"]["forbidden"]
        sock.send({"type": "move", "move": "i8", "seq": 9})
        assert "i8" in sock.error("illegal_move")["message"]
    finally:
        sock.close()


def test_turns_outside_renju_carry_an_empty_forbidden_list(server: Server) -> None:
    """The same stones in freestyle: Black's turn names no forbidden point, in the event and in
    the state, and the double-three point is a legal move."""
    sock, room, turn = _double_three_for_black(server, "freestyle")
    try:
        assert turn["event"]["turn"] == "black" and turn["event"]["forbidden"] == []
        assert state(server, room)["forbidden"] == []
        sock.send({"type": "move", "move": "i8", "seq": 9})
        sock.ack(9)
    finally:
        sock.close()


def test_records_analysis_evaluation_and_hints(server: Server) -> None:
    data = server.http.post("/api/rooms", json={"game": "gomoku", "mode": "local"}).json()
    sock = server.ws(data["room"])
    try:
        sock.hello(*data["tokens"].values())
        for i, move in enumerate(["h8", "h9", "i8"], start=1):
            sock.send({"type": "move", "move": move, "seq": i})
            sock.ack(i)
        sock.send({"type": "hint"})
        hint = sock.until(lambda f: f["type"] == "hint", timeout=120)
        assert "scores" in hint["analysis"]
    finally:
        sock.close()
    room = data["room"]
    transcript = server.http.get(f"/api/rooms/{room}/record", params={"format": "transcript"})
    assert transcript.status_code == 200 and "h8 h9 i8" in transcript.text
    psq = server.http.get(f"/api/rooms/{room}/record", params={"format": "psq"})
    assert psq.status_code == 200 and psq.text.startswith("Piskvorky")
    sgf = server.http.get(f"/api/rooms/{room}/record", params={"format": "sgf"})
    assert sgf.status_code == 200 and "GM[4]" in sgf.text
    assert server.http.get(f"/api/rooms/{room}/record", params={"format": "ggf"}).status_code == 400
    scores = server.http.get(f"/api/rooms/{room}/evaluation", timeout=60).json()["scores"]
    assert len(scores) == 4
    analysis = server.http.post(
        "/api/analyse", json={"game": "tictactoe", "moves": ["b2"], "seconds": 0.2}, timeout=120
    )
    assert analysis.status_code == 200 and analysis.json()["scores"]
    bad = server.http.post("/api/analyse", json={"game": "tictactoe", "moves": ["z9"]})
    assert bad.status_code == 400


@pytest.mark.parametrize("size", [6, 10])
def test_hints_evaluation_and_analysis_on_reversi_boards_the_engine_may_not_play(
    server: Server, size: int
) -> None:
    data = server.http.post(
        "/api/rooms", json={"game": "reversi", "options": {"size": size}, "mode": "local"}
    ).json()
    sock = server.ws(data["room"])
    try:
        first = sock.hello(*data["tokens"].values())["legal"][0]
        sock.send({"type": "move", "move": first, "seq": 1})
        sock.ack(1)
        sock.send({"type": "hint"})
        answer = sock.until(lambda f: f["type"] in ("hint", "error"), timeout=120)
        if answer["type"] == "error":  # no engine for this size: a clear refusal
            assert answer["code"] == "no_analysis" and answer["message"]
        else:  # a generic search answers
            assert answer["analysis"]["scores"]
        sock.send({"type": "ping"})  # the socket is still open and answering
        sock.until(lambda f: f["type"] == "pong")
    finally:
        sock.close()
    evaluation = server.http.get(f"/api/rooms/{data['room']}/evaluation", timeout=60)
    assert evaluation.status_code == 200
    assert len(evaluation.json()["scores"]) == 2  # one per ply, null where the engine gave none
    analysis = server.http.post(
        "/api/analyse",
        json={"game": "reversi", "options": {"size": size}, "moves": [first], "seconds": 0.1},
        timeout=120,
    )
    if analysis.status_code == 200:
        assert analysis.json()["scores"]
    else:
        assert analysis.status_code == 422 and analysis.json()["code"] == "no_analysis"
    assert state(server, data["room"])["moves"] == [first]


# -- bad frames ----------------------------------------------------------------------------------------------


def test_bad_frames_get_error_codes_and_change_nothing(server: Server) -> None:
    room, black, _white = online_room(server)
    before = state(server, room)
    sock = server.ws(room)
    try:
        sock.send({"type": "move", "move": "b2", "seq": 1})
        assert sock.error("no_hello")
        sock.hello(black)
        sock.send("{not json")
        assert sock.error("bad_frame")
        sock.send({"type": "teleport"})
        assert sock.error("bad_frame")
        sock.send({"type": "move", "move": "b2", "seq": -1})
        assert sock.error("bad_frame")
        sock.send({"type": "move", "move": "b2", "seq": 1, "extra": "x" * 5000})
        assert sock.error("frame_too_large")
        sock.conn.send(b"\x00\x01")
        assert sock.error("bad_frame")
        sock.send({"type": "hello"})
        assert sock.error("bad_frame")
    finally:
        sock.close()
    after = state(server, room)
    assert after["moves"] == before["moves"] == [] and after["version"] == before["version"]


class RawWebsocket:
    """A websocket client on a plain socket (``websockets`` sans-I/O): the test
    chooses how the bytes of each frame reach the server."""

    def __init__(self, server: Server, room: str) -> None:
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        self.proto = ClientProtocol(parse_uri(f"ws://127.0.0.1:{server.port}/api/rooms/{room}/ws"))
        self.proto.send_request(self.proto.connect())
        self.flush()
        self.events: list[Any] = []
        self.read_until(lambda e: hasattr(e, "status_code"))

    def flush(self, pieces: int = 1, pause: float = 0.05) -> None:
        data = b"".join(self.proto.data_to_send())
        step = max(1, -(-len(data) // pieces))
        for i in range(0, len(data), step):
            self.sock.sendall(data[i : i + step])
            if pieces > 1:
                time.sleep(pause)  # the server reads each piece on its own

    def read_until(self, test: Callable[[Any], bool], timeout: float = 10) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if test(event):
                    del self.events[: i + 1]
                    return event
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                self.proto.receive_eof()
            else:
                self.proto.receive_data(data)
            self.events.extend(self.proto.events_received())
            self.flush()
            if not data and not any(test(e) for e in self.events):
                raise AssertionError(f"the server closed the connection; saw {self.events[-5:]}")

    def json(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        from websockets.frames import Opcode

        def match(event: Any) -> bool:
            return getattr(event, "opcode", None) is Opcode.TEXT and test(json.loads(bytes(event.data)))

        found: dict[str, Any] = json.loads(bytes(self.read_until(match).data))
        return found


def test_the_room_socket_reads_frames_however_the_bytes_arrive(server: Server) -> None:
    """The server reads whole text frames itself and leaves the rest to ``websockets``:
    each way a frame can arrive must give the same frames to the room."""
    from websockets.frames import Frame as WsFrame
    from websockets.frames import Opcode

    room, black, white = online_room(server)
    ws = RawWebsocket(server, room)
    try:
        ws.proto.send_text(json.dumps({"type": "hello", "tokens": [black, white]}).encode())
        ws.flush(pieces=3)  # a frame in three reads: the parser keeps the first pieces
        assert ws.json(lambda f: f.get("type") == "state")["you"] == ["black", "white"]
        ws.proto.send_text(json.dumps({"type": "move", "move": "b2", "seq": 1}).encode())
        ws.proto.send_ping(b"still there?")
        ws.proto.send_text(json.dumps({"type": "move", "move": "a1", "seq": 2}).encode())
        ws.flush()  # three frames in one read, a control frame between the text frames
        assert ws.read_until(lambda e: getattr(e, "opcode", None) is Opcode.PONG).data == b"still there?"
        assert ws.json(lambda f: f.get("type") == "ack" and f["seq"] == 1)
        assert ws.json(lambda f: f.get("type") == "ack" and f["seq"] == 2)
        text = json.dumps({"type": "move", "move": "c3", "seq": 3}).encode()
        ws.proto.send_frame(WsFrame(Opcode.TEXT, text[:10], fin=False))  # a fragmented message
        ws.proto.send_frame(WsFrame(Opcode.CONT, text[10:], fin=True))
        ws.flush()
        assert ws.json(lambda f: f.get("type") == "ack" and f["seq"] == 3)
        ws.proto.send_text(json.dumps({"type": "move", "move": "a3", "seq": 4, "pad": "x" * 200}).encode())
        ws.proto.send_text(json.dumps({"type": "move", "move": "a3", "seq": 4}).encode())
        ws.flush(pieces=2)  # a 16-bit length; two reads that split frames
        assert ws.json(lambda f: f.get("type") == "error" and f["seq"] == 4)["code"] == "bad_frame"
        assert ws.json(lambda f: f.get("type") == "ack" and f["seq"] == 4)
        ws.proto.send_frame(WsFrame(Opcode.TEXT, b'{"type":"ping","x":"\xff\xfe'))  # not UTF-8
        ws.flush()
        close = ws.read_until(lambda e: getattr(e, "opcode", None) is Opcode.CLOSE)
        assert int.from_bytes(close.data[:2], "big") == 1007  # invalid data, as websockets answers
    finally:
        ws.sock.close()
    assert state(server, room)["moves"] == ["b2", "a1", "c3", "a3"]


def test_a_wrong_token_is_refused_and_the_client_only_watches(server: Server) -> None:
    room, _black, _white = online_room(server)
    other_room, other_black, _ = online_room(server)
    sock = server.ws(room)
    try:
        sock.send({"type": "hello", "token": other_black})  # a token of another room is stale here
        assert sock.error("bad_token")
        sock.send({"type": "move", "move": "b2", "seq": 1})
        assert sock.error("not_seated")
        assert state(server, room)["moves"] == []
    finally:
        sock.close()


def test_unknown_room_socket_gets_an_error_and_is_closed(server: Server) -> None:
    sock = server.ws("nosuchroom")
    assert sock.error("unknown_room")
    sock.close()


def test_a_flood_of_frames_is_rate_limited(server: Server) -> None:
    room, black, _white = online_room(server)
    sock = server.ws(room)
    try:
        sock.hello(black)
        for _ in range(30):
            sock.send({"type": "ping"})
        frames = [sock.until(lambda f: f["type"] in ("pong", "error")) for _ in range(30)]
        limited = [f for f in frames if f["type"] == "error"]
        assert limited and all(f["code"] == "rate_limited" for f in limited)
        assert sum(f["type"] == "pong" for f in frames) <= 20
        assert state(server, room)["moves"] == []
    finally:
        sock.close()


def test_serve_refuses_bad_options_in_one_line() -> None:
    tabletop = str(Path(sys.executable).with_name("tabletop"))
    done = subprocess.run(
        [tabletop, "serve", "--database", "not a url"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert done.returncode == 2 and "--database" in done.stderr and "Traceback" not in done.stderr


def test_a_swap_opening_lets_the_second_player_take_black_and_the_tokens_follow(server: Server) -> None:
    room, first, second = online_room(server, game="gomoku", options={"opening": "swap"})
    a, b = server.ws(room), server.ws(room)
    try:
        a.hello(first)
        b.hello(second)
        for i, move in enumerate(["h8", "h9", "i8"], start=1):  # the opener places three stones
            a.send({"type": "move", "move": move, "seq": i})
            a.ack(i)
        b.event("opening_choice_required")
        b.send({"type": "choose", "choice": "dance"})
        assert b.error("bad_frame")
        a.send({"type": "choose", "choice": "black"})
        assert a.until(lambda f: f["type"] == "error")["code"] != "bad_frame"  # not the opener's choice
        b.send({"type": "choose", "choice": "black"})
        chosen = a.event("colors_chosen")
        assert chosen["event"]["swapped"] is True
        after = state(server, room)
        assert after["moves"] == ["h8", "h9", "i8"] and after["turn"] == "white"
        # the first player's token now plays White and moves next
        a.send({"type": "move", "move": "j8", "seq": 4})
        a.ack(4)
        assert b.event("move_played")["event"]["color"] == "white"
        c = server.ws(room)
        assert c.hello(first)["you"] == ["white"]
        c.close()
    finally:
        a.close()
        b.close()


def test_a_hot_seat_swap2_opening_is_played_over_the_websocket(server: Server) -> None:
    data = server.http.post(
        "/api/rooms", json={"game": "gomoku", "mode": "local", "options": {"opening": "swap2"}}
    ).json()
    room = data["room"]
    sock = server.ws(room)
    try:
        start = sock.hello(*data["tokens"].values())
        assert start["actor"] == "black" and start["opening"]["stage"] == "place"
        for seq, stone in enumerate(["h8", "h9", "i8"], start=1):  # the opener: three stones
            sock.send({"type": "move", "move": stone, "seq": seq})
            sock.ack(seq)
        asked = sock.event("opening_choice_required")["event"]
        assert asked["color"] == "white" and asked["options"] == ["black", "white", "place"]
        sock.send({"type": "move", "move": "k8", "seq": 4})  # no stone before the choice
        assert sock.until(lambda f: f["type"] == "error")["code"] == "choice_required"
        sock.send({"type": "choose", "choice": "place"})  # the second seat: two more stones
        assert sock.event("opening_choice_made")["event"]["choice"] == "place"
        assert state(server, room)["actor"] == "white"
        for seq, stone in [(5, "j8"), (6, "j9")]:
            sock.send({"type": "move", "move": stone, "seq": seq})
            sock.ack(seq)
        asked = sock.event("opening_choice_required")["event"]
        assert asked["color"] == "black" and asked["options"] == ["black", "white"]
        sock.send({"type": "choose", "choice": "white"})  # the opener takes White: the seats swap
        assert sock.event("colors_chosen")["event"]["swapped"] is True
        after = state(server, room)
        assert after["moves"] == ["h8", "h9", "i8", "j8", "j9"]
        assert after["opening"]["stage"] == "done" and after["turn"] == after["actor"] == "white"
        sock.send({"type": "move", "move": "k8", "seq": 7})
        sock.ack(7)
        assert sock.event("move_played")["event"]["color"] == "white"
    finally:
        sock.close()
    assert state(server, room)["moves"][-1] == "k8"


def test_a_computer_opener_places_the_swap2_stones_and_plays_on_after_the_choice(server: Server) -> None:
    data = server.http.post(
        "/api/rooms",
        json={"game": "gomoku", "options": {"opening": "swap2"}, "seats": {"black": "random"}, "as": "white"},
    ).json()
    room = data["room"]
    sock = server.ws(room)
    try:
        # since=0: every event from the start, whether the computer placed its stones before
        # this hello or after it (a warm worker pool can be faster than the connection)
        sock.hello(data["tokens"]["white"], since=0)
        asked = sock.event("opening_choice_required")["event"]  # after the computer's three stones
        assert asked["color"] == "white"
        placed = [
            f["event"] for f in sock.seen if f["type"] == "event" and f["event"]["kind"] == "move_played"
        ]
        opening = state(server, room)
        assert len(opening["moves"]) == 3 and opening["actor"] == "white" and opening["turn"] == "white"
        assert all(e["color"] == "black" for e in placed)  # the opener's seat put down both colours
        sock.send({"type": "choose", "choice": "black"})  # take Black: the computer is White now
        assert sock.event("colors_chosen")["event"]["swapped"] is True
        reply = sock.event("move_played")["event"]  # the computer, now White, moves on its own
        assert reply["color"] == "white"
        assert sock.event("turn_changed")["event"]["turn"] == "black"
        now = state(server, room)
        assert now["seats"]["white"]["kind"] == "random" and now["seats"]["black"]["kind"] == "human"
        move = next(m for m in now["legal"])
        sock.send({"type": "move", "move": move, "seq": 1})  # the token now plays Black
        sock.ack(1)
    finally:
        sock.close()
    again = server.ws(room)
    try:
        assert again.hello(data["tokens"]["white"])["you"] == ["black"]
    finally:
        again.close()


RECORD_GAMES = {
    "reversi": (["f5", "d6", "c3", "d3"], ["transcript", "ggf", "sgf", "obf"], ["psq"]),
    "gomoku": (["h8", "h9", "i8", "i9"], ["transcript", "sgf", "psq"], ["ggf", "obf"]),
    "tictactoe": (["b2", "a1", "c3"], ["transcript"], ["sgf", "ggf", "psq", "obf"]),
}


@pytest.mark.parametrize("game", sorted(RECORD_GAMES))
def test_every_record_format_that_fits_the_game_reads_back_as_the_rooms_game(
    server: Server, game: str
) -> None:
    from tabletop import records

    moves, fitting, unfit = RECORD_GAMES[game]
    data = server.http.post("/api/rooms", json={"game": game, "mode": "local"}).json()
    room = data["room"]
    sock = server.ws(room)
    try:
        sock.hello(*data["tokens"].values())
        for seq, move in enumerate(moves, start=1):
            sock.send({"type": "move", "move": move, "seq": seq})
            sock.ack(seq)
        sock.send({"type": "resign"})  # the side to move resigns: the record says so
        sock.event("game_ended")
    finally:
        sock.close()
    final = state(server, room)
    loser = "black" if len(moves) % 2 == 0 else "white"
    for fmt in fitting:
        reply = server.http.get(f"/api/rooms/{room}/record", params={"format": fmt})
        assert reply.status_code == 200, (fmt, reply.text)
        assert f'filename="{room}.{fmt}"' in reply.headers["content-disposition"]
        (record,) = records.read(reply.text, fmt, game=game)
        if fmt == "obf":  # a position, not a game: the position after the moves
            assert record.board().to_text() == final["position"]
        else:
            assert record.moves == moves, fmt
        if fmt in ("sgf", "ggf"):
            assert record.result == ("W+R" if loser == "black" else "B+R"), fmt
    for fmt in unfit:
        refused = server.http.get(f"/api/rooms/{room}/record", params={"format": fmt})
        assert refused.status_code == 400 and refused.json()["code"] == "bad_format", fmt
    unknown = server.http.get(f"/api/rooms/{room}/record", params={"format": "pgn"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "bad_request"  # not a documented format
