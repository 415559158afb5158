"""An entry's history in the console (issue 35.3): the memory entry view lists the entry's revisions, oldest
first, with the change kind, who made it and the content then; another user's entry shows no history, only
"not found"."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.browser.conftest import fresh_user as _user
from tests.functional.local.support import Client, LocalServer


def _created_and_updated(client: Client, user: str) -> str:
    write = {"namespace": f"vector.user.{user}.memory", "content": "The Apollo review is due on March 1."}
    doc_id: str = client.call("POST", "/v1/memory/documents", write, expect=201)["ids"][0]
    client.call(
        "PATCH", f"/v1/memory/documents/{doc_id}", {"content": "The Apollo review is due on March 15."}, expect=200
    )
    return doc_id


def test_the_entry_view_lists_its_revisions_oldest_first(console: Console, server: LocalServer) -> None:
    client, user = _user(server, console)
    doc_id = _created_and_updated(client, user)
    console.go(f"#/memory/{doc_id}")
    history = console.page.locator("[data-section=memory-history]").get_by_test_id("history")
    revisions = history.locator("li")
    expect(revisions).to_have_count(2)
    expect(revisions.nth(0)).to_have_attribute("data-change", "create")
    expect(revisions.nth(1)).to_have_attribute("data-change", "update")
    expect(revisions.nth(0).get_by_test_id("revision-content")).to_have_text("The Apollo review is due on March 1.")
    expect(revisions.nth(1).get_by_test_id("revision-content")).to_have_text("The Apollo review is due on March 15.")
    expect(revisions.nth(1)).to_contain_text(f"by user {user}")
    console.screenshot("memory-history")


def test_another_users_entry_shows_not_found_and_no_history(console: Console, server: LocalServer) -> None:
    owner = f"owner-{uuid.uuid4().hex[:8]}"
    doc_id = _created_and_updated(Client(server, server.token(owner)), owner)
    _user(server, console)
    console.go(f"#/memory/{doc_id}")
    section = console.page.locator("[data-section=memory-history]")
    expect(section.get_by_test_id("history-error")).to_contain_text("Not found")
    expect(section.get_by_test_id("history")).to_have_count(0)
    expect(console.page.get_by_test_id("entry-content")).to_have_count(0)
