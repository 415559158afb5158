"""An agent, task or skill may be named ``new`` (the API accepts it): its link opens it, because the forms that
create one live at ``…/+new``, which no id can be. An old ``#/agents/new`` link still opens the form while nothing
is named ``new``."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Console, fresh_user
from tests.functional.local.support import LocalServer


@pytest.mark.parametrize("kind", ["agent", "task", "skill"])
def test_a_resource_named_new_opens_from_its_link(console: Console, server: LocalServer, kind: str) -> None:
    # Given a user's agent, task or skill named "new", with a description to recognise it
    client, _ = fresh_user(server, console)
    if kind == "skill":
        client.call("PUT", "/v1/skills/new", {"description": "the skill named new", "content": "c"}, expect=200)
        listing, field, heading = "#/skills", "Description", "Skill new"
    else:
        client.call("PUT", "/v1/agents/owner", {"label": "Owner"}, expect=200)
        client.call("PUT", "/v1/agents/new", {"label": "Named new", "description": "the agent named new"}, expect=200)
        client.call("PUT", "/v1/agents/owner/tasks/new", {"name": "the task named new"}, expect=200)
        listing, field, heading = ("#/agents", "Description", "Agent new")
        if kind == "task":
            listing, field, heading = "#/agents/owner", "Name", "Task new of owner"
    # When its link is followed
    page = console.go(listing)
    page.locator("main").get_by_role("link", name="new", exact=True).click()
    # Then it opens, with its stored fields, not the form that creates one
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.get_by_label(field, exact=True)).to_have_value(f"the {kind} named new")


def test_an_old_new_agent_link_opens_the_form_when_no_agent_is_named_new(console: Console, server: LocalServer) -> None:
    fresh_user(server, console)
    page = console.go("#/agents/new")
    expect(page.get_by_role("heading", name="New agent", level=1)).to_be_visible()
    expect(page.get_by_label("Agent id")).to_be_visible()
    assert page.url.endswith("#/agents/+new")
