"""The console's list of runs (GET /v1/runs, issue 33.3): failed runs visible, one click to the trace, a status
filter; and the trace's memory hits showing their text — only while the caller may read the entry."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client

REPEATED_SEARCH = "\n".join(["/search tea"] * 4)  # the same call more than 3 times: the run is aborted


def _agent(alice: Client, prefix: str, **fields: object) -> str:
    agent_id = f"{prefix}-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, **fields}, expect=200)
    return agent_id


def test_a_failed_run_is_listed_as_failed_and_opens_its_trace_in_one_click(signed_in: Console, alice: Client) -> None:
    # Given a run of alice's that failed
    agent_id = _agent(alice, "failing", tools=["memory-search"])
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": REPEATED_SEARCH}, expect=200)
    assert run["status"] == "failed"
    # When she opens the runs view
    page = signed_in.go("#/runs")
    row = page.locator(f"[data-testid=run-table] tr[data-run='{run['run_id']}']")
    # Then it is listed, marked failed, with its error
    expect(row.locator(".badge")).to_have_text("failed")
    expect(row.get_by_test_id("run-error")).to_contain_text("RunAborted")
    # And one click on it opens its trace
    row.get_by_role("link").click()
    expect(page.locator("[data-section=summary] h2")).to_have_text(f"Run {run['run_id']}")


def test_the_status_filter_lists_only_runs_in_that_status(signed_in: Console, alice: Client) -> None:
    agent_id = _agent(alice, "filtered", tools=["memory-search"])
    failed = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": REPEATED_SEARCH}, expect=200)
    ok = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": "hello"}, expect=200)
    page = signed_in.go("#/runs")
    listing = page.locator("[data-section=run-list]")
    expect(listing.locator(f"tr[data-run='{ok['run_id']}']")).to_have_count(1)
    listing.get_by_label("Filter by status").select_option("failed")
    listing.get_by_role("button", name="Show").click()
    expect(listing.locator(f"tr[data-run='{ok['run_id']}']")).to_have_count(0)
    expect(listing.locator(f"tr[data-run='{failed['run_id']}']")).to_have_count(1)
    expect(listing.locator("tbody tr:not([data-status=failed])")).to_have_count(0)


def _run_with_a_hit(alice: Client) -> tuple[str, str, str]:
    text = f"The greenhouse key {uuid.uuid4().hex[:8]} hangs behind the blue door."
    written = alice.call(
        "POST", "/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": text}, expect=201
    )
    agent_id = _agent(alice, "recall")
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": text}, expect=200)
    return run["run_id"], written["ids"][0], text


def test_a_memory_hit_in_the_trace_shows_its_text(signed_in: Console, alice: Client) -> None:
    run_id, doc_id, text = _run_with_a_hit(alice)
    page = signed_in.go(f"#/runs/{run_id}")
    cell = page.locator(f"[data-section=memory-hits] [data-hit-text='{doc_id}']")
    expect(cell).to_have_text(text)


def test_a_hit_deleted_since_the_run_shows_why_not_its_text(signed_in: Console, alice: Client) -> None:
    run_id, doc_id, text = _run_with_a_hit(alice)
    alice.call("DELETE", f"/v1/memory/documents/{doc_id}?namespace=vector.user.alice.memory", expect=204)
    page = signed_in.go(f"#/runs/{run_id}")
    cell = page.locator(f"[data-section=memory-hits] [data-hit-text='{doc_id}']")
    expect(cell).to_contain_text("no longer readable")
    expect(cell).not_to_contain_text(text)


def test_the_trace_lists_the_standing_entries_a_run_showed(signed_in: Console, alice: Client) -> None:
    preference = f"I prefer answers in bullet points ({uuid.uuid4().hex[:8]})."
    written = alice.call(
        "POST", "/v1/memory/documents", {"namespace": "vector.user.alice.style", "content": preference}, expect=201
    )
    agent_id = _agent(alice, "standing", memory_policy={"standing_namespaces": ["vector.user.${user_id}.style"]})
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": "Plan a picnic."}, expect=200)
    page = signed_in.go(f"#/runs/{run['run_id']}")
    standing = page.locator("[data-section=memory-hits] [data-testid=standing]")
    expect(standing).to_contain_text("vector.user.alice.style")
    expect(standing.locator(f"[data-hit-text='{written['ids'][0]}']")).to_have_text(preference)


def test_the_start_form_shows_no_stray_text_when_no_chat_is_continued(signed_in: Console, alice: Client) -> None:
    # Given an agent to start a run of (the form is shown only then)
    _agent(alice, "starter")
    # When alice opens the runs view, not continuing a chat
    page = signed_in.go("#/runs")
    form = page.locator("[data-form=start-run]")
    # Then the form holds its heading and fields, no "null" where the continued chat's note would be
    expect(form.locator("h2")).to_have_text("Start a run")
    expect(form).not_to_contain_text("null")


def test_a_run_that_cost_nothing_is_listed_at_0_as_its_trace_says(signed_in: Console, alice: Client) -> None:
    # Given a run of the offline model, which costs nothing
    run = alice.call("POST", "/v1/runs", {"agent_id": _agent(alice, "free"), "input": "hello"}, expect=200)
    assert run["tree_usage"]["cost_usd"] == 0
    # When alice lists her runs, its cost is $0 (before: "–", as a run whose cost is unknown)
    page = signed_in.go("#/runs")
    row = page.locator(f"[data-testid=run-table] tr[data-run='{run['run_id']}']")
    expect(row.locator("td.num").last).to_have_text("$0")
    # And its trace says the same
    row.get_by_role("link").click()
    expect(page.locator("[data-section=summary]")).to_contain_text("Cost (whole tree)$0")
