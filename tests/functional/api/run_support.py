"""Small call wrappers shared by the run route tests."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api


def start(api: Api, text: str, **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": text, **fields})
    assert reply.status in (200, 202), reply.text
    body: dict[str, Any] = reply.body
    return body


def events_of(api: Api, run_id: str, **options: Any) -> list[dict[str, Any]]:
    reply = api.get(f"/v1/runs/{run_id}/events", **options)
    assert reply.status == 200
    events: list[dict[str, Any]] = reply.body["events"]
    return events


def step_event(api: Api, run_id: str, depth: int = 0) -> dict[str, Any]:
    event = {"action": "step", "run_id": run_id, "depth": depth, "delegation_refused": False, "execution_id": "x"}
    result: dict[str, Any] = api.runtime.handle(event)
    return result
