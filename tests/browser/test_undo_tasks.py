"""Undo of an agent's delete brings back the tasks deleted with it, and the delete's confirmation says so."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def _agent_with_tasks(alice: Client, *tasks: str) -> str:
    agent_id = f"undone-{uuid.uuid4().hex[:8]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    for task in tasks:
        body = {"name": f"the {task}", "context_prompt": task}
        alice.call("PUT", f"/v1/agents/{agent_id}/tasks/{task}", body, expect=200)
    return agent_id


def _delete_in_console(console: Console, agent_id: str) -> list[str]:
    """Delete the agent from its page; the confirmation's text."""
    page = console.go(f"#/agents/{agent_id}")
    asked: list[str] = []
    page.on("dialog", lambda dialog: asked.append(dialog.message))  # the console's own handler accepts it
    page.get_by_role("button", name="Delete the agent").click()
    expect(page.get_by_test_id("undo")).to_be_visible()
    return asked


def test_the_delete_confirmation_says_the_tasks_go_with_the_agent(signed_in: Console, alice: Client) -> None:
    agent_id = _agent_with_tasks(alice, "daily", "weekly")
    asked = _delete_in_console(signed_in, agent_id)
    assert len(asked) == 1
    assert "Its 2 tasks are deleted with it" in asked[0]
    assert "Undo" in asked[0]


def test_undo_brings_the_agents_tasks_back_and_says_so(signed_in: Console, alice: Client) -> None:
    # Given an agent with two tasks deleted in the console
    agent_id = _agent_with_tasks(alice, "daily", "weekly")
    _delete_in_console(signed_in, agent_id)
    page = signed_in.page
    # When the list's Undo is clicked
    page.get_by_test_id("undo").get_by_role("button", name="Undo").click()
    # Then the agent's page says both tasks came back, and lists them
    expect(page.get_by_role("status").filter(has_text="Restored, with its 2 tasks.")).to_be_visible()
    expect(page.get_by_test_id("tasks").get_by_role("link", name="daily")).to_be_visible()
    expect(page.get_by_test_id("tasks").get_by_role("link", name="weekly")).to_be_visible()
    assert alice.call("GET", f"/v1/agents/{agent_id}/tasks/weekly", expect=200)["context_prompt"] == "weekly"


def test_undo_names_a_task_it_could_not_bring_back(signed_in: Console, alice: Client) -> None:
    # Given an agent with two tasks deleted in the console, and a server that refuses one task's restore (412: a
    # task of that id exists again)
    agent_id = _agent_with_tasks(alice, "daily", "weekly")
    _delete_in_console(signed_in, agent_id)
    page = signed_in.page
    page.route(
        f"**/v1/agents/{agent_id}/tasks/daily",
        lambda route: (
            route.fulfill(status=412, json={"error": "precondition_failed", "message": "exists"})
            if route.request.method == "PUT"
            else route.continue_()
        ),
    )
    # When the list's Undo is clicked
    page.get_by_test_id("undo").get_by_role("button", name="Undo").click()
    # Then the page says one task of two came back, and names the other
    status = page.get_by_role("status").filter(has_text="Restored, with 1 of its 2 tasks.")
    expect(status).to_be_visible()
    expect(status).to_contain_text("Task daily not restored: a task with this id exists again")
