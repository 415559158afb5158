"""A global resource's History names the admin who made each version, for another admin reading it."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client, LocalServer


def test_an_admin_reads_which_admin_saved_each_version_of_a_global_skill(console: Console, server: LocalServer) -> None:
    # Given a global skill saved by one admin, then by another
    name, first, second = f"skill-{uuid.uuid4().hex[:8]}", f"adm-{uuid.uuid4().hex[:6]}", f"adm-{uuid.uuid4().hex[:6]}"
    for admin, description in ((first, "one"), (second, "two")):
        body = {"description": description, "content": "c", "global": True}
        Client(server, server.token(admin, admin=True)).call("PUT", f"/v1/skills/{name}", body, expect=200)
    # When the second admin opens its page
    console.open(f"#/skills/{name}", token=server.token(second, admin=True))
    history = console.page.get_by_test_id("history")
    rows = history.locator("tbody tr")
    # Then each version names who saved it
    expect(rows).to_have_count(2)
    expect(history.locator("thead")).to_contain_text("by")
    expect(rows.first).to_contain_text(second)
    expect(rows.nth(1)).to_contain_text(first)
