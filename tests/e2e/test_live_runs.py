"""Live runs on a deployed stack (issue 15): follow by long-poll, push over the WebSocket API (the $connect
authorizer, subscribe, events as committed, resume after a lost connection), cancel a delegation tree."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.e2e.client import Api, eventually
from tests.e2e.conftest import Target

pytestmark = pytest.mark.e2e

RUN_TIMEOUT = 240.0


def _live_url(target: Target) -> str:
    url = target.outputs.get("LiveUrl") or ""
    if not url:
        pytest.skip("e2e: the WebSocket test needs MNEME_E2E_STACK (its LiveUrl output)")
    return url


def _frames(socket: Any, until: str, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Frames received until one of type ``until`` (included)."""
    frames: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        socket.settimeout(max(0.1, deadline - time.monotonic()))
        frame = json.loads(socket.recv())
        frames.append(frame)
        if frame.get("type") == until:
            return frames
    raise AssertionError(f"no {until} frame in {timeout} s: {frames[-5:]}")


def test_a_long_poll_answers_at_the_next_event_of_a_delegated_tree(api: Api, agents: dict[str, str]) -> None:
    started = api.call(
        "POST",
        "/v1/runs",
        {"agent_id": agents["master"], "input": f"/delegate {agents['sub']} :: follow me"},
        expect=202,
    )
    cursor: str | None = None
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + RUN_TIMEOUT
    while not any(e["type"] == "completed" and e["depth"] == 0 for e in seen) and time.monotonic() < deadline:
        query = "?tree=true&wait=20" + (f"&cursor={cursor}" if cursor else "")
        started_at = time.monotonic()
        page = api.call("GET", f"/v1/runs/{started['run_id']}/events{query}")
        assert time.monotonic() - started_at < 29  # inside the HTTP API's integration timeout
        seen += page["events"]
        cursor = page["cursor"]
    assert {e["depth"] for e in seen} == {0, 1}
    assert any(e["type"] == "delegation_started" for e in seen)


def test_the_websocket_api_refuses_a_connection_without_a_valid_token(target: Target) -> None:
    import websocket

    url = _live_url(target)
    for query in ("", "?token=not-a-jwt"):
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(url + query, timeout=15)
        assert refused.value.status_code in (401, 403)


def test_a_subscriber_receives_the_runs_events_as_they_are_committed_and_resumes_after_a_drop(
    api: Api, agents: dict[str, str], target: Target
) -> None:
    import websocket

    url = _live_url(target)
    started = api.call("POST", "/v1/runs", {"agent_id": agents["asker"], "input": "/search live tea"}, expect=202)
    run_id = started["run_id"]
    api.run_until(run_id, ("waiting_approval",), timeout=RUN_TIMEOUT)
    # Given a connection subscribed to the waiting run (the backlog first)
    socket = websocket.create_connection(f"{url}?token={target.token}", timeout=30)
    socket.send(json.dumps({"action": "subscribe", "run_id": run_id, "after": 0}))
    backlog = _frames(socket, "subscribed")
    requested = [f["event"] for f in backlog if f["type"] == "event" and f["event"]["type"] == "approval_requested"]
    assert requested, backlog
    last = max(f["event"]["seq"] for f in backlog if f["type"] == "event")
    # When the connection drops, the run resumes, and a new connection subscribes after the last seq seen
    socket.close()
    call_id = requested[0]["calls"][0]["call_id"]
    api.call("POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    api.run_until(run_id, ("succeeded",), timeout=RUN_TIMEOUT)
    again = websocket.create_connection(f"{url}?token={target.token}", timeout=30)
    again.send(json.dumps({"action": "subscribe", "run_id": run_id, "after": last}))
    resumed = _frames(again, "subscribed")
    again.close()
    # Then nothing was lost: the events after it, up to completed, in order
    seqs = [f["event"]["seq"] for f in resumed if f["type"] == "event"]
    assert seqs == list(range(last + 1, last + 1 + len(seqs))) and seqs
    assert resumed[-2]["event"]["type"] == "completed"


def test_another_users_run_cannot_be_subscribed(api: Api, agents: dict[str, str], target: Target) -> None:
    import websocket

    url = _live_url(target)
    socket = websocket.create_connection(f"{url}?token={target.token}", timeout=30)
    socket.send(json.dumps({"action": "subscribe", "run_id": "run-that-is-not-yours"}))
    (frame,) = _frames(socket, "error")
    socket.close()
    assert frame["error"] == "not_found"


def test_cancelling_a_delegating_root_cancels_its_tree(api: Api, agents: dict[str, str]) -> None:
    started = api.call(
        "POST",
        "/v1/runs",
        {"agent_id": agents["master"], "input": f"/delegate {agents['asker']} :: /search something slow"},
        expect=202,
    )
    root = started["run_id"]
    run = eventually(
        lambda: api.call("GET", f"/v1/runs/{root}"), lambda r: bool(r["children"]), timeout=RUN_TIMEOUT, what="a child"
    )
    answer = api.call("POST", f"/v1/runs/{root}/cancel")
    assert answer["status"] == "cancelled"
    for run_id in [root, *run["children"]]:
        assert api.call("GET", f"/v1/runs/{run_id}")["status"] == "cancelled"
    assert api.call("POST", f"/v1/runs/{root}/cancel")["status"] == "cancelled"  # idempotent
