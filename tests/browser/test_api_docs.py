"""``/docs`` (issue 33.5): the API's documentation page renders the operations of ``/v1/openapi.json`` in the
browser, with every file from the local server — nothing from a CDN or any other origin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.functional.local.support import LocalServer


@pytest.fixture
def docs(browser: BrowserContext, server: LocalServer) -> Iterator[tuple[Page, list[str]]]:
    page = browser.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.goto(f"{server.base}/docs")
        yield page, requested
    finally:
        page.close()


def test_the_docs_page_renders_the_apis_operations(docs: tuple[Page, list[str]]) -> None:
    page, _ = docs
    runs = page.locator(".opblock-get", has=page.locator(".opblock-summary-path", has_text="/v1/runs")).first
    expect(runs).to_be_visible()
    expect(page.locator(".opblock-summary-path[data-path='/v1/agents/{agent_id}']").first).to_be_visible()
    expect(page.locator(".opblock")).to_have_count(len(_operations(page)))


def _operations(page: Page) -> list[str]:
    document = page.request.get(page.url.replace("/docs", "/v1/openapi.json")).json()
    return [f"{method} {path}" for path, item in document["paths"].items() for method in item]


def test_every_file_of_the_page_comes_from_the_local_server(docs: tuple[Page, list[str]], server: LocalServer) -> None:
    page, requested = docs
    expect(page.locator(".opblock").first).to_be_visible()
    assert requested and all(url.startswith(server.base + "/") for url in requested), requested
