"""The run trace view: the delegation tree, the child's request laid out by part, memory hits, tool calls,
approvals answered in place, the rolling summary marked, and a token that expires while a run is followed.
Following a run by long-poll and cancelling it: test_trace_live.py, test_trace_cancel.py."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

from tests.browser.conftest import Console
from tests.browser.waiting import careful_agent, waiting_run
from tests.functional.local.support import Client, LocalServer

CLAUDE = "anthropic.claude-3-7-sonnet-20250219-v1:0"  # a model that takes cache points (answered offline here)


def _slug(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _create_agent_in_the_form(page: Page, base: str, agent_id: str, label: str, fill: dict[str, str]) -> None:
    page.goto(f"{base}/#/agents/+new")
    page.get_by_label("Agent id").fill(agent_id)
    page.get_by_label("Label", exact=True).fill(label)
    for name, value in fill.items():
        page.get_by_label(name, exact=True).fill(value)


def test_a_delegating_run_started_in_the_console_shows_its_tree_and_the_childs_request_parts(
    signed_in: Console, alice: Client
) -> None:
    page, base = signed_in.page, signed_in.base
    sub, master = _slug("researcher"), _slug("planner")
    alice.call(
        "POST",
        "/v1/memory/documents",
        {"namespace": "vector.user.alice.memory", "content": "The Apollo review is due on March 15."},
        expect=201,
    )
    # Given a sub-agent created in the form (a Claude model, so its requests carry cache points) ...
    _create_agent_in_the_form(
        page, base, sub, sub.title(), {"Model id": CLAUDE, "memory-search may read": "vector.user.${user_id}.*"}
    )
    page.get_by_label("Model provider").select_option("bedrock")
    page.get_by_label("memory-search", exact=True).check()
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_role("heading", name=f"Agent {sub}")).to_be_visible()
    # ... and a master that may delegate to it
    _create_agent_in_the_form(page, base, master, master.title(), {})
    page.get_by_label("delegate-to-agent", exact=True).check()
    page.get_by_label(sub, exact=True).check()
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_role("heading", name=f"Agent {master}")).to_be_visible()
    # When a delegating run is started from the runs view
    signed_in.go("#/runs")
    page.get_by_label("Agent", exact=True).select_option(master)
    page.get_by_label("Input").fill(f"/delegate {sub} :: /search When is the Apollo review due?")
    page.get_by_role("button", name="Start the run").click()
    # Then its trace opens and shows the depth-1 child once it has run
    expect(page.get_by_role("heading", name="Run trace")).to_be_visible()
    tree = page.locator("[data-section=tree]")
    child = tree.locator("button[data-depth='1']")
    expect(child).to_contain_text(sub)
    expect(child).to_contain_text("succeeded", timeout=45_000)
    expect(tree.locator("button[data-depth='0']")).to_contain_text("succeeded", timeout=20_000)
    # And each node carries its tokens and its cost as the API prices them (the child's Claude model has a price)
    child_run = alice.call("GET", f"/v1/runs/{child.get_attribute('data-run')}", expect=200)
    assert child_run["usage"]["cost_usd"] > 0, child_run["usage"]
    usage = child.get_by_test_id("node-usage")
    expect(usage).to_contain_text(
        f"{child_run['usage']['input_tokens']:,} in · {child_run['usage']['output_tokens']:,} out"
    )
    shown = re.search(r"\$(\d+\.\d+)", usage.inner_text())
    assert (
        shown and abs(float(shown.group(1)) - child_run["usage"]["cost_usd"]) <= child_run["usage"]["cost_usd"] * 0.005
    )
    root_id = tree.locator("button[data-depth='0']").get_attribute("data-run")
    root_run = alice.call("GET", f"/v1/runs/{root_id}", expect=200)
    assert root_run["usage"]["cost_usd"] == 0 and root_run["tree_usage"]["cost_usd"] > 0  # the offline master: no price
    expect(tree.locator("button[data-depth='0']").get_by_test_id("node-usage")).to_contain_text("· $0")
    # And the master's tool call links to the sub-run
    expect(page.locator("[data-section=tool-calls]")).to_contain_text("delegate-to-agent")
    # When the child is selected
    child.click()
    expect(child).to_have_attribute("aria-current", "true")
    expect(page.locator("[data-section=summary] h2")).to_contain_text(child.get_attribute("data-run") or "?")
    # Then its last model request is laid out by part, with the prefix and the cache points marked
    request = page.locator("[data-section=model-calls] details[open] [data-testid=request]")
    prefix, current = request.locator("[data-region=prefix]"), request.locator("[data-region=current]")
    expect(prefix.locator("[data-part=task_context]")).to_contain_text(f'You are the agent "{sub.title()}"')
    expect(prefix.locator("[data-part=tool_notice]")).to_be_visible()
    expect(prefix.locator("[data-part=tools]")).to_contain_text("memory-search")
    expect(current.locator("[data-part=user_text]")).to_have_text(
        re.compile(r"/search When is the Apollo review due\?")
    )
    expect(current.locator("[data-part=memory]")).to_contain_text("RELEVANT CONTEXT FROM LONG-TERM MEMORY:")
    expect(current.locator("[data-part=memory]")).to_contain_text("March 15")
    expect(current.locator("[data-part=date_line]")).to_contain_text("[Context — current date/time:")
    assert request.locator("[data-part=cache_point]").count() >= 3  # tools, system, history (and the tool turn)
    expect(request).to_contain_text("cache read tokens")
    expect(request).to_contain_text("cache write tokens")
    # And its memory hits carry namespace, similarity and relevance, and why others were dropped
    hits = page.locator("[data-section=memory-hits] [data-via=auto_inject]")
    expect(hits).to_contain_text("vector.user.alice.memory")
    expect(hits.locator("td.num").first).to_have_text(re.compile(r"^[01]\.\d{4}$"))
    expect(hits.get_by_test_id("dropped")).to_be_visible()
    # And its tool call shows the arguments and the result
    search_call = page.locator("[data-section=tool-calls] tbody tr", has_text="memory-search")
    expect(search_call).to_contain_text('"query": "When is the Apollo review due?"')
    expect(search_call).to_contain_text("March 15")
    signed_in.screenshot("trace")
    page.evaluate("document.querySelector('[data-section=model-calls]').scrollIntoView()")
    signed_in.screenshot("trace-request")


def test_an_approval_is_answered_in_place_and_the_run_goes_on_live(signed_in: Console, alice: Client) -> None:
    # Given a run waiting for a person to approve its memory-search call
    alice.call(
        "POST",
        "/v1/memory/documents",
        {"namespace": "vector.user.alice.notes", "content": "Green tea for the Zeus team."},
        expect=201,
    )
    run_id = waiting_run(alice, careful_agent(alice), "/search Which tea for the Zeus team?")
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    # Then the trace shows the pending call with its arguments, and says it follows the run
    panel = page.locator("[data-section=approvals]")
    expect(panel).to_contain_text("memory-search")
    expect(panel).to_contain_text('"query": "Which tea for the Zeus team?"')
    expect(page.get_by_test_id("live")).to_contain_text("Live")
    signed_in.screenshot("approval")
    # When alice allows it once, without leaving the page
    panel.get_by_role("button", name="Allow once").click()
    # Then the run finishes by itself on the page: succeeded, with the search's result in the output
    expect(page.locator("[data-section=tree] button").first).to_contain_text("succeeded", timeout=30_000)
    expect(page.get_by_test_id("output")).to_contain_text("Green tea for the Zeus team.")
    expect(page.locator("[data-section=approvals]")).to_have_count(0)
    expect(page.get_by_test_id("live")).to_have_text("")
    assert alice.call("GET", f"/v1/runs/{run_id}", expect=200)["status"] == "succeeded"
    # And once everything is final the page stops asking
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if "/v1/" in request.url else None)
    page.wait_for_timeout(3000)
    assert calls == []


def test_a_denied_approval_becomes_a_tool_error_in_the_trace(signed_in: Console, alice: Client) -> None:
    run_id = waiting_run(alice, careful_agent(alice), "/search Anything about the budget?")
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    page.locator("[data-section=approvals]").get_by_role("button", name="Deny").click()
    expect(page.locator("[data-section=tree] button").first).to_contain_text("succeeded", timeout=30_000)
    row = page.locator("[data-section=tool-calls] tbody tr", has_text="memory-search")
    expect(row).to_contain_text("a person denied this tool call")
    expect(row.locator(".badge")).to_have_text("error")


def _compressing_run(alice: Client, name: str) -> str:
    """The third run of a new chat of three long inputs: it compresses the chat's history (a summary call first)."""
    agent_id = _slug(name)
    alice.call(
        "PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "memory_policy": {"auto_read_enabled": False}}, expect=200
    )
    chat_id = f"chat-{uuid.uuid4().hex[:10]}"
    run_id = ""
    for n in range(3):
        body = {"agent_id": agent_id, "chat_id": chat_id, "input": f"part {n}: " + "lorem ipsum dolor sit amet " * 500}
        run_id = str(alice.call("POST", "/v1/runs", body, expect=200)["run_id"])
    return run_id


def test_the_rolling_summary_is_marked_in_the_history(signed_in: Console, alice: Client) -> None:
    # Given a chat whose history grew past the summary threshold (8,000 estimated tokens)
    run_id = _compressing_run(alice, "chatty")
    # When the last run's trace is opened
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    # Then its history starts with the marked summary and its acknowledgement, inside the cacheable prefix
    prefix = page.locator("[data-section=model-calls] details[open] [data-region=prefix]")
    expect(prefix.locator("[data-part=summary]")).to_contain_text(
        "[Context Summary — compressed history of this conversation]"
    )
    expect(prefix.locator("[data-part=summary_ack]")).to_be_visible()
    expect(prefix.locator("[data-part=cache_point]")).to_have_count(0)  # the offline model takes none
    expect(page.locator("[data-region=current] [data-part=user_text]")).to_contain_text("part 2:")


def test_the_rolling_summary_call_is_shown_as_such_before_the_runs_own(signed_in: Console, alice: Client) -> None:
    # Given a run that compressed its chat (a summary call, then its own)
    run_id = _compressing_run(alice, "summing")
    # When its trace is opened
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    # Then the first of its two model calls is the summary's, with its instruction and the text it compressed
    calls = page.locator("[data-section=model-calls] > details")
    expect(calls).to_have_count(2)
    summary = calls.nth(0)
    expect(summary).to_have_attribute("data-purpose", "summary")
    expect(summary.locator("summary")).to_contain_text("rolling summary")
    summary.locator("summary").click()
    expect(summary.locator("[data-part=summary_input]")).to_contain_text("part 0:")
    expect(summary.locator("[data-region=current]")).to_have_count(0)
    # and the run's own call, last and open, is laid out by part as before
    expect(calls.nth(1).locator("[data-region=current] [data-part=user_text]")).to_contain_text("part 2:")
    expect(page.locator("[data-section=timeline]")).to_contain_text("rolling summary · request #1")


def test_a_run_that_does_not_exist_says_so(signed_in: Console) -> None:
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/run-that-never-was")
    expect(page.get_by_role("alert")).to_contain_text("404")


def test_a_token_that_expires_while_following_a_run_ends_the_polling_and_asks_to_sign_in(
    console: Console, server: LocalServer, alice: Client
) -> None:
    # Given alice following a waiting run with a token valid for a few more seconds
    run_id = waiting_run(alice, careful_agent(alice), "/search Will my token last?")
    page = console.open(f"#/runs/{run_id}", token=server.token("alice", hours=4 / 3600))
    expect(page.get_by_test_id("live")).to_contain_text("Live")
    # When it expires, the next poll's 401 brings the sign-in form back with the reason
    expect(page.locator("#signin-error")).to_contain_text("session ended", timeout=15_000)
    # And nothing polls any more
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if "/v1/" in request.url else None)
    page.wait_for_timeout(2500)
    assert calls == []


def test_a_chat_line_hit_shows_the_lines_the_model_read_around_it(signed_in: Console, alice: Client) -> None:
    # Given three lines of one conversation in alice's memory, and an agent injecting one hit
    said = (
        "Priya: I adopted a greyhound named Comet last month!",
        "Leo: What a lovely name! How old is he?",
        "Priya: He is four, retired from racing.",
    )
    for content in said:
        alice.call(
            "POST", "/v1/memory/documents", {"namespace": "vector.user.alice.memory", "content": content}, expect=201
        )
    agent_id = _slug("reader")
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id, "memory_policy": {"top_k": 1}}, expect=200)
    run_id = alice.call(
        "POST", "/v1/runs", {"agent_id": agent_id, "input": "How old is Priya's greyhound Comet?"}, expect=200
    )["run_id"]
    # When its trace is opened
    page = signed_in.page
    page.goto(f"{signed_in.base}/#/runs/{run_id}")
    # Then the one auto-inject hit is shown with the lines said around it, muted, in the order they were said
    panel = page.locator("[data-section=memory-hits] [data-via=auto_inject]")
    expect(panel.locator("tbody tr")).to_have_count(1)
    expect(panel.get_by_test_id("hit-line").first).to_be_visible()
    cell = panel.locator("tbody tr td").nth(1)
    expect(cell).not_to_contain_text("loading…")
    text = cell.inner_text()
    assert [text.find(line) for line in said] == sorted(text.find(line) for line in said) and -1 not in [
        text.find(line) for line in said
    ], text
