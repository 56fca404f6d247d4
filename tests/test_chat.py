"""Chat in online rooms (issue 44): the players' chat and the spectators', their limits, and the
chat kept with the game (``chat`` frames on the room socket, ``GET /api/rooms/{id}/chat``).

The app runs in this process (FastAPI's TestClient) on a SQLite file, so a restart is a second
app on the same file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tabletop.server.app import create_app
from tabletop.server.chat import MAX_LENGTH, RATE, WINDOW, guest_handle
from tabletop.server.settings import Settings
from test_lobby import PASSWORD

Frame = dict[str, Any]
GUEST_KEY = "k" * 16


def new_app(database: Path) -> TestClient:
    return TestClient(create_app(Settings(database=f"sqlite:///{database}", workers=1)))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with new_app(tmp_path_factory.mktemp("chat") / "chat.db") as c:
        yield c


def online_room(client: TestClient) -> tuple[str, dict[str, str]]:
    """A new online Tic-tac-toe room with both seats taken: its id and the tokens by colour."""
    created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "online"}).json()
    invite = parse_qs(urlparse(created["invite"]).query)["invite"][0]
    joined = client.post(f"/api/rooms/{created['room']}/join", json={"invite": invite}).json()
    return created["room"], {"black": created["tokens"]["black"], joined["seat"]: joined["token"]}


def until(ws: WebSocketTestSession, test: Callable[[Frame], bool], limit: int = 50) -> Frame:
    """The first frame that passes ``test`` (frames before it are skipped)."""
    for _ in range(limit):
        frame = ws.receive_json()
        if test(frame):
            return dict(frame)
    raise AssertionError(f"no such frame in {limit}")


def is_chat(frame: Frame) -> bool:
    return frame["type"] == "chat"


def is_error(frame: Frame) -> bool:
    return frame["type"] == "error"


def greet(ws: WebSocketTestSession, token: str | None = None) -> Frame:
    ws.send_json({"type": "hello"} if token is None else {"type": "hello", "token": token})
    return until(ws, lambda f: f["type"] == "state")


def said(ws: WebSocketTestSession) -> list[tuple[str, str, str]]:
    """The (channel, name, text) of the next chat frame's messages."""
    return [(m["channel"], m["name"], m["text"]) for m in until(ws, is_chat)["messages"]]


def test_players_chat_reaches_everyone_and_spectators_chat_reaches_the_players_only_after_the_game(
    client: TestClient,
) -> None:
    room, tokens = online_room(client)
    path = f"/api/rooms/{room}/ws"
    with client.websocket_connect(path) as black, client.websocket_connect(path) as white, \
            client.websocket_connect(path) as watcher, client.websocket_connect(path) as other:
        greet(black, tokens["black"])
        greet(white, tokens["white"])
        greet(watcher)
        greet(other)
        black.send_json({"type": "chat", "text": "good luck"})
        for ws in (black, white, watcher, other):
            assert said(ws) == [("players", "Black", "good luck")]
        watcher.send_json({"type": "chat", "text": "Black should take the centre", "guest": GUEST_KEY})
        for ws in (watcher, other):
            assert said(ws) == [("spectators", guest_handle(GUEST_KEY), "Black should take the centre")]
        white.send_json({"type": "chat", "text": "thanks, you too"})
        for ws in (black, white):  # the spectator's advice, sent first, never reached the players
            assert said(ws) == [("players", "White", "thanks, you too")]
        for ws in (watcher, other):
            assert said(ws) == [("players", "White", "thanks, you too")]
        # a player arriving during the game reads the players' chat only
        with client.websocket_connect(path) as again:
            greet(again, tokens["black"])
            assert said(again) == [("players", "Black", "good luck"), ("players", "White", "thanks, you too")]
        black.send_json({"type": "resign"})
        until(white, lambda f: f["type"] == "event" and f["event"]["kind"] == "game_ended")
        watcher.send_json({"type": "chat", "text": "well played", "guest": GUEST_KEY})
        for ws in (black, white, other):  # after the game the spectators' chat reaches the players too
            assert said(ws) == [("spectators", guest_handle(GUEST_KEY), "well played")]
        with client.websocket_connect(path) as again:
            greet(again, tokens["white"])
            assert [m[2] for m in said(again)] == [
                "good luck", "Black should take the centre", "thanks, you too", "well played"
            ]
    log = client.get(f"/api/rooms/{room}/chat").json()["messages"]
    assert [(m["channel"], m["seat"], m["text"]) for m in log] == [
        ("players", "black", "good luck"),
        ("spectators", None, "Black should take the centre"),
        ("players", "white", "thanks, you too"),
        ("spectators", None, "well played"),
    ]
    assert [m["id"] for m in log] == sorted(m["id"] for m in log)
    assert log[0]["author"] == f"{room}:black" and log[1]["author"] == guest_handle(GUEST_KEY)


def test_a_message_is_kept_as_plain_text_without_control_or_reordering_characters(client: TestClient) -> None:
    room, tokens = online_room(client)
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black:
        greet(black, tokens["black"])
        black.send_json({"type": "chat", "text": ' <b onclick="x()">hi</b>\n\tthere\x00\x1b[31m \u202egg\u2028 '})
        assert said(black) == [("players", "Black", '<b onclick="x()">hi</b> there[31m gg')]


def test_too_long_empty_and_too_fast_messages_are_refused_naming_the_rule(client: TestClient) -> None:
    room, tokens = online_room(client)
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black:
        greet(black, tokens["black"])
        black.send_json({"type": "chat", "text": "x" * (MAX_LENGTH + 1)})
        error = until(black, is_error)
        assert error["code"] == "chat_too_long"
        assert f"at most {MAX_LENGTH} characters" in error["message"]
        for blank in (" \n\x07 ", "\u200b\u200d"):
            black.send_json({"type": "chat", "text": blank})
            assert until(black, is_error)["code"] == "chat_empty"
        black.send_json({"type": "chat", "text": "x" * MAX_LENGTH})  # exactly the limit is fine
        assert said(black) == [("players", "Black", "x" * MAX_LENGTH)]
        for n in range(RATE):
            black.send_json({"type": "chat", "text": f"message {n}"})
        frames = [until(black, lambda f: is_chat(f) or is_error(f)) for _ in range(RATE)]
        assert [f["type"] for f in frames] == ["chat"] * (RATE - 1) + ["error"]
        assert frames[-1]["code"] == "chat_too_fast"
        assert frames[-1]["message"].startswith(f"at most {RATE} chat messages in {WINDOW:g} seconds")
    log = client.get(f"/api/rooms/{room}/chat").json()["messages"]
    assert len(log) == RATE, "refused messages are not kept"


def test_a_game_at_one_screen_has_no_chat(client: TestClient) -> None:
    created = client.post("/api/rooms", json={"game": "tictactoe", "mode": "local"}).json()
    with client.websocket_connect(f"/api/rooms/{created['room']}/ws") as ws:
        ws.send_json({"type": "hello", "tokens": list(created["tokens"].values())})
        ws.send_json({"type": "chat", "text": "hello"})
        error = until(ws, is_error)
    assert error["code"] == "chat_not_allowed"
    assert "online games" in error["message"]


def test_a_bad_chat_frame_is_refused_by_its_shape(client: TestClient) -> None:
    room, tokens = online_room(client)
    with client.websocket_connect(f"/api/rooms/{room}/ws") as ws:
        greet(ws)
        ws.send_json({"type": "chat", "text": 7})
        assert until(ws, is_error)["code"] == "bad_frame"
        ws.send_json({"type": "chat", "text": "hi", "guest": "short"})
        assert until(ws, is_error)["code"] == "bad_frame"


def test_guest_spectators_get_a_handle_from_their_browsers_key_that_nobody_else_can_take(
    client: TestClient,
) -> None:
    room, _ = online_room(client)
    path = f"/api/rooms/{room}/ws"
    with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
        greet(one)
        greet(two)
        one.send_json({"type": "chat", "text": "first", "guest": GUEST_KEY})
        two.send_json({"type": "chat", "text": "second", "guest": "g" * 16})
        one.send_json({"type": "chat", "text": "third"})  # a page that keeps no key gets one per connection
        two.send_json({"type": "chat", "text": "fourth"})
        frames = [until(one, lambda f: f["type"] in ("chat", "chat_sent")) for _ in range(6)]
    authors = [m["author"] for f in frames if f["type"] == "chat" for m in f["messages"]]
    assert authors[0] == guest_handle(GUEST_KEY) and authors[1] == guest_handle("g" * 16)
    assert len(set(authors)) == 4 and all(a.startswith("guest-") for a in authors)
    # the sender is told which author it writes as (its page offers no mute of itself)
    assert [f["author"] for f in frames if f["type"] == "chat_sent"] == [authors[0], authors[2]]


def test_the_chat_is_read_back_from_the_database_by_a_fresh_server(
    client: TestClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A second app on the same database holds nothing in memory, as after a restart."""
    room, tokens = online_room(client)
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black:
        greet(black, tokens["black"])
        black.send_json({"type": "chat", "text": "before the restart"})
        said(black)
    database = Path(str(client.app.state.settings.database).removeprefix("sqlite:///"))  # type: ignore[attr-defined]
    with new_app(database) as fresh:
        assert [m["text"] for m in fresh.get(f"/api/rooms/{room}/chat").json()["messages"]] == [
            "before the restart"
        ]
        with fresh.websocket_connect(f"/api/rooms/{room}/ws") as white:
            greet(white, tokens["white"])
            assert said(white) == [("players", "Black", "before the restart")]
        assert fresh.get("/api/rooms/nosuchroom/chat").status_code == 404


def test_signed_in_players_and_spectators_chat_under_their_names(client: TestClient) -> None:
    room, tokens = online_room(client)
    other, _ = online_room(client)
    answer = client.post("/api/accounts", json={"name": "alice", "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    try:  # the module's client is alice's browser now
        with client.websocket_connect(f"/api/rooms/{room}/ws") as black:
            greet(black, tokens["black"])
            black.send_json({"type": "chat", "text": "hello"})
            assert [(m["name"], m["author"]) for m in until(black, is_chat)["messages"]] == [("alice", "@alice")]
        with client.websocket_connect(f"/api/rooms/{other}/ws") as watching:
            greet(watching)
            watching.send_json({"type": "chat", "text": "hi all", "guest": GUEST_KEY})
            assert said(watching) == [("spectators", "alice", "hi all")]
    finally:
        client.cookies.clear()


def test_a_room_made_by_this_server_reads_no_chat_from_the_database_when_its_players_arrive(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tabletop.server.chat as chat_module

    reads: list[str] = []  # the rooms whose messages were read from the database
    read_chat = chat_module.read_chat

    def counted(conn: Any, room_id: str) -> list[dict[str, Any]]:
        reads.append(room_id)
        return read_chat(conn, room_id)

    monkeypatch.setattr(chat_module, "read_chat", counted)
    room, tokens = online_room(client)
    with client.websocket_connect(f"/api/rooms/{room}/ws") as black, client.websocket_connect(
        f"/api/rooms/{room}/ws"
    ) as white:
        black.send_json({"type": "hello", "token": tokens["black"]})
        until(black, lambda f: f["type"] == "state")
        white.send_json({"type": "hello", "token": tokens["white"]})
        until(white, lambda f: f["type"] == "state")
        white.send_json({"type": "chat", "text": "hello"})
        assert until(black, is_chat)["messages"][0]["text"] == "hello"
    assert room not in reads  # the room is new: it has no messages to read (a loaded room reads them)
