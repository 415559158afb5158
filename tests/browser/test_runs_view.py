"""The runs view: finding runs through the chats and by id; a bad start (the list of runs: test_run_list.py)."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client, LocalServer


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


def _start_in_the_tab(console: Console, alice: Client, text: str) -> None:
    agent_id = f"shared-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    page = console.go("#/runs")
    page.get_by_label("Agent", exact=True).select_option(agent_id)
    page.get_by_label("Input").fill(text)
    page.get_by_role("button", name="Start the run").click()
    expect(page.get_by_test_id("output")).to_have_text(f"offline: {text}")


def _runs_as(console: Console, token: str, user: str) -> Page:
    page = console.open("#/runs", token=token)
    expect(page.get_by_test_id("user")).to_have_text(user)
    expect(page.get_by_role("heading", name="Chats")).to_be_visible()
    return page


def test_signing_out_forgets_the_runs_started_in_the_tab(
    signed_in: Console, alice: Client, server: LocalServer
) -> None:
    # Given alice started a run in this tab, then signed out
    secret = f"alice's private question {uuid.uuid4().hex[:6]}"
    _start_in_the_tab(signed_in, alice, secret)
    signed_in.page.get_by_role("button", name="Sign out").click()
    # When mallory signs in in the same tab and opens the runs
    mallory = f"mallory-{uuid.uuid4().hex[:6]}"
    page = _runs_as(signed_in, server.token(mallory), mallory)
    # Then nothing of alice's run is on the page, nor kept in the tab
    expect(page.get_by_test_id("started")).to_have_count(0)
    expect(page.get_by_text(secret)).to_have_count(0)
    assert secret not in page.evaluate("() => Object.values(sessionStorage).join(' ')")


def test_the_runs_started_in_a_tab_are_shown_to_the_user_who_started_them_only(
    signed_in: Console, alice: Client, server: LocalServer
) -> None:
    # Given alice started a run in this tab
    secret = f"alice's private question {uuid.uuid4().hex[:6]}"
    _start_in_the_tab(signed_in, alice, secret)
    # When mallory signs in in the same tab without alice signing out (a token link) and opens the runs
    mallory = f"mallory-{uuid.uuid4().hex[:6]}"
    page = _runs_as(signed_in, server.token(mallory), mallory)
    # Then alice's run is not listed to mallory
    expect(page.get_by_test_id("started")).to_have_count(0)
    expect(page.get_by_text(secret)).to_have_count(0)
    # And alice, signed in again in the tab, finds it listed
    page = _runs_as(signed_in, alice.token, "alice")
    expect(page.get_by_test_id("started").get_by_role("link", name=secret)).to_be_visible()
