"""The room websocket fuzzed with hypothesis: sequences of frames from several clients at once.

Each example is a fresh online Tic-tac-toe room with three connections (Black,
White, a spectator) and a sequence of *rounds*.  In a round every client sends
at most one frame, all of them before any reply is read, then a ``ping``; the
server handles a connection's frames in order, so what a client reads before its
``pong`` answers its own frame, while the frames of the different clients race
each other in the server.  Frames: valid and invalid moves with the next, a
repeated, a stale, a future or a malformed ``seq``, every action type, bad JSON,
wrong shapes, frames over the size limit, deep nesting, binary frames.  Other
rounds are done alone: a seated client reconnects with a stale, current or future
``since``; a connection vanishes in the middle of a frame; a stranger speaks before
``hello``; a frame over the transport's limit closes a connection.

After every round: each frame that was refused got an error frame (a request
with no error frame must have changed the room), a numbered move got exactly one
answer (its ack or an error with its seq), no error is ``server_error``, and a
``since`` reconnect got exactly the missed events.  After every example: the
server is alive, its log holds no error, and the room as a second server process
rebuilds it from the store (it never saw the room before) equals the live room
move for move.

One pair of server processes for the module (a SQLite file they share); the
examples are bounded to keep ``make test`` short.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tabletop.server.models import MoveFrame
from test_server import ROOT, free_port

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager")

SQUARES = [f"{c}{r}" for c in "abc" for r in "123"]
FRAME_BYTES = 4096  # the server's default frame limit
TRANSPORT_LIMIT = 65536  # tabletop serve's ws_max_size: a larger frame closes the connection


class Process:
    """A ``tabletop serve`` whose output goes to a file the test reads."""

    def __init__(self, database: Path, log: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [
            str(Path(sys.executable).with_name("tabletop")),
            "serve",
            "--port",
            str(self.port),
            "--database",
            f"sqlite:///{database}",
            *extra,
        ]
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        # one client for the polls and the test (each httpx.get() builds a client: some 45 ms of processor time)
        self.http = httpx.Client(base_url=self.url, timeout=30)
        deadline = time.monotonic() + 60
        while True:
            try:
                if self.http.get("/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert self.process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Servers:
    live: Process  # the clients play here (no flood limit: the fuzzer sends fast on purpose)
    rebuilder: Process  # never touches a room until asked for it: loads it from the store
    log_seen: int = 0

    def new_log_lines(self) -> list[str]:
        text = self.live.log.read_text(errors="replace")
        lines = text[self.log_seen :].splitlines()
        self.log_seen = len(text)
        return lines


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    folder = tmp_path_factory.mktemp("fuzz")
    live = Process(folder / "rooms.db", folder / "live.log", "--frame-rate", "0")
    rebuilder = Process(folder / "rooms.db", folder / "rebuilder.log")
    try:
        yield Servers(live, rebuilder)
    finally:
        live.stop()
        rebuilder.stop()


# -- the clients ------------------------------------------------------------------------------------------


@dataclass
class Client:
    """One websocket of the example: its seat token (None: a spectator), what it saw."""

    name: str
    token: str | None
    port: int
    room: str
    conn: ClientConnection | None = None
    version: int = 0  # the last event version this client saw
    next_seq: int = 1
    acked: list[int] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)

    def open(self, since: int | None = None) -> list[dict[str, Any]]:
        self.conn = connect(f"ws://127.0.0.1:{self.port}/api/rooms/{self.room}/ws", open_timeout=30)
        hello: dict[str, Any] = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        if since is not None:
            hello["since"] = since
        self.conn.send(json.dumps(hello))
        return self.until_pong()

    def send(self, payload: str | bytes) -> None:
        assert self.conn is not None
        self.conn.send(payload)

    def until_pong(self, ping: bool = True) -> list[dict[str, Any]]:
        """Send a ping (unless the frame just sent was one) and return every frame received before its pong."""
        assert self.conn is not None
        if ping:
            self.conn.send('{"type":"ping"}')
        got: list[dict[str, Any]] = []
        while True:
            data = json.loads(self.conn.recv(timeout=60))
            self.frames.append(data)
            if isinstance(data.get("version"), int):
                self.version = max(self.version, data["version"])
            if data.get("type") == "pong":
                return got
            got.append(data)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# -- frames -------------------------------------------------------------------------------------------------

SEQ_KINDS = ["next", "next", "next", "repeat", "stale", "future", "none", "negative", "huge", "text", "bool", "float"]

move_frames = st.fixed_dictionaries(
    {
        "kind": st.just("move"),
        "move": st.one_of(
            st.sampled_from(SQUARES),
            st.sampled_from(["z9", "pass", "a0", "A1", "b2 ", "", "x" * 17, "d4", "🙂", "resign"]),
        ),
        "seq": st.sampled_from(SEQ_KINDS),
        "jump": st.integers(1, 1000),
    }
)
request_frames = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["undo", "redo", "resign", "rematch", "takeback", "draw", "hint", "ping", "choose"]),
        "accept": st.sampled_from([None, None, True, False]),
        "choice": st.sampled_from(["black", "white", "place"]),
    }
)
bad_frames = st.fixed_dictionaries(
    {
        "kind": st.just("bad"),
        "text": st.one_of(
            st.sampled_from(
                [
                    "{not json",
                    "[]",
                    "5",
                    "null",
                    '"move"',
                    '{"type":"teleport"}',
                    '{"type":"move"}',
                    '{"type":"move","move":"b2","seq":1,"extra":true}',
                    '{"type":"ping","x":1}',
                    '{"type":"hello","since":-1}',
                    '{"type":"hello","token":""}',
                    '{"type":"takeback","accept":"yes"}',
                    '{"type":"choose","choice":"red"}',
                    '{"type":["move"]}',
                    '{"seq":3}',
                    '{"type":"move","move":"b2","seq":1,"type":"undo"}',
                ]
            ),
            st.integers(20, 1900).map(lambda n: "[" * n + "]" * n),  # deep nesting
            st.integers(20, 1400).map(lambda n: '{"type":"move","move":"b2","seq":' + "[" * n + "]" * n + "}"),
            st.integers(FRAME_BYTES + 1, 3 * FRAME_BYTES).map(lambda n: '{"type":"ping","pad":"' + "x" * n + '"}'),
            st.binary(min_size=0, max_size=64),
        ),
    }
)
any_frame = st.one_of(move_frames, move_frames, request_frames, bad_frames)
concurrent_round = st.fixed_dictionaries(
    {"kind": st.just("round"), "frames": st.lists(st.one_of(st.none(), any_frame), min_size=3, max_size=3)}
)
alone_round = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("reconnect"),
            "who": st.sampled_from([0, 1, 2]),
            "since": st.sampled_from(["current", "stale", "zero", "future", "none"]),
            "back": st.integers(0, 3),
        }
    ),
    st.fixed_dictionaries({"kind": st.just("vanish"), "who": st.sampled_from([0, 1, 2]), "cut": st.floats(0.05, 0.95)}),
    st.fixed_dictionaries({"kind": st.just("stranger"), "text": st.sampled_from(['{"type":"move","move":"b2","seq":1}', '{"type":"undo"}', "{nope"])}),
    st.fixed_dictionaries({"kind": st.just("too_large")}),
)
rounds = st.lists(st.one_of(concurrent_round, concurrent_round, concurrent_round, alone_round), min_size=1, max_size=14)


def _payload(client: Client, spec: dict[str, Any]) -> tuple[str | bytes, str, int | None]:
    """The bytes to send for ``spec``, what must come back (``refused``, ``move``,
    ``request``, ``hint``, ``ping``) and the seq a numbered move carries."""
    kind = spec["kind"]
    if kind == "bad":
        text = spec["text"]
        return text, "refused", None
    if kind == "move":
        how = spec["seq"]
        seq: Any
        if how == "next":
            seq = client.next_seq
        elif how == "repeat":
            seq = client.acked[-1] if client.acked else client.next_seq
        elif how == "stale":
            seq = 0
        elif how == "future":
            seq = client.next_seq + spec["jump"]
        elif how == "none":
            seq = None
        else:
            seq = {"negative": -1, "huge": 2**62 + 1, "text": "7", "bool": True, "float": 1.5}[how]
        frame: dict[str, Any] = {"type": "move", "move": spec["move"]}
        if seq is not None:
            frame["seq"] = seq
        text = json.dumps(frame)
        # the frame models are the contract: they read "7" and true as the numbers 7 and 1
        try:
            parsed = MoveFrame.model_validate_json(text)
        except ValidationError:
            return text, "refused", None
        return text, "move", parsed.seq
    frame = {"type": kind}
    if kind in ("takeback", "draw") and spec["accept"] is not None:
        frame["accept"] = spec["accept"]
    if kind == "choose":
        frame["choice"] = spec["choice"]
    expect = {"hint": "hint", "ping": "ping"}.get(kind, "request")
    return json.dumps(frame), expect, None


def _check_answer(client: Client, expect: str, seq: int | None, got: list[dict[str, Any]], sent: str | bytes) -> None:
    """What came back for one frame (``got``: everything before the pong) must fit it."""
    where = f"{client.name} sent {sent[:120]!r}, got {got}"
    errors = [f for f in got if f.get("type") == "error"]
    assert all(f.get("code") != "server_error" for f in errors), where
    assert all(isinstance(f.get("code"), str) and isinstance(f.get("message"), str) for f in errors), where
    if expect == "refused":
        assert len(errors) == 1 and errors[0]["code"] in ("bad_frame", "frame_too_large"), where
        return
    if expect == "ping":
        assert errors == [], where
        return
    if expect == "hint":
        assert len(errors) + sum(f.get("type") == "hint" for f in got) == 1, where
        return
    if expect == "move" and seq is not None:
        answers = [f for f in got if f.get("type") == "ack" or f.get("type") == "error"]
        assert len(answers) == 1 and answers[0].get("seq") == seq, where
        if answers[0]["type"] == "ack":
            if seq not in client.acked:
                client.acked.append(seq)
            client.next_seq = max(client.next_seq, seq + 1)
        return
    # a request (or a move without seq) that got no error must have changed the room
    if not errors:
        assert any(f.get("type") == "event" for f in got), where


def _check_replay(client: Client, since: int | None, got: list[dict[str, Any]], live_version: int) -> None:
    """A reconnect: the state, or exactly the events after ``since``."""
    where = f"{client.name} came back with since={since} at version {live_version}: {got}"
    assert not [f for f in got if f.get("type") == "error"], where
    if since is None or since > live_version or live_version - since > 500:
        assert [f["type"] for f in got if f.get("type") == "state"] == ["state"], where
        return
    versions = [f["version"] for f in got if f.get("type") == "event" and isinstance(f.get("version"), int)]
    states = [f for f in got if f.get("type") == "state"]
    assert states or versions == list(range(since + 1, live_version + 1)), where


def _vanish(port: int, room: str, token: str | None, cut: float) -> None:
    """A connection that says hello, starts a move frame and is gone before its end."""
    from websockets.client import ClientProtocol
    from websockets.uri import parse_uri

    proto = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/api/rooms/{room}/ws"))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        proto.send_request(proto.connect())
        sock.sendall(b"".join(proto.data_to_send()))
        while not any(hasattr(e, "status_code") for e in proto.events_received()):
            proto.receive_data(sock.recv(65536))
        proto.send_text(json.dumps({"type": "hello", "token": token}).encode() if token else b'{"type":"hello"}')
        proto.send_text(json.dumps({"type": "move", "move": "b2", "seq": 10**6, "pad": "y" * 300}).encode())
        data = b"".join(proto.data_to_send())
        sock.sendall(data[: max(1, int(len(data) * cut))])
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    # the socket is closed with a reset: no close frame, no end of the frame


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A room's state without what belongs to one process (who is connected here, who watches, how
    long a seat has been left empty here)."""
    return {k: v for k, v in state.items() if k not in ("seats", "watchers", "thinking", "away")}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(plan=rounds)
def test_fuzzed_frames_from_several_clients_leave_the_room_sound_and_stored(
    servers: Servers, plan: list[dict[str, Any]]
) -> None:
    live = servers.live
    created = live.http.post("/api/rooms", json={"game": "tictactoe"}).json()
    room = created["room"]
    secret = created["invite"].split("invite=")[1]
    white = live.http.post(f"/api/rooms/{room}/join", json={"invite": secret}).json()["token"]
    clients = [
        Client("black", created["tokens"]["black"], live.port, room),
        Client("white", white, live.port, room),
        Client("spectator", None, live.port, room),
    ]
    try:
        for client in clients:
            assert any(f["type"] == "state" for f in client.open())
        for step in plan:
            note(f"round: {step}")
            if step["kind"] == "round":
                sent = []
                for client, spec in zip(clients, step["frames"]):
                    if spec is None:
                        continue
                    payload, expect, seq = _payload(client, spec)
                    client.send(payload)
                    sent.append((client, payload, expect, seq))
                for client, payload, expect, seq in sent:
                    _check_answer(client, expect, seq, client.until_pong(ping=expect != "ping"), payload)
            elif step["kind"] == "reconnect":
                client = clients[step["who"]]
                client.close()
                version = live.http.get(f"/api/rooms/{room}").json()["version"]
                since = {
                    "current": client.version,
                    "stale": max(0, client.version - step["back"]),
                    "zero": 0,
                    "future": version + 1 + step["back"],
                    "none": None,
                }[step["since"]]
                _check_replay(client, since, client.open(since), version)
            elif step["kind"] == "vanish":
                who = clients[step["who"]]
                _vanish(live.port, room, who.token, step["cut"])
            elif step["kind"] == "stranger":
                stranger = Client("stranger", None, live.port, room)
                stranger.conn = connect(f"ws://127.0.0.1:{live.port}/api/rooms/{room}/ws", open_timeout=30)
                stranger.send(step["text"])  # before any hello: even a ping would be refused
                got = json.loads(stranger.conn.recv(timeout=60))
                assert got.get("code") == ("no_hello" if step["text"].startswith('{"type"') else "bad_frame"), got
                stranger.close()
            else:  # a frame over the transport's limit: the connection is closed, the room goes on
                stranger = Client("stranger", None, live.port, room)
                stranger.conn = connect(
                    f"ws://127.0.0.1:{live.port}/api/rooms/{room}/ws", open_timeout=30, max_size=None
                )
                stranger.send('{"type":"hello"}')
                stranger.send("x" * (TRANSPORT_LIMIT + 1))
                with pytest.raises(ConnectionClosed):
                    stranger.until_pong()
                # 1009 (message too big), or 1006 when the server's close overtakes the rest of the frame
                assert stranger.conn.close_code in (1009, 1006)
                stranger.close()
        for client in clients:
            client.until_pong()  # everything sent so far is answered (and so committed)
    finally:
        for client in clients:
            client.close()
    assert live.http.get("/healthz").status_code == 200
    trouble = [line for line in servers.new_log_lines() if "Traceback" in line or "ERROR" in line or "Exception" in line]
    assert trouble == [], trouble
    live_state = live.http.get(f"/api/rooms/{room}").json()
    rebuilt = servers.rebuilder.http.get(f"/api/rooms/{room}").json()
    assert _comparable(rebuilt) == _comparable(live_state)
    assert rebuilt["moves"] == live_state["moves"] and rebuilt["version"] == live_state["version"]
