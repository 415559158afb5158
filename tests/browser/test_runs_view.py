"""The runs view: finding runs through the chats and by id; a bad start (the list of runs: test_run_list.py)."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def test_a_chats_runs_are_listed_when_it_is_opened_and_link_to_their_traces(signed_in: Console, alice: Client) -> None:
    # Given a finished run in a chat of alice's
    agent_id = f"lister-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    text = f"Find me later {uuid.uuid4().hex[:6]}"
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": text}, expect=200)
    page = signed_in.go("#/runs")
    # When she opens that chat in the list
    chat = page.locator(f"details[data-chat='{run['chat_id']}']")
    chat.locator("summary").click()
    # Then its run is listed by its input and opens the trace
    chat.get_by_role("link", name=text).click()
    expect(page.get_by_role("heading", name="Run trace")).to_be_visible()
    expect(page.locator("[data-section=summary] h2")).to_have_text(f"Run {run['run_id']}")


def test_a_run_opened_by_id_shows_its_trace(signed_in: Console, alice: Client) -> None:
    agent_id = f"byid-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    run = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": "hello"}, expect=200)
    page = signed_in.go("#/runs")
    form = page.locator("[data-form=open-run]")
    form.get_by_label("Run id").fill(run["run_id"])
    form.get_by_role("button", name="Open the trace").click()
    expect(page.get_by_test_id("output")).to_have_text("offline: hello")


def test_a_run_started_here_is_remembered_in_this_tab(signed_in: Console, alice: Client) -> None:
    agent_id = f"memo-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.go("#/runs")
    page.get_by_label("Agent", exact=True).select_option(agent_id)
    page.get_by_label("Input").fill("remember this run")
    page.get_by_role("button", name="Start the run").click()
    expect(page.get_by_test_id("output")).to_have_text("offline: remember this run")
    signed_in.go("#/runs")
    expect(page.get_by_test_id("started").get_by_role("link", name="remember this run")).to_be_visible()


def test_an_input_over_the_limit_is_refused_on_the_input(signed_in: Console, alice: Client) -> None:
    agent_id = f"limit-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = signed_in.go("#/runs")
    page.get_by_label("Agent", exact=True).select_option(agent_id)
    page.get_by_label("Input").fill("x" * 100_001)
    page.get_by_role("button", name="Start the run").click()
    expect(page.get_by_role("alert").first).to_contain_text("413")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()


def test_the_current_views_navigation_link_shows_it_afresh(signed_in: Console, alice: Client) -> None:
    # Given the runs view open, and an agent created elsewhere afterwards
    page = signed_in.go("#/runs")
    agent_id = f"fresh-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    expect(page.locator(f"select[name=agent_id] option[value='{agent_id}']")).to_have_count(0)
    # When "Runs" is chosen again in the navigation, the view is loaded again
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Runs").click()
    expect(page.locator(f"select[name=agent_id] option[value='{agent_id}']")).to_have_count(1)
