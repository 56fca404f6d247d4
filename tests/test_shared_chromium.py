"""The test process's one chromium (conftest.py's ``chromium``, ``test_web.SharedChromium``): each
browser file borrows the same browser, finds no context another file left open, and the tests
between browser files can use asyncio (Playwright's sync API marks its loop as the running one)."""

from __future__ import annotations

import asyncio

import pytest

from test_web import SharedChromium

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_a_file_after_a_browser_file_gets_the_same_chromium_without_its_pages_and_can_use_asyncio(
    chromium: SharedChromium,
) -> None:
    with chromium.lend() as first:
        page = first.new_page()  # a context of its own, left open on purpose
        page.set_content("<p id='said'>one</p>")
        assert page.inner_text("#said") == "one"
    assert asyncio.run(_answer()) == 42
    with chromium.lend() as again:
        assert again is first and again.is_connected()
        assert again.contexts == []
        page = again.new_page()
        page.set_content("<p id='said'>two</p>")
        assert page.inner_text("#said") == "two"
        page.context.close()
    assert asyncio.run(_answer()) == 42
