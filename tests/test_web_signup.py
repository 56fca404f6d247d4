# ruff: noqa: F811  (the fixtures imported from test_web are parameters of the tests below)
"""Browser test of the sign-up dialog: it states the name and password rules, and each
refusal (the browser's own check of the name, the server's of the password) says the rule."""

from __future__ import annotations

import secrets

import httpx
import pytest
from playwright.sync_api import Browser, Route, expect

from test_web import (  # noqa: F401  (fixtures are found by name)
    STEP_TIMEOUT_MS,
    PageErrors,
    base_url,
    browser,
    shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser"), pytest.mark.timeout(300)]
ENGINES = False  # no computer player here: the server's workers load no engine (test_web.base_url)


@pytest.mark.parametrize(
    "screen",
    [{"viewport": {"width": 1280, "height": 800}},
     {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}],
    ids=["desktop", "phone"],
)
def test_sign_up_states_the_rules_and_refuses_a_common_password_saying_why(
    browser: Browser, base_url: str, screen: dict[str, object]
) -> None:
    errors = PageErrors()
    ctx = browser.new_context(**screen)  # type: ignore[arg-type]
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = errors.watch(ctx.new_page())
        page.goto(base_url + "/lobby")
        page.get_by_role("button", name="Sign in").click()
        dialog = page.locator("#account-dialog")
        expect(dialog.locator("#account-rules")).to_contain_text("3 to 20 letters, digits, - or _")
        expect(dialog.locator("#account-rules")).to_contain_text("hard to guess")
        name = dialog.get_by_label("Name")
        name.fill("has space")
        dialog.get_by_label("Password").fill("password")
        dialog.get_by_role("button", name="Sign up").click()
        # the browser's own refusal of the name carries the field's title: the rule, not only
        # "Please match the requested format"
        assert "3 to 20 letters, digits, - or _" in name.evaluate("(el) => el.validationMessage")
        name.fill(f"pw_{secrets.token_hex(3)}")
        dialog.get_by_role("button", name="Sign up").click()
        error = dialog.locator("#account-error")
        expect(error).to_contain_text("This password is too easy to guess")
        expect(error).to_contain_text("three or four unrelated words work well")
        expect(page.locator("#account-name")).to_have_count(0)
        shot(page, f"signup-weak-password-{'phone' if screen.get('is_mobile') else 'desktop'}")
        dialog.get_by_label("Password").fill("short")
        dialog.get_by_role("button", name="Sign up").click()
        expect(error).to_contain_text("a password is 8 to 200 characters")
        expect(error).not_to_contain_text("String should")
        dialog.get_by_label("Password").fill("correct horse battery")
        dialog.get_by_role("button", name="Sign up").click()
        expect(page.locator("#account-name")).to_be_visible()
        assert errors.errors == []
    finally:
        ctx.close()


def test_a_session_check_that_gets_no_answer_is_asked_again_and_the_page_shows_the_account(
    browser: Browser, base_url: str
) -> None:
    name = f"rita{secrets.token_hex(3)}"
    client = httpx.Client(base_url=base_url, timeout=30)
    assert client.post("/api/accounts", json={"name": name, "password": "correct horse battery"}).status_code == 201
    ctx = browser.new_context()
    ctx.set_default_timeout(STEP_TIMEOUT_MS)
    ctx.add_cookies([{"name": "tabletop_session", "value": client.cookies["tabletop_session"], "url": base_url}])
    asked: list[str] = []

    def first_lost(route: Route) -> None:
        asked.append(route.request.method)
        if len(asked) == 1:
            route.abort("connectionreset")  # the first answer never comes
        else:
            route.continue_()

    try:
        ctx.route("**/api/session", first_lost)
        page = ctx.new_page()
        page.goto(base_url + "/lobby")
        expect(page.locator("#account-name")).to_have_text(name)
        expect(page.get_by_role("link", name="Tournaments")).to_be_visible()
        assert asked[:2] == ["GET", "GET"]
    finally:
        ctx.close()
        client.close()
