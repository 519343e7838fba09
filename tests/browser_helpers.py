"""What the Chromium tests of ``carioca serve`` share: the browser, a fresh page per test
(1,280 px wide unless parametrized with another width) that fails the test on any
JavaScript error, and the check that a page fits its window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from web_helpers import CHROMIUM_ARGS

#: Debian's chromium when installed (``make browser``), else Playwright's own
CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
#: how long a page may take to show what a test waits for
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium for a test module."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page, 1,280 px wide unless the test is parametrized with another width."""
    width = getattr(request, "param", 1280)
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def fits(page: Page) -> None:
    """No horizontal overflow: the page is no wider than the window."""
    wide, window = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert wide <= window, f"{page.url}: {wide} px wide in a {window} px window"
