"""The web console in a real browser: Debian's Chromium driven by Playwright, against the real local server.

One local server (a fresh data folder, an OS-assigned port) and one Chromium (a fresh profile) serve the
whole session. A test fails when the page throws or logs an error, so a broken view cannot pass.
``make browser-test`` installs Chromium with apt when it is missing; nothing is downloaded at run time
(Playwright's own browsers are never used).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, expect, sync_playwright

from tests.functional.local.support import Client, LocalServer

CHROMIUM = os.environ.get("MNEME_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: where the tests write their screenshots: build/screenshots (ignored by git) unless MNEME_SCREENSHOTS names
#: a folder — `make screenshots` points it at docs/screenshots, the set the README shows
SCREENSHOTS = Path(os.environ.get("MNEME_SCREENSHOTS") or Path(__file__).resolve().parents[2] / "build" / "screenshots")
VIEWPORT = {"width": 1280, "height": 860}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    running = LocalServer(Path(tmp_path_factory.mktemp("console-data"))).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def alice_token(server: LocalServer) -> str:
    return server.token("alice")


@pytest.fixture(scope="session")
def alice(server: LocalServer, alice_token: str) -> Client:
    return Client(server, alice_token)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `make browser-test` installs Debian's chromium", pytrace=False)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    context = playwright_driver.chromium.launch_persistent_context(
        str(profile),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_FLAGS,
        viewport=VIEWPORT,  # type: ignore[arg-type]
        locale="en-US",
        timezone_id="UTC",
    )
    context.set_default_timeout(15_000)
    try:
        yield context
    finally:
        context.close()


class Console:
    """A page of the console with the errors it raised (checked after every test)."""

    def __init__(self, page: Page, server: LocalServer) -> None:
        self.page = page
        self.base = server.base
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("console", self._console)
        page.on("dialog", lambda dialog: dialog.accept())

    def _console(self, message: Any) -> None:
        # a 4xx the console shows inline is logged by Chromium as a failed resource load: expected
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(f"console error: {message.text}")

    def open(self, hash_path: str = "#/runs", token: str | None = None) -> Page:
        fragment = f"#token={token}" if token else hash_path
        self.page.goto(f"{self.base}/{fragment}")
        if token and hash_path != "#/runs":
            self.page.locator("[data-testid=user]").wait_for()
            self.page.goto(f"{self.base}/{hash_path}")
        self.page.locator("main h1").first.wait_for()
        return self.page

    def go(self, hash_path: str) -> Page:
        """Open a view afresh (a reload when it is the current one: the same hash is no navigation)."""
        if self.page.url.endswith(hash_path):
            self.page.reload()
        else:
            self.page.goto(f"{self.base}/{hash_path}")
        self.page.locator("main h1").first.wait_for()
        return self.page

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        return path


@pytest.fixture
def console(browser: BrowserContext, server: LocalServer) -> Iterator[Console]:
    page = browser.new_page()  # a new tab: its own sessionStorage, so a new sign-in
    view = Console(page, server)
    try:
        yield view
    finally:
        page.close()
    assert view.errors == [], view.errors


@pytest.fixture
def signed_in(console: Console, alice_token: str) -> Console:
    console.open("#/runs", token=alice_token)
    return console


def fresh_user(server: LocalServer, console: Console, hash_path: str = "#/runs") -> tuple[Client, str]:
    """A fresh user (a random id: tests on the shared server never see each other's data), signed in."""
    user = f"user-{uuid.uuid4().hex[:8]}"
    client = Client(server, server.token(user))
    console.open(hash_path, token=client.token)
    expect(console.page.get_by_test_id("user")).to_have_text(user)
    return client, user
