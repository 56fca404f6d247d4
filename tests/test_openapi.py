"""The REST API answers as ``/openapi.json`` says: schemathesis fuzzes a live server.

A ``tabletop serve`` process on a free port of 127.0.0.1 with its own SQLite
file; schemathesis (its CLI, in a subprocess) reads the document from it and
runs every check through its coverage, fuzzing and stateful phases: each status
a route answers is documented, each body matches its schema, bad input is
refused with a 4xx, nothing ends in a 5xx, and a room created by ``POST
/api/rooms`` is there for the routes its OpenAPI links name.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import get_args

from fastapi.testclient import TestClient

from tabletop import records
from tabletop.server.app import create_app
from tabletop.server.models import RecordFormat
from tabletop.server.settings import Settings
from test_server import Server

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")  # narrows the allowance below to its codes
EXAMPLES = 25  # per operation and phase: the run stays near a minute on two busy cores

# A 400 for data the schema admits, where no JSON Schema can say what is refused: a position
# that does not fit the board its options make, a move the rules refuse, a record format
# that cannot hold the room's game (its game is the room's state, not the request's), a record
# whose text its format's reader refuses, a new password the strength estimator finds easy to guess,
# a tournament's start too far from now or an arena without its length (a swiss without its rounds).
CONFIG = """
[[operations]]
include-operation-id = ["create_room", "analyse", "room_record", "post_seek", "play_now", "accept_seek", "import_record",
                        "sign_up", "challenge", "create_tournament"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

# signing out would end the session every other signed-in route is fuzzed with (test_accounts.py has it)
[[operations]]
include-operation-id = ["sign_out"]
enabled = false

# a bot never posts a seek, so turning the fuzzing account into one would change what the other routes
# answer; a bot's event stream never ends (tests/test_bots.py reads it, and turns accounts into bots)
[[operations]]
include-operation-id = ["become_bot", "bot_stream"]
enabled = false

# a challenge names a player, and answering one needs the challenged player's session, which one
# fuzzing session has not (404 unknown_player / unknown_challenge, documented); tests/test_bots.py
[[operations]]
include-operation-id = ["challenge", "view_challenge", "accept_challenge", "decline_challenge", "cancel_challenge",
                        "take_my_seat"]
warnings = false

# a tournament's start is checked against the clock, and its length or rounds against its kind (400
# bad_tournament); the other routes need an id only the stateful phase's create_tournament makes (404
# unknown_tournament, documented); tests/test_tournaments.py covers them
[[operations]]
include-operation-id = ["create_tournament", "view_tournament", "join_tournament", "leave_tournament",
                        "finish_tournament"]
warnings = false

# accepting needs a second player and collecting a seat an accepted seek, which one fuzzing session
# cannot make; most generated seeks name options that make no board (test_lobby.py covers all three)
[[operations]]
include-operation-id = ["post_seek", "accept_seek", "collect_seat"]
warnings = false

# a room's record, joining and the analysis routes need a room id that only the stateful phase's
# create_room makes; the other phases draw ids at random (404 unknown_room, a documented answer),
# which schemathesis reports as missing test data once the budget is shared with more operations;
# their checks still run
[[operations]]
include-operation-id = ["room_record", "room_openings", "join_room", "room_analysis", "start_room_analysis",
                        "cancel_room_analysis"]
warnings = false

# most generated text is no record (400 bad_record, a documented answer), which schemathesis
# reports as a schema mismatch; tests/test_records_import.py reads every format
[[operations]]
include-operation-id = ["import_record"]
warnings = false

# most generated passwords are easy to guess (400 weak_password, a documented answer), which
# schemathesis reports as a schema mismatch; tests/test_accounts.py signs up with good and weak ones
[[operations]]
include-operation-id = ["sign_up"]
warnings = false
"""


def test_the_record_formats_the_api_documents_are_the_ones_it_writes() -> None:
    assert list(get_args(RecordFormat)) == records.formats()


def test_every_error_a_route_documents_is_the_one_error_body() -> None:
    document = create_app().openapi()
    assert "HTTPValidationError" not in document["components"]["schemas"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            answers = operation["responses"]
            assert any(status.startswith("2") for status in answers), (method, path)
            for status, answer in answers.items():
                if status.startswith(("4", "5")):
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, status)


def test_a_method_a_path_does_not_serve_is_a_405_that_names_every_method_it_does() -> None:
    with TestClient(create_app(Settings(workers=1))) as client:
        refused = client.request("OPTIONS", "/api/rooms")
        assert refused.status_code == 405
        assert refused.headers["allow"] == "GET, HEAD, POST"
        assert refused.json() == {
            "code": "method_not_allowed",
            "message": "Method Not Allowed",
            "detail": "Method Not Allowed",
        }
        missing = client.get("/api/rooms/nosuchroom")
        assert missing.status_code == 404 and missing.json()["code"] == "unknown_room"
        shapeless = client.post("/api/rooms", json={"game": "chess"})
        assert shapeless.status_code == 422 and set(shapeless.json()) == {"code", "message", "detail"}
        assert shapeless.json()["message"].startswith("game: ")


def test_schemathesis_finds_nothing_against_a_live_server(tmp_path: Path) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    server = Server(tmp_path / "fuzz.db", "--workers", "1")
    try:
        for game in ("reversi", "gomoku", "tictactoe"):  # the worker loads each engine before it is timed
            warm = server.http.post("/api/analyse", json={"game": game, "seconds": 0.1}, timeout=300)
            assert warm.status_code == 200, warm.text
        # a signed-in player, so that the routes that act for one are fuzzed past their 401
        signed = server.http.post("/api/accounts", json={"name": "fuzzer", "password": "fuzzer password"})
        assert signed.status_code == 201, signed.text
        done = subprocess.run(
            [
                SCHEMATHESIS,
                "--config-file",
                str(config),
                "--no-color",
                "run",
                f"{server.url}/openapi.json",
                "--checks",
                "all",
                "--phases",
                "coverage,fuzzing,stateful",
                "--max-examples",
                str(EXAMPLES),
                "--seed",
                "20261125",
                "--workers",
                "1",
                "--request-timeout",
                "60",
                "--max-response-time",  # `--checks all` times every answer; an analysis may search 10 s
                "30",
                "--header",
                f"Cookie: tabletop_session={signed.cookies['tabletop_session']}",
            ],
            env={**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)},
            cwd=tmp_path,  # its crash cache (.schemathesis/) stays out of the checkout and out of the next run
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        server.stop()
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-6000:]
    assert "No issues found" in out, out[-6000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in out, f"the {phase} phase did not run and pass:\n{out[-3000:]}"
    generated = re.search(r"(\d+) generated", out)
    assert generated is not None and int(generated[1]) >= 100, out[-3000:]


def test_an_unreadable_body_and_a_failure_inside_are_the_one_error_body_too() -> None:
    app = create_app(Settings(workers=1))

    @app.get("/boom", include_in_schema=False)
    async def boom() -> None:
        raise RuntimeError("a bug")

    with TestClient(app, raise_server_exceptions=False) as client:
        failed = client.get("/boom")
        assert failed.status_code == 500 and failed.json()["code"] == "server_error"
        assert "a bug" not in failed.text  # nothing of the inside reaches the client
        unreadable = client.post(
            "/api/rooms/x/join", content=b"\xff\xfe{", headers={"content-type": "application/json"}
        )
        assert unreadable.status_code == 400 and unreadable.json()["code"] == "bad_request"  # not even text
        assert set(unreadable.json()) == {"code", "message", "detail"}
