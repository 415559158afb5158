"""After a save on an agent's, a task's or a skill's page, its History lists the version just replaced, with its
Restore button, on the same page (no reload)."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def _seed(alice: Client, kind: str) -> tuple[str, str, str]:
    """A resource of ``kind`` saved once through the API: its console route, the field to edit, the Save button."""
    name = f"{kind}-{uuid.uuid4().hex[:8]}"
    if kind == "skill":
        alice.call("PUT", f"/v1/skills/{name}", {"description": "first", "content": "c"}, expect=200)
        return f"#/skills/{name}", "Description", "Save"
    alice.call("PUT", f"/v1/agents/{name}", {"label": name, "description": "first"}, expect=200)
    if kind == "agent":
        return f"#/agents/{name}", "Description", "Save"
    alice.call("PUT", f"/v1/agents/{name}/tasks/digest", {"name": "first"}, expect=200)
    return f"#/agents/{name}/tasks/digest", "Name", "Save the task"


@pytest.mark.parametrize("kind", ["agent", "task", "skill"])
def test_a_save_lists_the_previous_version_in_the_history_at_once(signed_in: Console, alice: Client, kind: str) -> None:
    # Given the page of a resource saved once (its history: one row, the current version)
    route, label, save = _seed(alice, kind)
    page = signed_in.go(route)
    rows = page.get_by_test_id("history").locator("tbody tr")
    expect(rows).to_have_count(1)
    page.evaluate("() => { window.sameDocument = true; }")
    # When it is edited and saved in the form
    page.get_by_label(label, exact=True).fill("second")
    page.get_by_role("button", name=save, exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # Then the history shows the new version as current and the first one with its Restore button, unreloaded
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("current")
    expect(rows.nth(1).get_by_role("button", name="Restore this version")).to_be_visible()
    assert page.evaluate("() => window.sameDocument") is True
