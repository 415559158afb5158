"""On a phone-sized screen (390 × 844) no page of the console scrolls sideways: wide tables scroll inside their
own box, long ids and headings wrap."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Console
from tests.functional.local.support import Client, LocalServer

PHONE = {"width": 390, "height": 844}
CLAUDE = "anthropic.claude-3-7-sonnet-20250219-v1:0"

#: what is wider than the window: the elements whose right edge passes it, widest first (shown when a test fails)
WIDEST = """() => [...document.querySelectorAll('main *')]
  .map((el) => [el.getBoundingClientRect().right, el.tagName + (el.className ? '.' + el.className : '')
    + (el.dataset.testid ? '[' + el.dataset.testid + ']' : '')])
  .filter(([right]) => right > window.innerWidth + 0.5).sort((a, b) => b[0] - a[0]).slice(0, 8)"""


@dataclass(frozen=True)
class Seeded:
    token: str
    routes: dict[str, str]


@pytest.fixture(scope="module")
def seeded(server: LocalServer) -> Seeded:
    """A user with a skill, two agents (one delegating to the other), a task, a memory and a delegating run."""
    user = f"user-{uuid.uuid4().hex[:8]}"
    client = Client(server, server.token(user))
    skill, sub, master = "summarize-in-three-bullets", "researcher-with-a-long-id", "planner-with-a-long-id"
    client.call("PUT", f"/v1/skills/{skill}", {"description": "Short summaries of long texts", "content": "Be brief."})
    namespace = f"vector.user.{user}.memory"
    written = client.call(
        "POST", "/v1/memory/documents", {"namespace": namespace, "content": "The Apollo review is due on March 15."}
    )
    policy = {"tool_read_namespaces": ["vector.user.${user_id}.*"]}
    sub_agent = {"label": "Researcher", "model": {"provider": "bedrock", "model_id": CLAUDE}, "memory_policy": policy}
    client.call("PUT", f"/v1/agents/{sub}", {**sub_agent, "tools": ["memory-search"]}, expect=200)
    master_agent = {"label": "Planner", "tools": ["delegate-to-agent"], "delegates": [sub], "skills": [skill]}
    client.call("PUT", f"/v1/agents/{master}", master_agent, expect=200)
    client.call("PUT", f"/v1/agents/{master}/tasks/weekly-digest", {"context_prompt": "Digest for ${user_id}."})
    started = client.call(
        "POST", "/v1/runs", {"agent_id": master, "input": f"/delegate {sub} :: /search When is the Apollo review?"}
    )
    root = client.wait_run(started["run_id"], timeout=45)
    assert root["status"] == "succeeded", root
    child = root["children"][0]
    routes = {
        "runs": "#/runs",
        "trace": f"#/runs/{root['run_id']}",
        "trace-child": f"#/runs/{root['run_id']}/{child}",
        "agents": "#/agents",
        "agent": f"#/agents/{master}",
        "task": f"#/agents/{master}/tasks/weekly-digest",
        "skills": "#/skills",
        "skill": f"#/skills/{skill}",
        "preview": "#/preview",
        "memory": f"#/memory/{written['ids'][0]}",
        "audit": "#/audit",
    }
    return Seeded(client.token, routes)


@pytest.mark.parametrize(
    "view", ["runs", "trace", "trace-child", "agents", "agent", "task", "skills", "skill", "preview", "memory", "audit"]
)
def test_no_page_scrolls_sideways_on_a_phone(console: Console, seeded: Seeded, view: str) -> None:
    page = console.page
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    console.open(seeded.routes[view], token=seeded.token)
    expect(page.get_by_role("status").filter(has_text="Loading…")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    console.screenshot(f"phone-{view}")
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], (view, sizes, page.evaluate(WIDEST))
