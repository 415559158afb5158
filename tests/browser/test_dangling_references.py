"""An agent form shows what the agent refers to even when it no longer exists (a deleted skill, a default task
that is gone), marked missing, and a save keeps it: the form never drops a reference silently."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def _slug(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_a_deleted_skill_is_shown_missing_and_kept_by_a_save(signed_in: Console, alice: Client) -> None:
    # Given an agent whose skill was deleted since
    skill, agent_id = _slug("gone-skill"), _slug("forgetful")
    alice.call("PUT", f"/v1/skills/{skill}", {"description": "d", "content": "c"}, expect=200)
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "skills": [skill]}, expect=200)
    alice.call("DELETE", f"/v1/skills/{skill}", expect=204)
    # When its form is opened and saved with another change
    page = signed_in.go(f"#/agents/{agent_id}")
    box = page.locator(f"[data-missing='{skill}']")
    expect(box).to_contain_text(f"{skill} (missing)")
    expect(box.get_by_role("checkbox")).to_be_checked()
    page.get_by_label("Description").fill("edited")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # Then the agent still names the skill
    agent = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)
    assert (agent["description"], agent["skills"]) == ("edited", [skill])


def test_a_default_task_that_does_not_exist_is_shown_missing_and_kept_by_a_save(
    signed_in: Console, alice: Client
) -> None:
    # Given an agent whose default task does not exist
    agent_id = _slug("taskless")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "default_task_id": "weekly"}, expect=200)
    # When its form is opened and saved with another change
    page = signed_in.go(f"#/agents/{agent_id}")
    select = page.get_by_label("Default task")
    expect(select).to_have_value("weekly")
    expect(select.locator("option:checked")).to_have_text("weekly (missing)")
    page.get_by_label("Description").fill("edited")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # Then the agent keeps its default task
    agent = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)
    assert (agent["description"], agent["default_task_id"]) == ("edited", "weekly")
