"""Run once after ``sam deploy`` to trust the stack: ``make e2e STACK=mneme-dev CREATE_USER=1``.

Each test drives the deployed HTTP API (API Gateway → JWT authorizer → run function → DynamoDB, Step
Functions, SQS → writer → Bedrock embeddings → OpenSearch Serverless). Agents use the offline model so the
answers are deterministic; one run calls Bedrock through the stack's default model (``DefaultModelId``).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from typing import Any

import pytest

from tests.e2e.client import Api, eventually
from tests.e2e.conftest import Target

pytestmark = pytest.mark.e2e

RUN_TIMEOUT = 240.0
# OpenSearch Serverless vector collections refresh every ~60 s: a write or a delete shows up within it
MEMORY_TIMEOUT = 180.0


def _events(api: Api, run_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = api.call("GET", f"/v1/runs/{run_id}/events" + (f"?cursor={cursor}" if cursor else ""))
        events += page["events"]
        cursor = page["cursor"]
        if cursor is None:
            return events


def test_health_answers_without_a_token(api: Api) -> None:
    assert api.call("GET", "/v1/health", auth=False) == {"status": "ok"}
    assert api.call("GET", "/v1/agents", auth=False, expect=401) is not None


def test_agents_and_tasks_are_stored(api: Api, agents: dict[str, str], tag: str) -> None:
    agent = api.call("GET", f"/v1/agents/{agents['sub']}")
    assert agent["label"] == f"Sub {tag}"
    task = api.call("PUT", f"/v1/agents/{agents['sub']}/tasks/brief", {"name": "Brief", "context_prompt": "Be brief."})
    assert task["task_id"] == "brief"
    listed = api.call("GET", f"/v1/agents/{agents['sub']}/tasks")["tasks"]
    assert [t["task_id"] for t in listed] == ["brief"]


def test_a_fast_run_answers_with_its_output(api: Api, agents: dict[str, str]) -> None:
    run = api.call("POST", "/v1/runs", {"agent_id": agents["sub"], "input": "hello from e2e"})
    assert (run["status"], run["output"], run["depth"]) == ("succeeded", "offline: hello from e2e", 0)
    requests = api.call("GET", f"/v1/runs/{run['run_id']}/context")["requests"]
    assert len(requests) == 1 and requests[0]["messages"]


def test_a_bedrock_run_answers_through_the_regions_inference_profile(api: Api, target: Target, tag: str) -> None:
    model_id = os.environ.get("MNEME_E2E_MODEL_ID") or target.outputs.get("DefaultModelId")
    if not model_id:
        pytest.skip("e2e: no Bedrock model id (the stack output DefaultModelId, or MNEME_E2E_MODEL_ID)")
    agent_id = f"e2e-bedrock-{tag}"
    api.call(
        "PUT",
        f"/v1/agents/{agent_id}",
        {"label": f"Bedrock {tag}", "model": {"provider": "bedrock", "model_id": model_id}},
    )
    try:
        run = api.call(
            "POST", "/v1/runs", {"agent_id": agent_id, "input": "Answer with the single word: pong"}, expect=(200, 202)
        )
        run = api.run_until(run["run_id"], ("succeeded", "failed"), timeout=RUN_TIMEOUT)
        assert run["status"] == "succeeded", run["error"]
        assert run["output"] and run["usage"]["input_tokens"] > 0
    finally:
        api.call("DELETE", f"/v1/agents/{agent_id}", expect=(204, 404))


def test_a_delegated_run_succeeds_through_the_state_machine(api: Api, agents: dict[str, str]) -> None:
    started = api.call(
        "POST", "/v1/runs", {"agent_id": agents["master"], "input": f"/delegate {agents['sub']} :: say hi"}, expect=202
    )
    run = api.run_until(started["run_id"], ("succeeded", "failed"), timeout=RUN_TIMEOUT)
    assert run["status"] == "succeeded", run["error"]
    assert "offline: say hi" in run["output"]
    (child_id,) = run["children"]
    child = api.call("GET", f"/v1/runs/{child_id}")
    assert (child["status"], child["depth"], child["parent_run_id"]) == ("succeeded", 1, run["run_id"])


def test_memory_is_written_found_and_deleted(api: Api, tag: str) -> None:
    namespace = f"vector.user.{api.user_id}.e2e"
    content = f"The e2e probe {tag} prefers jasmine tea."
    (doc_id,) = api.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": content}, expect=201)[
        "ids"
    ]

    def search() -> list[dict[str, Any]]:
        body = {"query": f"What tea does the e2e probe {tag} prefer?", "namespaces": [namespace]}
        hits: list[dict[str, Any]] = api.call("POST", "/v1/memory/search", body)["hits"]
        return hits

    hits = eventually(search, lambda h: any(hit["id"] == doc_id for hit in h), timeout=MEMORY_TIMEOUT, what="the write")
    assert next(hit for hit in hits if hit["id"] == doc_id)["content"] == content
    api.call("DELETE", f"/v1/memory/documents/{doc_id}?namespace={namespace}", expect=204)
    eventually(search, lambda h: all(hit["id"] != doc_id for hit in h), timeout=MEMORY_TIMEOUT, what="the delete")
    # And the audit trail has the write, the reads and the delete of that namespace
    records = api.call("GET", f"/v1/audit?namespace={namespace}&limit=200")["records"]
    assert {"write", "read", "delete"} <= {r["action"] for r in records}
    assert all(r["user_id"] == api.user_id for r in records)


def test_an_approval_round_trip_resumes_the_run(api: Api, agents: dict[str, str]) -> None:
    started = api.call("POST", "/v1/runs", {"agent_id": agents["asker"], "input": "/search jasmine tea"}, expect=202)
    run_id = started["run_id"]
    api.run_until(run_id, ("waiting_approval",), timeout=RUN_TIMEOUT)
    requested = eventually(
        lambda: [e for e in _events(api, run_id) if e["type"] == "approval_requested"],
        bool,
        timeout=60,
        what="the approval request",
    )
    call_id = requested[0]["calls"][0]["call_id"]
    answer = api.call("POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    assert answer["pending"] == []
    run = api.run_until(run_id, ("succeeded", "failed"), timeout=RUN_TIMEOUT)
    assert run["status"] == "succeeded", run["error"]
    approvals = api.call("GET", f"/v1/audit?run_id={run_id}&action=approval")["records"]
    assert [r["detail"]["decision"] for r in approvals] == ["once"]


def test_an_eventbridge_event_on_the_stacks_bus_starts_one_run(
    api: Api, agents: dict[str, str], target: Target
) -> None:
    if target.session is None or "RunRequestBusName" not in target.outputs:
        pytest.skip("e2e: the EventBridge test needs MNEME_E2E_STACK (the bus) and AWS credentials")
    detail = {"user_id": api.user_id, "agent_id": agents["sub"], "input": f"event {secrets.token_hex(3)}"}
    sent = target.session.client("events").put_events(
        Entries=[
            {
                "EventBusName": target.outputs["RunRequestBusName"],
                "Source": "mneme",
                "DetailType": "mneme.RunRequested",
                "Detail": json.dumps(detail),
            }
        ]
    )
    assert sent["FailedEntryCount"] == 0, sent["Entries"]
    event_id = sent["Entries"][0]["EventId"]
    said = f"{detail['user_id']}\x00{event_id}"
    run_id = "run-evt-" + hashlib.sha256(said.encode()).hexdigest()[:32]  # engine/runs/requested_events.py
    run = eventually(
        lambda: api.call("GET", f"/v1/runs/{run_id}", expect=(200, 404)),
        lambda r: bool(r) and r.get("status") in ("succeeded", "failed"),
        timeout=RUN_TIMEOUT,
        what=f"the run of event {event_id}",
    )
    assert (run["status"], run["output"]) == ("succeeded", f"offline: {detail['input']}")
