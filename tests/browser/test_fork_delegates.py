"""Fork delegation in the console (issue 35.4): the agent form lets a delegates entry's context be chosen —
`fork` is saved as `{agent, context: "fork"}` and shown as "fork" after a reload and in the agents list; `full`
stays the bare id it always was."""

from __future__ import annotations

import uuid
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client, LocalServer, wait_until


def _parent_and_writer(server: LocalServer, console: Console) -> tuple[Client, str]:
    """A fresh user with agents `parent` and `writer`, signed in to the console."""
    user = f"user-{uuid.uuid4().hex[:8]}"
    client = Client(server, server.token(user))
    for agent in ("parent", "writer"):
        client.call("PUT", f"/v1/agents/{agent}", {"label": agent}, expect=200)
    console.open("#/runs", token=client.token)
    expect(console.page.get_by_test_id("user")).to_have_text(user)
    return client, "parent"


def _save_delegate(console: Console, context: str) -> None:
    page = console.go("#/agents/parent")
    form = page.locator("[data-form=agent]")
    form.get_by_role("checkbox", name="writer").check()
    form.get_by_label("Context of writer").select_option(context)
    form.get_by_role("button", name="Save", exact=True).click()


def _stored_delegates(client: Client) -> Any:
    return wait_until(lambda: client.call("GET", "/v1/agents/parent", expect=200)["delegates"] or None)


def test_a_fork_entry_saved_in_the_form_is_stored_and_shown_as_fork(console: Console, server: LocalServer) -> None:
    client, _ = _parent_and_writer(server, console)
    _save_delegate(console, "fork")
    assert _stored_delegates(client) == [{"agent": "writer", "context": "fork"}]
    page = console.go("#/agents/parent")
    expect(page.get_by_label("Context of writer")).to_have_value("fork")
    expect(page.get_by_role("checkbox", name="writer")).to_be_checked()
    console.screenshot("agent-fork-delegate")
    page = console.go("#/agents")
    expect(page.locator("tr[data-agent=parent]").get_by_test_id("delegates")).to_have_text("writer (fork)")


def test_a_full_entry_stays_a_bare_id_and_shows_no_fork(console: Console, server: LocalServer) -> None:
    client, _ = _parent_and_writer(server, console)
    _save_delegate(console, "full")
    assert _stored_delegates(client) == ["writer"]
    page = console.go("#/agents/parent")
    expect(page.get_by_label("Context of writer")).to_have_value("full")
    page = console.go("#/agents")
    expect(page.locator("tr[data-agent=parent]").get_by_test_id("delegates")).to_have_text("writer")


def test_an_edit_keeps_a_stored_context_the_select_does_not_list(console: Console, server: LocalServer) -> None:
    client, _ = _parent_and_writer(server, console)
    stored = {"label": "parent", "delegates": [{"agent": "writer", "context": "tail:2"}]}
    client.call("PUT", "/v1/agents/parent", stored, expect=200)
    page = console.go("#/agents/parent")
    expect(page.get_by_label("Context of writer")).to_have_value("tail:2")
    page.get_by_label("Description").fill("edited")
    page.get_by_role("button", name="Save", exact=True).click()
    wait_until(lambda: client.call("GET", "/v1/agents/parent", expect=200)["description"] == "edited")
    assert client.call("GET", "/v1/agents/parent", expect=200)["delegates"] == [
        {"agent": "writer", "context": "tail:2"}
    ]
