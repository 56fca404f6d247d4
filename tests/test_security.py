"""Security headers on every HTTP answer, the web app under its Content-Security-Policy,
and no invite secret or seat token in the server's logs.

The headers are read from a real ``tabletop serve``; the logs from a server run
by uvicorn at its most verbose level (``trace``: every request line, websocket
handshake and ASGI message), with a game played through it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from starlette.routing import Route
from websockets.sync.client import connect

from tabletop.server.app import create_app
from tabletop.server.routers import analysis, pages, rooms
from tabletop.server.security import DOCS_PATHS, DOCS_POLICY, PAGE_POLICY, redact
from test_server import ROOT, Server, Socket, free_port, online_room

WEB = ROOT / "src" / "tabletop" / "server" / "web"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("security") / "rooms.db")
    try:
        yield s
    finally:
        s.stop()


def _assert_secured(response: httpx.Response) -> None:
    where = f"{response.request.method} {response.request.url.path} ({response.status_code})"
    assert response.headers.get("x-content-type-options") == "nosniff", where
    assert response.headers.get("referrer-policy") == "no-referrer", where
    policy = response.headers.get("content-security-policy")
    assert policy, where
    # FastAPI's API documentation pages load Swagger UI / ReDoc from their CDN; every other answer is the page's
    assert policy == (DOCS_POLICY if response.request.url.path in DOCS_PATHS else PAGE_POLICY), where


def test_every_page_and_api_answer_carries_the_security_headers(server: Server) -> None:
    room, _black, white = online_room(server)
    # every GET route of the application, its rooms, records and page, with this room for its path parameter
    paths = {"/web/app.js", "/web/style.css", "/web/index.html", "/web/board.js"}
    for route in [*create_app().routes, *(r for m in (rooms, analysis, pages) for r in m.router.routes)]:
        if isinstance(route, APIRoute | Route) and "GET" in (route.methods or ()):
            paths.add(route.path.replace("{room_id}", room))
    assert {"/", f"/play/{room}", f"/api/rooms/{room}", "/openapi.json", "/docs"} <= paths
    answers = [server.http.get(path) for path in sorted(paths)]
    # a path still naming a parameter (a player, a pool) names nothing that exists: its page says so
    expected = {path: 404 if "{" in path else 200 for path in paths}
    assert all(a.status_code == expected[a.url.path] for a in answers), [(a.url.path, a.status_code) for a in answers]
    answers += [
        server.http.post("/api/rooms", json={"game": "tictactoe"}),
        server.http.post("/api/rooms", json={"game": "chess"}),  # 422
        server.http.post(f"/api/rooms/{room}/join", json={"invite": "wrong"}),  # 403
        server.http.post(f"/api/rooms/{room}/join", json={"invite": white}),  # 403
        server.http.get("/api/rooms/nosuchroom"),  # 404 from the application
        server.http.get("/no/such/page"),  # 404 from the router
        server.http.delete("/api/rooms"),  # 405
        server.http.get(f"/api/rooms/{room}/record", params={"format": "psq"}),  # 400: not for tictactoe
        server.http.get(f"/api/rooms/{room}/record", params={"format": "nope"}),  # 422
    ]
    assert {a.status_code for a in answers} >= {200, 201, 400, 403, 404, 405, 422}
    for answer in answers:
        _assert_secured(answer)


def test_the_page_has_no_inline_script_or_style_the_policy_would_block() -> None:
    html = (WEB / "index.html").read_text()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S | re.I)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=|javascript:", html, flags=re.I)
    for path in WEB.glob("*.js"):
        code = path.read_text()
        assert not re.search(r"\beval\(|new Function\(|setAttribute\(\s*[\"']style|\.innerHTML\s*=\s*`[^`]*<script", code), path
    # the policy names no host but the page's own and allows no inline code
    assert "unsafe-inline" not in PAGE_POLICY and "unsafe-eval" not in PAGE_POLICY
    assert "http" not in PAGE_POLICY


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_the_web_app_plays_a_game_under_its_policy_without_a_violation(server: Server, chromium: Any) -> None:
    from test_web import play, start_game, wait_turn_or_end

    # the test process's chromium (conftest.py), which closes the page's context when it is given back
    with chromium.lend() as browser:
        page = browser.new_page()
        page.set_default_timeout(45_000)
        # the browser reports every blocked script, style, image or connection as this event
        page.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text))
        start_game(page, server.url, "tictactoe", "computer", level="1")
        plies = 0
        while not (state := wait_turn_or_end(page))["outcome"]:
            play(page, state["legal"][0])
            plies += 1
            assert plies <= 5
        assert page.locator("#board svg").count() == 1  # drawn by the page's own module
        violations = page.evaluate("() => window.__violations")
        assert violations == [], violations
        assert not [m for m in console if "Content Security Policy" in m], console


def test_redaction_hides_query_secrets_and_keeps_the_rest() -> None:
    line = '127.0.0.1:5 - "GET /play/abc?invite=S3cr-t_x&lang=en HTTP/1.1" 200'
    assert redact(line) == '127.0.0.1:5 - "GET /play/abc?invite=[redacted]&lang=en HTTP/1.1" 200'
    assert redact("/api/rooms/r/ws?batch=1&token=abc") == "/api/rooms/r/ws?batch=1&token=[redacted]"
    assert redact("/api/rooms/r/ws?batch=1") == "/api/rooms/r/ws?batch=1"
    # websocket frames, as debug logging shows them
    frame = '< TEXT \'{"type": "hello", "tokens": ["a1b2", "c3d4"], "since": 3}\' [60 bytes]'
    assert redact(frame) == '< TEXT \'{"type": "hello", "tokens": "[redacted]", "since": 3}\' [60 bytes]'
    assert redact('{"kind":"rematch_started","tokens":{"white":"zz9"}}') == '{"kind":"rematch_started","tokens":"[redacted]"}'
    assert "s3cret" not in redact('> TEXT \'{"type":"hello","token":"s3cret...\' [900 bytes]')  # cut short


# a server run by uvicorn at its most verbose: request lines, handshakes, ASGI messages
_VERBOSE_SERVER = """
import sys, uvicorn
from tabletop.server.app import create_app
from tabletop.server.settings import Settings
uvicorn.run(create_app(Settings(database=sys.argv[1])), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="trace", access_log=True)
"""


def test_invite_secrets_and_seat_tokens_never_reach_the_server_log(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", _VERBOSE_SERVER, f"sqlite:///{tmp_path / 'rooms.db'}", str(port)],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    secrets: list[str] = []
    try:
        deadline = time.monotonic() + 60
        with httpx.Client(base_url=base, timeout=10) as http:  # one client for the polls too (see test_server.Server)
            while True:
                try:
                    if http.get("/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    assert process.poll() is None and time.monotonic() < deadline, log_path.read_text()
                    time.sleep(0.1)
            created = http.post("/api/rooms", json={"game": "tictactoe"}).json()
            room, link = created["room"], created["invite"]
            invite = link.split("invite=")[1]
            black = created["tokens"]["black"]
            assert http.get(link).status_code == 200  # the guest opens the invite link, as a browser does
            white = http.post(f"/api/rooms/{room}/join", json={"invite": invite}).json()["token"]
            secrets += [invite, black, white]
            # a client that puts a token in the query: the log must not keep it either
            assert http.get(f"/api/rooms/{room}", params={"token": black}).status_code == 200
            players = []
            for token in (black, white):
                sock = Socket(connect(f"ws://127.0.0.1:{port}/api/rooms/{room}/ws?invite={invite}"))
                sock.hello(token)
                players.append(sock)
            for seq, (player, move) in enumerate(zip([0, 1, 0, 1, 0], ["a1", "b1", "a2", "b2", "a3"]), 1):
                players[player].send({"type": "move", "move": move, "seq": (seq + 1) // 2})
                players[player].ack((seq + 1) // 2)
            assert players[1].event("game_ended")["event"]["outcome"]["winner"] == "black"
            for sock in players:
                sock.close()
            assert http.get(f"/api/rooms/{room}/record").status_code == 200
            assert http.get(f"/api/rooms/{room}").json()["outcome"]["winner"] == "black"
    finally:
        process.terminate()
        process.wait(timeout=20)
    text = log_path.read_text(errors="replace")
    # the game went through the log: request lines, the handshakes, the frames' ASGI messages
    assert f'"GET /play/{room}?invite=[redacted] HTTP/1.1" 200' in text, text[-3000:]
    assert f"/api/rooms/{room}?token=[redacted]" in text
    assert "WebSocket" in text and "websocket.receive" in text
    leaks = [line for line in text.splitlines() if any(secret in line for secret in secrets)]
    assert leaks == [], f"secrets in the log: {json.dumps(leaks[:5])}"
