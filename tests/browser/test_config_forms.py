"""Agents, tasks, skills and memory policies edited in the console: the server's 400s and warnings inline,
and the context preview of an agent + task + input."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from tests.browser.conftest import Console, fresh_user
from tests.functional.local.support import Client, LocalServer


def _slug(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _field(page: Page, label: str):
    """The `.field` wrapper of the control labelled `label` (where inline errors appear)."""
    return page.locator(".field", has=page.get_by_label(label, exact=True))


def _new_agent(console: Console, agent_id: str, label: str | None = None) -> Page:
    """The new-agent form with its id and label filled in."""
    page = console.page
    page.goto(f"{console.base}/#/agents/+new")
    page.get_by_label("Agent id").fill(agent_id)
    page.get_by_label("Label", exact=True).fill(label or agent_id)
    return page


def _preview(console: Console, agent_id: str, text: str, task: str | None = None) -> Page:
    """The context preview of ``text`` for the agent (and task)."""
    page = console.page
    page.goto(f"{console.base}/#/preview")
    page.get_by_label("Agent").select_option(agent_id)
    if task is not None:
        page.get_by_label("Task").select_option(task)
    page.get_by_label("Input").fill(text)
    page.get_by_role("button", name="Preview the context").click()
    return page


def test_an_invalid_namespace_pattern_is_shown_next_to_its_field_and_nothing_is_saved(
    signed_in: Console, alice: Client
) -> None:
    # Given the new-agent form with a read pattern that has '*' in the middle
    agent_id = _slug("bad")
    page = _new_agent(signed_in, agent_id, "Bad")
    page.get_by_label("Auto-inject reads").fill("vector.user.${user_id}.memory\nvector.bad*")
    # When it is submitted
    page.get_by_role("button", name="Create the agent").click()
    # Then the server's message sits next to that textarea, which is marked invalid and focused
    box = page.get_by_label("Auto-inject reads")
    expect(_field(page, "Auto-inject reads").locator(".field-error")).to_contain_text("vector.bad*")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_be_focused()
    signed_in.screenshot("agent-form-error")
    # And no agent was created
    assert alice.server.request("GET", f"/v1/agents/{agent_id}", token=alice.token).status == 404


def test_an_out_of_range_top_k_is_reported_on_top_k(signed_in: Console) -> None:
    page = _new_agent(signed_in, _slug("topk"), _slug("Topk"))
    page.get_by_label("top_k").fill("50")
    page.get_by_role("button", name="Create the agent").click()
    expect(_field(page, "top_k").locator(".field-error")).to_contain_text("memory_policy.top_k")
    expect(_field(page, "Auto-inject reads").locator(".field-error")).to_have_count(0)


def test_a_label_already_used_is_reported_on_the_label(signed_in: Console, alice: Client) -> None:
    # Given an agent labelled "Twin"
    alice.call("PUT", f"/v1/agents/{_slug('first')}", {"label": "Twin"}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/+new")
    # When another agent is created with the same label
    page.get_by_label("Agent id").fill(_slug("second"))
    page.get_by_label("Label", exact=True).fill("twin")
    page.get_by_role("button", name="Create the agent").click()
    # Then the 409 is shown on the label
    expect(_field(page, "Label").locator(".field-error")).to_contain_text("already used")


def test_a_task_context_with_current_time_shows_the_warning_on_save(signed_in: Console, alice: Client) -> None:
    # Given an agent
    agent_id = _slug("tasker")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}/tasks/+new")
    # When a task whose context uses ${current_time} is created
    page.get_by_label("Task id").fill("daily")
    page.get_by_label("Task context").fill("You help ${user_name}. It is ${current_time}.")
    page.get_by_role("button", name="Create the task").click()
    # Then the stored task shows the caching warning, and saving it again says so too
    expect(page.get_by_test_id("warnings")).to_contain_text("${current_time}")
    page.get_by_label("Name", exact=True).fill("Daily")
    page.get_by_role("button", name="Save the task").click()
    expect(page.get_by_test_id("warnings").first).to_contain_text("Saved.")
    task = alice.call("GET", f"/v1/agents/{agent_id}/tasks/daily", expect=200)
    assert task["name"] == "Daily" and "${current_time}" in task["context_prompt"]


def test_a_task_without_time_variables_saves_without_warnings(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("plain")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}/tasks/+new")
    page.get_by_label("Task id").fill("calm")
    page.get_by_label("Task context").fill("You help ${user_name}.")
    page.get_by_role("button", name="Create the task").click()
    expect(page.get_by_role("heading", name=f"Task calm of {agent_id}")).to_be_visible()
    expect(page.get_by_test_id("warnings")).to_have_count(0)


def test_editing_an_agent_keeps_the_fields_the_form_does_not_show(signed_in: Console, alice: Client) -> None:
    # Given an agent with inference settings and an external tool (not in the form)
    agent_id = _slug("keeper")
    tool = {
        "name": "lookup",
        "description": "Look something up",
        "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:mneme-tool-lookup",
    }
    body = {
        "label": agent_id,
        "model": {"provider": "offline", "model_id": "offline", "inference": {"temperature": 0.3}},
    }
    alice.call("PUT", f"/v1/agents/{agent_id}", {**body, "external_tools": [tool]}, expect=200)
    # When its description and memory policy are edited in the console
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    page.get_by_label("Description").fill("Edited in the console")
    page.get_by_label("Auto-write after each successful run").select_option("true")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # Then the edits are stored and nothing else was lost
    agent = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)
    assert agent["description"] == "Edited in the console" and agent["memory_policy"]["allow_write"] is True
    assert agent["memory_policy"]["top_k"] is None  # blank stays "not set"
    assert agent["model"]["inference"]["temperature"] == 0.3 and agent["external_tools"][0]["name"] == "lookup"


def test_saving_an_agent_keeps_the_policy_fields_the_form_does_not_show(signed_in: Console, alice: Client) -> None:
    # Given an agent whose policy was set through the API with fields the console has no input for
    agent_id = _slug("policykeeper")
    policy = {"retrieval": "keyword", "extraction": ["facts"], "recency_decay": 0.2}
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "memory_policy": policy}, expect=200)
    # When its top_k is edited in the console
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/agents/{agent_id}")
    page.get_by_label("top_k").fill("3")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # Then the edit is stored and the API's fields are still there
    stored = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["memory_policy"]
    assert stored["top_k"] == 3
    assert (stored["retrieval"], stored["extraction"], stored["recency_decay"]) == ("keyword", ["facts"], 0.2)


def test_standing_namespaces_are_set_in_the_form_and_a_wildcard_is_reported_there(
    signed_in: Console, alice: Client
) -> None:
    agent_id = _slug("standing")
    page = _new_agent(signed_in, agent_id)
    box = page.get_by_label("Shown in every run, whatever the question")
    box.fill("vector.user.${user_id}.*")
    page.get_by_role("button", name="Create the agent").click()
    expect(_field(page, "Shown in every run, whatever the question").locator(".field-error")).to_contain_text(
        "wildcard"
    )
    box.fill("vector.user.${user_id}.preferences")
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_role("heading", name=f"Agent {agent_id}")).to_be_visible()
    stored = alice.call("GET", f"/v1/agents/{agent_id}", expect=200)["memory_policy"]
    assert stored["standing_namespaces"] == ["vector.user.${user_id}.preferences"]


def test_the_preview_marks_a_standing_entry_instead_of_scoring_it(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("prefs")
    policy = {"standing_namespaces": ["vector.user.${user_id}.preferences"]}
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "memory_policy": policy}, expect=200)
    entry = {"namespace": "vector.user.alice.preferences", "content": "I prefer answers in bullet points."}
    alice.call("POST", "/v1/memory/documents", entry, expect=201)
    page = _preview(signed_in, agent_id, "Suggest a dinner recipe for tonight.")
    hits = page.get_by_test_id("preview-hits")
    expect(hits).to_contain_text("bullet points")
    expect(hits.get_by_test_id("standing")).to_have_text("standing: every run")
    expect(page.get_by_test_id("request").locator("[data-part=memory]")).to_contain_text("bullet points")


def test_a_skill_is_created_in_its_form_and_a_missing_description_is_reported(
    signed_in: Console, alice: Client
) -> None:
    name = _slug("summarize")
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/skills/+new")
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Content").fill("Summarize in three bullet points.")
    page.get_by_role("button", name="Create the skill").click()
    expect(_field(page, "Description").locator(".field-error")).to_contain_text("description")
    page.get_by_label("Description").fill("Short summaries")
    page.get_by_role("button", name="Create the skill").click()
    expect(page.get_by_role("heading", name=f"Skill {name}")).to_be_visible()
    assert alice.call("GET", f"/v1/skills/{name}", expect=200)["description"] == "Short summaries"


def test_the_context_preview_lays_out_the_request_with_its_warning_and_memory_hits(
    signed_in: Console, alice: Client
) -> None:
    # Given an agent with a skill and a task using ${current_time}, and a matching memory
    agent_id, skill = _slug("previewer"), _slug("briefing")
    alice.call("PUT", f"/v1/skills/{skill}", {"description": "Write briefings", "content": "Be brief."}, expect=200)
    alice.call(
        "PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "skills": [skill], "tools": ["memory-search"]}, expect=200
    )
    alice.call(
        "PUT",
        f"/v1/agents/{agent_id}/tasks/brief",
        {"context_prompt": "Brief ${user_id} at ${current_time}."},
        expect=200,
    )
    entry = {"namespace": "vector.user.alice.memory", "content": "The quarterly briefing happens every Thursday."}
    alice.call("POST", "/v1/memory/documents", entry, expect=201)
    # When alice previews the task with a question about the briefing
    page = _preview(signed_in, agent_id, "When does the quarterly briefing happen?", task="brief")
    # Then the warning, the hit with its scores and the request's parts are shown
    result = page.get_by_test_id("preview-result")
    expect(result.get_by_test_id("preview-warnings")).to_contain_text("${current_time}")
    expect(result.get_by_test_id("preview-hits")).to_contain_text("every Thursday")
    request = result.get_by_test_id("request")
    expect(request.locator("[data-part=task_context]")).to_contain_text("Brief alice at")
    expect(request.locator("[data-part=skill_catalog]")).to_contain_text(skill)
    expect(request.locator("[data-part=tool_notice]")).to_be_visible()
    expect(request.locator("[data-region=current] [data-part=user_text]")).to_contain_text("quarterly briefing happen?")
    expect(request.locator("[data-part=memory]")).to_contain_text("every Thursday")
    expect(request.locator("[data-part=date_line]")).to_contain_text("[Context — current date/time:")
    signed_in.screenshot("context-preview")


def test_a_preview_of_an_oversized_input_shows_the_servers_error(signed_in: Console, alice: Client) -> None:
    agent_id = _slug("big")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = _preview(signed_in, agent_id, "x" * 100_001)
    expect(page.get_by_role("alert").first).to_contain_text("413")
    expect(page.get_by_test_id("request")).to_have_count(0)


def test_the_context_preview_shows_a_chat_line_hit_with_the_lines_said_around_it(
    signed_in: Console, alice: Client
) -> None:
    # Given an agent injecting one hit, and three lines of one conversation in alice's memory
    agent_id = _slug("liner")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "memory_policy": {"top_k": 1}}, expect=200)
    for content in (
        "Joanna: I finished my first screenplay last week!",
        "Nate: Congratulations! What genre is it?",
        "Joanna: A mix of drama and romance.",
    ):
        alice.call(
            "POST", "/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": content}, expect=201
        )
    # When alice previews a question one of the lines matches
    page = _preview(signed_in, agent_id, "What genre is Joanna's first screenplay?")
    # Then the one hit is shown with the lines said around it, as the request's memory block carries them
    hits = page.get_by_test_id("preview-result").get_by_test_id("preview-hits")
    expect(hits.locator("tbody tr")).to_have_count(1)
    expect(hits.get_by_test_id("hit-line").first).to_be_visible()
    expect(hits).to_contain_text("A mix of drama and romance.")
    memory = page.get_by_test_id("preview-result").get_by_test_id("request").locator("[data-part=memory]")
    expect(memory).to_contain_text("A mix of drama and romance.")


def test_the_skills_list_shows_every_skill_when_they_take_more_than_one_response(
    server: LocalServer, console: Console
) -> None:
    # Given a user's 55 skills of 99,000 characters: 5.4 MB, more than one page (a single answer was a 500)
    user, _ = fresh_user(server, console, "#/agents")
    names = [f"skill-{n:02d}" for n in range(55)]
    for name in names:
        user.call("PUT", f"/v1/skills/{name}", {"description": f"about {name}", "content": "x" * 99_000}, expect=200)
    first = user.call("GET", "/v1/skills", expect=200)
    assert 0 < len(first["skills"]) < len(names) and first["cursor"]
    # When the console shows the skills
    page = console.go("#/skills")
    # Then every one of them is listed, once
    rows = page.locator("[data-view=skills] tbody tr")
    expect(rows).to_have_count(len(names))
    expect(rows.last).to_contain_text("about skill-54")


def test_saving_a_global_skill_as_a_user_shows_that_the_users_copy_now_hides_it(
    server: LocalServer, console: Console
) -> None:
    # Given a global skill of an admin's, opened by a user in the skill form
    name = _slug("house-style")
    admin = Client(server, server.token(f"admin-{uuid.uuid4().hex[:6]}", admin=True))
    shared = {"description": "House style", "content": "Be warm.", "global": True}
    admin.call("PUT", f"/v1/skills/{name}", shared, expect=200)
    user, _ = fresh_user(server, console, f"#/skills/{name}")
    page = console.go(f"#/skills/{name}")
    # When the user saves it
    page.get_by_label("Content").fill("Be terse.")
    page.get_by_role("button", name="Save").click()
    # Then the form says the saved skill is theirs and hides the global one
    expect(page.get_by_test_id("warnings")).to_contain_text("hides the global skill")
    assert user.call("GET", f"/v1/skills/{name}", expect=200)["global"] is False
