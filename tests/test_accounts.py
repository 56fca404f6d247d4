"""Accounts (server/accounts.py, routers/accounts.py): names, argon2 hashes, the session cookie,
sign-in limits, one answer for a wrong password and an unknown name, the one error body."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher, profiles
from fastapi.testclient import TestClient

from tabletop.server import accounts
from tabletop.server.accounts import AccountError, AttemptLimiter, check_name, check_password
from tabletop.server.app import create_app
from tabletop.server.settings import Settings

PASSWORD = "correct horse battery"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database=f"sqlite:///{tmp_path / 'a.db'}", workers=1))) as c:
        yield c


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, object]:
    answer = client.post("/api/accounts", json={"name": name, "password": password})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


@pytest.mark.parametrize("name", ["abc", "A-b_9", "x" * 20, "Zed-2000"])
def test_good_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["ab", "x" * 21, "has space", "dot.name", "émile", "semi;colon", ""])
def test_bad_names_are_refused_with_one_line(name: str) -> None:
    with pytest.raises(AccountError, match="3 to 20 letters, digits") as caught:
        check_name(name)
    assert caught.value.code == "bad_name" and caught.value.status == 400


def test_sign_up_sets_an_httponly_samesite_cookie_and_answers_only_the_name(client: TestClient) -> None:
    answer = client.post("/api/accounts", json={"name": "Alice", "password": PASSWORD})
    assert answer.status_code == 201 and answer.json() == {"name": "Alice"}
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("tabletop_session=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert client.get("/api/session").json() == {"name": "Alice", "bot": False}


def test_the_password_is_stored_as_an_argon2_hash_and_the_session_as_a_sha256(client: TestClient) -> None:
    sign_up(client, "alice")
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        stored = conn.execute(sa.text("select password_hash from players")).scalar()
        session = conn.execute(sa.text("select token_hash from sessions")).scalar()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert len(session) == 64 and session != client.cookies.get("tabletop_session")


def test_passwords_are_hashed_at_argon2s_recommended_parameters_unless_the_environment_names_another() -> None:
    show = ("from tabletop.server.accounts import _hasher as h;"
            " print(h.time_cost, h.memory_cost, h.parallelism, h.hash_len, h.salt_len)")
    env = {k: v for k, v in os.environ.items() if k != accounts.PASSWORD_HASH_VARIABLE}
    recommended = profiles.RFC_9106_LOW_MEMORY
    for profile, expected in ((None, recommended), ("recommended", recommended), ("cheapest", profiles.CHEAPEST)):
        if profile is not None:
            env[accounts.PASSWORD_HASH_VARIABLE] = profile
        out = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == [str(v) for v in (expected.time_cost, expected.memory_cost, expected.parallelism,
                                                      expected.hash_len, expected.salt_len)], profile
    assert (recommended.time_cost, recommended.memory_cost, recommended.parallelism) == (3, 64 * 1024, 4)
    assert recommended == profiles.get_default_parameters()  # argon2-cffi's own default
    with pytest.raises(ValueError, match="TABLETOP_PASSWORD_HASH='md5': use one of recommended, cheapest"):
        accounts.password_hasher("md5")


def test_sign_up_and_in_work_at_the_recommended_parameters(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounts, "_hasher", accounts.password_hasher("recommended"))
    sign_up(client, "carol")
    engine = client.app.state.hub.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        stored = conn.execute(sa.text("select password_hash from players")).scalar()
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert PasswordHasher().verify(stored, PASSWORD)
    client.cookies.clear()
    assert client.post("/api/session", json={"name": "carol", "password": PASSWORD}).status_code == 200
    assert client.post("/api/session", json={"name": "carol", "password": "not the password"}).status_code == 401


def test_names_are_unique_regardless_of_case(client: TestClient) -> None:
    sign_up(client, "Alice")
    answer = client.post("/api/accounts", json={"name": "aLICE", "password": PASSWORD})
    assert answer.status_code == 409
    assert answer.json() == {"code": "name_taken", "message": "the name 'aLICE' is taken",
                             "detail": "the name 'aLICE' is taken"}


@pytest.mark.parametrize(("body", "where"), [
    ({"name": "ab", "password": PASSWORD}, "name:"), ({"name": "a b c", "password": PASSWORD}, "name:"),
    ({"name": "bob", "password": "short"}, "password:"),
])
def test_bad_sign_ups_get_the_one_error_body(client: TestClient, body: dict[str, str], where: str) -> None:
    # the schema states the name and password rules, so a bad one is the 422 of every bad body
    answer = client.post("/api/accounts", json=body)
    assert answer.status_code == 422 and answer.json()["code"] == "bad_request"
    assert answer.json()["message"].startswith(where) and set(answer.json()) == {"code", "message", "detail"}


def test_a_bad_name_or_password_length_is_refused_with_the_rule_in_words(client: TestClient) -> None:
    name = client.post("/api/accounts", json={"name": "has space", "password": PASSWORD}).json()["message"]
    short = client.post("/api/accounts", json={"name": "bob", "password": "short"}).json()["message"]
    assert name == "name: a name is 3 to 20 letters, digits, '-' or '_' (no spaces)"
    assert short.startswith("password: a password is 8 to 200 characters and hard to guess")
    assert "String should" not in name + short  # pydantic's words name no rule


@pytest.mark.parametrize("password", ["password", "password1", "qwertyuiop", "iloveyou2", "Alice2024!"])
def test_a_common_or_guessable_password_is_refused_and_says_why(client: TestClient, password: str) -> None:
    answer = client.post("/api/accounts", json={"name": "Alice", "password": password})
    assert answer.status_code == 400 and answer.json()["code"] == "weak_password", answer.text
    message = answer.json()["message"]
    assert message.startswith("this password is too easy to guess") and "three or four unrelated words" in message
    assert client.post("/api/accounts", json={"name": "Alice", "password": PASSWORD}).status_code == 201


def test_check_password_counts_the_name_as_a_known_word() -> None:
    with pytest.raises(AccountError, match="too easy to guess"):
        check_password("Grandmaster_Flash", "Grandmaster_Flash")
    assert check_password("Grandmaster_Flash", "bob") == "Grandmaster_Flash"


def test_an_extra_field_or_a_missing_password_is_a_422_in_the_same_shape(client: TestClient) -> None:
    for body in ({"name": "bob"}, {"name": "bob", "password": PASSWORD, "admin": True}):
        answer = client.post("/api/accounts", json=body)
        assert answer.status_code == 422 and answer.json()["code"] == "bad_request"


def test_sign_in_sign_out_and_who_am_i(client: TestClient) -> None:
    sign_up(client, "Alice")
    client.cookies.clear()
    signed_out = client.get("/api/session")
    assert signed_out.status_code == 200 and signed_out.json() == {"name": None, "bot": False}
    answer = client.post("/api/session", json={"name": "alice", "password": PASSWORD})
    assert answer.status_code == 200 and answer.json() == {"name": "Alice"}  # the name as it was chosen
    assert client.get("/api/session").json() == {"name": "Alice", "bot": False}
    token = client.cookies.get("tabletop_session")
    assert client.delete("/api/session").status_code == 204
    client.cookies.set("tabletop_session", token or "")
    assert client.get("/api/session").json() == {"name": None, "bot": False}  # the old cookie opens nothing


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(client: TestClient) -> None:
    sign_up(client, "alice")
    wrong = client.post("/api/session", json={"name": "alice", "password": "not the password"})
    unknown = client.post("/api/session", json={"name": "nobody", "password": "not the password"})
    malformed = client.post("/api/session", json={"name": "no body!", "password": "x"})
    assert wrong.status_code == unknown.status_code == malformed.status_code == 401
    assert wrong.json() == unknown.json() == malformed.json()
    assert "set-cookie" not in wrong.headers


def test_sign_in_is_limited_per_name(tmp_path: Path) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'a.db'}", workers=1))
    with TestClient(app) as client:
        sign_up(client, "alice")
        from tabletop.server.accounts import Accounts

        app.state.accounts = Accounts(app.state.hub.store, name_limit=(3, 600), address_limit=(100, 600))
        codes = [client.post("/api/session", json={"name": "ALICE", "password": "guess"}).status_code
                 for _ in range(4)]
        assert codes == [401, 401, 401, 429]
        # the right password is refused too while the name is limited; another name is not
        limited = client.post("/api/session", json={"name": "alice", "password": PASSWORD})
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert client.post("/api/session", json={"name": "bob", "password": "guess"}).status_code == 401


def test_sign_in_is_limited_per_address(tmp_path: Path) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'a.db'}", workers=1))
    with TestClient(app) as client:
        from tabletop.server.accounts import Accounts

        app.state.accounts = Accounts(app.state.hub.store, name_limit=(100, 600), address_limit=(3, 600))
        codes = [client.post("/api/session", json={"name": f"name{i}", "password": "guess"}).status_code
                 for i in range(4)]
        assert codes == [401, 401, 401, 429]


def test_the_limiter_forgets_attempts_older_than_its_window() -> None:
    now = [0.0]
    limiter = AttemptLimiter(2, 60, clock=lambda: now[0])
    assert limiter.allow("k") and limiter.allow("k") and not limiter.allow("k")
    now[0] = 60.5
    assert limiter.allow("k")


def test_no_password_reaches_the_logs(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        sign_up(client, "alice")
        client.post("/api/session", json={"name": "alice", "password": PASSWORD})
        client.post("/api/session", json={"name": "alice", "password": "wrong password"})
    assert PASSWORD not in caplog.text and "wrong password" not in caplog.text


def test_the_openapi_document_lists_the_account_routes_with_the_error_body(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    sign_in = document["paths"]["/api/session"]["post"]
    assert set(sign_in["responses"]) >= {"200", "401", "422", "429"}
    assert sign_in["responses"]["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"}
    assert "password" not in str(document["components"]["schemas"]["Me"])
