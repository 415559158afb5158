"""Continue a chat: a run's trace and the chats list open the start form with the run's agent and chat, and the
runs started from it continue that chat (the API's ``chat_id``) unless the person clears it."""

from __future__ import annotations

import uuid
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client


def _finished_run(alice: Client) -> dict[str, Any]:
    agent_id = f"chatty-{uuid.uuid4().hex[:6]}"
    alice.call("PUT", f"/v1/agents/{agent_id}", {"label": agent_id}, expect=200)
    run: dict[str, Any] = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": "first turn"}, expect=200)
    return run


def _continue_from_trace(console: Console, run: dict[str, Any]) -> Page:
    page = console.go(f"#/runs/{run['run_id']}")
    page.locator("[data-section=summary]").get_by_role("link", name="Continue this chat").click()
    expect(page.get_by_role("heading", name="Continue a chat")).to_be_visible()
    return page


def _start(page: Page, text: str) -> str:
    """Start a run from the form; the chat its trace names."""
    page.get_by_label("Input").fill(text)
    page.get_by_role("button", name="Start the run").click()
    expect(page.get_by_test_id("output")).to_have_text(f"offline: {text}")
    return (
        page.locator("[data-section=summary] dt", has_text="Chat").locator("xpath=following-sibling::dd").inner_text()
    )


def test_continue_on_a_trace_opens_the_form_with_its_agent_and_chat(signed_in: Console, alice: Client) -> None:
    run = _finished_run(alice)
    page = _continue_from_trace(signed_in, run)
    expect(page.get_by_label("Agent", exact=True)).to_have_value(run["agent_id"])
    expect(page.get_by_test_id("continues")).to_contain_text(f"Continues chat {run['chat_id']}")


def test_a_run_started_from_continue_continues_the_chat(signed_in: Console, alice: Client) -> None:
    run = _finished_run(alice)
    page = _continue_from_trace(signed_in, run)
    chat = _start(page, "second turn")
    assert chat.startswith(run["chat_id"])
    messages = alice.call("GET", f"/v1/chats/{run['chat_id']}", expect=200)["messages"]
    assert [m["text"] for m in messages if m["role"] == "user"] == ["first turn", "second turn"]


def test_clearing_the_chat_starts_a_new_one(signed_in: Console, alice: Client) -> None:
    run = _finished_run(alice)
    page = _continue_from_trace(signed_in, run)
    page.get_by_role("button", name="Start a new chat instead").click()
    expect(page.get_by_test_id("continues")).to_have_count(0)
    chat = _start(page, "fresh start")
    assert not chat.startswith(run["chat_id"])
    assert len(alice.call("GET", f"/v1/chats/{run['chat_id']}", expect=200)["messages"]) == 2


def test_a_chat_in_the_chats_list_can_be_continued(signed_in: Console, alice: Client) -> None:
    run = _finished_run(alice)
    page = signed_in.go("#/runs")
    chat = page.locator(f"details[data-chat='{run['chat_id']}']")
    chat.locator("summary").click()
    chat.get_by_role("link", name="Continue this chat").click()
    expect(page.get_by_test_id("continues")).to_contain_text(f"Continues chat {run['chat_id']}")
    expect(page.get_by_label("Agent", exact=True)).to_have_value(run["agent_id"])


def test_a_sub_agents_run_links_to_its_root_instead_of_continuing_its_chat(signed_in: Console, alice: Client) -> None:
    alice.call("PUT", "/v1/agents/chat-helper", {"label": "Chat helper"}, expect=200)
    body = {"label": "Chat master", "tools": ["delegate-to-agent"], "delegates": ["chat-helper"]}
    alice.call("PUT", "/v1/agents/chat-master", body, expect=200)
    root = alice.call(
        "POST", "/v1/runs", {"agent_id": "chat-master", "input": "/delegate chat-helper :: hi"}, expect=202
    )
    assert alice.wait_run(root["run_id"], timeout=60)["status"] == "succeeded"
    events = alice.call("GET", f"/v1/runs/{root['run_id']}/events?tree=true&limit=100", expect=200)["events"]
    child = next(e["run_id"] for e in events if e["type"] == "run_started" and e["depth"] == 1)
    page = signed_in.go(f"#/runs/{child}")
    summary = page.locator("[data-section=summary]")
    expect(summary.get_by_role("link", name="the root run's chat")).to_have_attribute(
        "href", f"#/runs/{root['run_id']}"
    )
    expect(summary.get_by_role("link", name="Continue this chat")).to_have_count(0)
