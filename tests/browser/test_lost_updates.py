"""A console form never overwrites a change made elsewhere since it was opened (If-Match / If-None-Match: the
API's 412): it says so, and what the other request saved stays."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def _slug(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_an_agent_changed_elsewhere_since_the_form_opened_is_not_overwritten(signed_in: Console, alice: Client) -> None:
    # Given alice's agent open in the console
    agent_id = _slug("shared")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "description": "first"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    page.get_by_label("Description").fill("from the console")
    # When the agent is changed through the API before the form is saved
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "description": "from the API"}, expect=200)
    page.get_by_role("button", name="Save", exact=True).click()
    # Then the form says it was not saved, and the API's change stays
    expect(page.get_by_role("alert")).to_contain_text("Not saved: this agent was changed elsewhere")
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["description"] == "from the API"


def test_an_agent_form_saves_again_after_its_own_save(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("twice")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    for text in ("once", "twice"):
        page.get_by_label("Description").fill(text)
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["description"] == "twice"


def test_a_new_agent_with_the_id_of_an_existing_one_is_not_created(signed_in: Console, alice: Client) -> None:
    # Given an agent created through the API
    agent_id = _slug("taken")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": "The first"}, expect=200)
    # When the console's new-agent form uses its id
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/+new")
    page.get_by_label("Agent id").fill(agent_id)
    page.get_by_label("Label", exact=True).fill("The second")
    page.get_by_role("button", name="Create the agent").click()
    # Then it is refused and the first agent stays
    expect(page.get_by_role("alert")).to_contain_text("Not created: an agent with this id already exists")
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["label"] == "The first"


def test_a_skill_changed_elsewhere_since_the_form_opened_is_not_overwritten(signed_in: Console, alice: Client) -> None:
    name = _slug("tone")
    alice.call("PUT", f"/v1/skills/{name}", {"description": "d", "content": "first"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/skills/{name}")
    page.get_by_label("Content").fill("from the console")
    alice.call("PUT", f"/v1/skills/{name}", {"description": "d", "content": "from the API"}, expect=200)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Not saved: this skill was changed elsewhere")
    assert alice.call("GET", f"/v1/skills/{name}", expect=200)["content"] == "from the API"


def test_an_agent_changed_elsewhere_since_the_form_opened_is_not_deleted(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("kept")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    expect(page.get_by_role("button", name="Delete the agent")).to_be_visible()
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "description": "changed"}, expect=200)
    page.get_by_role("button", name="Delete the agent").click()
    expect(page.get_by_role("alert")).to_contain_text("Not deleted: this agent was changed elsewhere")
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["description"] == "changed"


def test_an_agents_history_restores_an_earlier_version(signed_in: Console, alice: Client) -> None:
    # Given an agent saved twice through the API
    agent_id = _slug("history")
    first, second = {"label": f"{agent_id} v1", "description": "the good prompt"}, {"label": f"{agent_id} v2"}
    alice.call("PUT", f"/v1/agents/{agent_id}", first, expect=200)
    alice.call("PUT", f"/v1/agents/{agent_id}", {**second, "description": "a worse one"}, expect=200)
    # When its page lists the history and the first version is restored
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    history = page.get_by_test_id("history")
    expect(history.locator("tbody tr")).to_have_count(2)
    expect(history.locator("tbody tr").first).to_contain_text("current")
    history.locator("tbody tr").nth(1).get_by_role("button", name="Restore this version").click()
    # Then the agent is the first version again, and the restore is the newest revision
    expect(page.get_by_test_id("history").locator("tbody tr")).to_have_count(3)
    agent = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)
    assert (agent["label"], agent["description"]) == (first["label"], "the good prompt")


def test_a_restore_over_a_change_made_elsewhere_is_refused(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("norestore")
    for version in ("v1", "v2"):
        alice.call("PUT", f"/v1/agents/{agent_id}", {"label": f"{agent_id} {version}"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    expect(page.get_by_test_id("history").locator("tbody tr")).to_have_count(2)
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": f"{agent_id} v3"}, expect=200)
    page.get_by_test_id("history").get_by_role("button", name="Restore this version").click()
    expect(page.get_by_role("alert")).to_contain_text("Not restored: this agent was changed elsewhere")
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["label"] == f"{agent_id} v3"


def test_a_skills_and_a_tasks_history_restore_an_earlier_version(signed_in: Console, alice: Client) -> None:
    name, agent_id = _slug("tone"), _slug("tasked")
    for content in ("Be brief.", "Be verbose."):
        alice.call("PUT", f"/v1/skills/{name}", {"description": "tone", "content": content}, expect=200)
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    task = f"/v1/agents/{agent_id}/tasks/digest"
    for prompt in ("Weekly digest.", "Daily digest."):
        alice.call("PUT", task, {"name": "Digest", "context_prompt": prompt}, expect=200)
    page = signed_in.page
    for path in (f"#/skills/{name}", f"#/agents/{agent_id}/tasks/digest"):
        page.goto(f"{signed_in.base}/{path}")
        history = page.get_by_test_id("history")
        expect(history.locator("tbody tr")).to_have_count(2)
        history.get_by_role("button", name="Restore this version").click()
        expect(page.get_by_test_id("history").locator("tbody tr")).to_have_count(3)
    assert alice.call("GET", f"/v1/skills/{name}", expect=200)["content"] == "Be brief."
    assert alice.call("GET", task, expect=200)["context_prompt"] == "Weekly digest."


def test_a_runs_trace_names_the_agent_version_its_history_lists(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("versioned")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": "hello"}, expect=200)
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": f"{agent_id} v2"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run['run_id']}")
    version = page.get_by_test_id("agent-version")
    expect(version).to_contain_text("version ")
    short = version.inner_text().rsplit(" ", 1)[-1]
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    ran = page.get_by_test_id("history").locator("tbody tr").filter(has_text=short)
    expect(ran).to_have_count(1)
    expect(ran).to_contain_text("Restore this version")  # the version the run used is the older one


def test_an_agent_deleted_in_the_console_comes_back_with_undo(signed_in: Console, alice: Client) -> None:
    # Given an agent deleted from its page
    agent_id = _slug("undone")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "description": "keep me"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    page.get_by_role("button", name="Delete the agent").click()
    # When the list's undo is clicked
    undo = page.get_by_test_id("undo")
    expect(undo).to_contain_text(f"Agent {agent_id} deleted.")
    undo.get_by_role("button", name="Undo").click()
    # Then the agent is back as it was, and its history holds the delete and the restore
    expect(page.get_by_test_id("history").locator("tbody tr")).to_have_count(3)
    assert alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["description"] == "keep me"
    page.goto(f"{signed_in.base}/#/agents")
    expect(page.get_by_role("heading", name="Agents")).to_be_visible()
    expect(page.get_by_test_id("undo")).to_have_count(0)  # offered once, right after the delete


def test_a_new_agent_with_a_taken_id_is_refused_plainly_with_a_link_to_the_existing_one(
    signed_in: Console, alice: Client
) -> None:
    # Given an agent that has existed for a while
    agent_id = _slug("veteran")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": "The veteran"}, expect=200)
    # When the new-agent form is submitted with its id
    page = signed_in.go("#/agents")
    page.get_by_role("link", name="New agent").click()
    page.get_by_label("Agent id").fill(agent_id)
    page.get_by_label("Label", exact=True).fill("The newcomer")
    page.get_by_role("button", name="Create the agent").click()
    # Then the refusal says plainly that the id is taken, and its link opens that agent
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Not created: an agent with this id already exists.")
    expect(alert).not_to_contain_text("elsewhere since you opened")
    alert.get_by_role("link", name="Open the existing agent").click()
    expect(page.get_by_role("heading", name=f"Agent {agent_id}")).to_be_visible()
    expect(page.get_by_label("Label", exact=True)).to_have_value("The veteran")


def test_a_second_refusal_replaces_the_first_instead_of_stacking_under_it(signed_in: Console, alice: Client) -> None:
    # Given an agent's page, the agent changed elsewhere, and a save refused for it
    agent_id = _slug("stacked")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.go(f"#/agents/{agent_id}")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "description": "changed"}, expect=200)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Not saved")
    # When the delete is refused too
    page.get_by_role("button", name="Delete the agent").click()
    # Then only the newest refusal is shown
    expect(page.get_by_role("alert")).to_have_count(1)
    expect(page.get_by_role("alert")).to_contain_text("Not deleted")
