"""Every route of SPEC §10 answers with its documented shape over the local server (one tour, one user)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.functional.local.support import Client, LocalServer
from tests.support.shapes import AUDIT_KEYS, HIT_KEYS, RUN_KEYS, USAGE_KEYS

pytestmark = pytest.mark.slow


def _wait_status(client: Client, run_id: str, status: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        run: dict[str, Any] = client.call("GET", f"/v1/runs/{run_id}", expect=200)
        if run["status"] == status or time.monotonic() > deadline:
            return run
        time.sleep(0.2)


def test_every_route_answers_with_its_shape(server: LocalServer) -> None:
    dora = Client(server, server.token("dora"))
    call = dora.call
    # settings
    profile = {"name": "Dora", "email": "dora@example.com", "language": "fr-CA", "timezone": "America/Toronto"}
    assert call("PUT", "/v1/me/settings", profile, expect=200).items() >= profile.items()
    assert call("GET", "/v1/me/settings", expect=200).items() >= profile.items()
    # skills
    skill = {"description": "greets", "when_to_use": "on hello", "content": "Say bonjour."}
    assert call("PUT", "/v1/skills/greet", skill, expect=200)["name"] == "greet"
    assert call("GET", "/v1/skills/greet", expect=200)["content"] == "Say bonjour."
    assert [s["name"] for s in call("GET", "/v1/skills", expect=200)["skills"]] == ["greet"]
    # agents and tasks
    agent = {
        "label": "Asker",
        "description": "asks before searching",
        "model": {"provider": "offline", "model_id": "offline"},
        "tools": ["memory-search", "memory-write"],
        "skills": ["greet"],
        "delegates": [],
        "memory_policy": {"tool_read_namespaces": ["vector.user.${user_id}.memory"], "min_score": 0.1},
        "tool_approval_default": "prompt",
        "default_task_id": "main",
    }
    saved = call("PUT", "/v1/agents/asker", agent, expect=200)
    assert saved["agent_id"] == "asker" and saved["memory_policy"]["min_score"] == 0.1
    assert call("GET", "/v1/agents/asker", expect=200)["label"] == "Asker"
    assert [a["agent_id"] for a in call("GET", "/v1/agents", expect=200)["agents"]] == ["asker"]
    task = {"name": "Main", "context_prompt": "Today is ${current_date}.", "memory_policy": {"top_k": 3}}
    saved_task = call("PUT", "/v1/agents/asker/tasks/main", task, expect=200)
    assert saved_task["task_id"] == "main" and saved_task["warnings"]  # the prefix changes every minute
    assert call("GET", "/v1/agents/asker/tasks/main", expect=200)["name"] == "Main"
    assert [t["task_id"] for t in call("GET", "/v1/agents/asker/tasks", expect=200)["tasks"]] == ["main"]
    # memory
    doc = {"namespace": "vector.user.dora.memory", "content": "Dora drinks green tea every morning."}
    written = call("POST", "/v1/memory/documents", doc, expect=201)
    assert len(written["ids"]) == 1
    found = call("POST", "/v1/memory/search", {"query": "What does Dora drink?"}, expect=200)
    assert set(found) >= {"hits", "namespaces"} and set(found["hits"][0]) >= HIT_KEYS
    # preview
    preview = call("POST", "/v1/context/preview", {"agent_id": "asker", "input": "what do I drink?"}, expect=200)
    assert set(preview) >= {"request", "memory_hits", "warnings"} and preview["request"]["modelId"] == "offline"
    # a run that waits for approval (waitForTaskToken in the state machine), then the approval
    started = call("POST", "/v1/runs", {"agent_id": "asker", "input": "/search green tea"}, expect=202)
    run = _wait_status(dora, started["run_id"], "waiting_approval")
    assert run["status"] == "waiting_approval", run
    events = call("GET", f"/v1/runs/{run['run_id']}/events", expect=200)["events"]
    asked = next(e for e in events if e["type"] == "approval_requested")
    assert {"seq", "type", "at"} <= set(asked) and asked["calls"][0]["tool"] == "memory-search"
    answer = {"call_id": asked["calls"][0]["call_id"], "decision": "once"}
    assert call("POST", f"/v1/runs/{run['run_id']}/approvals", answer, expect=200)["decision"] == "once"
    finished = dora.wait_run(run["run_id"])
    assert finished["status"] == "succeeded" and "green tea" in finished["output"], finished
    assert set(finished) >= RUN_KEYS and set(finished["usage"]) >= USAGE_KEYS
    requests = call("GET", f"/v1/runs/{run['run_id']}/context", expect=200)["requests"]
    assert len(requests) == 2 and all({"modelId", "system", "messages"} <= set(r) for r in requests)
    # chats
    chats = call("GET", "/v1/chats", expect=200)["chats"]
    assert finished["chat_id"] in {c["chat_id"] for c in chats}
    assert call("GET", f"/v1/chats/{finished['chat_id']}", expect=200)["messages"]
    # audit
    audit = call("GET", "/v1/audit?limit=5", expect=200)
    assert set(audit) >= {"records", "cursor"} and set(audit["records"][0]) >= AUDIT_KEYS
    actions = {r["action"] for r in call("GET", "/v1/audit?limit=100", expect=200)["records"]}
    assert {"write", "read", "approval"} <= actions
    # deletes
    assert server.request("DELETE", f"/v1/memory/documents/{written['ids'][0]}", token=dora.token).status in (200, 204)
    assert server.request("DELETE", f"/v1/chats/{finished['chat_id']}", token=dora.token).status in (200, 204)
    assert server.request("DELETE", "/v1/agents/asker/tasks/main", token=dora.token).status in (200, 204)
    assert server.request("DELETE", "/v1/agents/asker", token=dora.token).status in (200, 204)
    assert server.request("DELETE", "/v1/skills/greet", token=dora.token).status in (200, 204)
    call("GET", "/v1/agents/asker", expect=404)
    # errors keep the JSON shape: 400 with the field, 404, 413
    bad = server.request("PUT", "/v1/agents/Not_A_Slug!", {"label": "x"}, token=dora.token)
    assert bad.status in (400, 404) and set(bad.json()) >= {"error", "message"}
    missing = server.request("GET", "/v1/runs/nope", token=dora.token)
    assert missing.status == 404 and missing.json()["error"] == "not_found"
    big = server.request("POST", "/v1/runs", {"agent_id": "x", "input": "x" * 100_001}, token=dora.token)
    assert big.status == 413 and big.json()["error"] == "payload_too_large"
