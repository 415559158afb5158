"""Live runs on the local server over real HTTP (issue 15.1, 15.2): a long-poll waits beside other requests
instead of blocking them, follows a delegated tree, and ``Accept: text/event-stream`` streams a run's
events and the model's text deltas as server-sent events, resumable with ``Last-Event-ID``."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time
from typing import Any

import pytest

from tests.functional.local.support import LocalServer, Response


@pytest.fixture(scope="module")
def alice(server: LocalServer) -> str:
    token = server.token("alice")
    server.request("PUT", "/v1/agents/lister", {"label": "Lister", "tools": ["memory-search"]}, token=token)
    server.request(
        "PUT",
        "/v1/agents/asker",
        {"label": "Asker", "tools": ["memory-search"], "tool_approval_default": "prompt"},
        token=token,
    )
    server.request(
        "PUT",
        "/v1/agents/boss",
        {"label": "Boss", "tools": ["delegate-to-agent"], "delegates": ["asker"]},
        token=token,
    )
    return token


def _waiting(server: LocalServer, token: str) -> tuple[str, str, int]:
    """A run waiting for alice's approval: its id, the pending call, its last event's seq."""
    run = server.request(
        "POST", "/v1/runs", {"agent_id": "lister", "input": "/search cats", "tool_approval": "prompt"}, token=token
    ).json()
    events = _wait_for(server, token, run["run_id"], "approval_requested")
    call_id = next(e for e in events if e["type"] == "approval_requested")["calls"][0]["call_id"]
    return run["run_id"], call_id, events[-1]["seq"]


def _wait_for(server: LocalServer, token: str, run_id: str, kind: str, *, tree: bool = False) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        query = "?tree=true" if tree else ""
        events = server.request("GET", f"/v1/runs/{run_id}/events{query}", token=token).json()["events"]
        if any(e["type"] == kind for e in events):
            return list(events)
        time.sleep(0.1)
    raise AssertionError(f"no {kind} event on {run_id}")


def test_a_long_poll_waits_beside_other_requests_and_returns_the_next_event(server: LocalServer, alice: str) -> None:
    # Given a run waiting for approval, and a client long-polling it for 20 s
    run_id, call_id, last = _waiting(server, alice)
    polled: dict[str, Any] = {}

    def follow() -> None:
        started = time.monotonic()
        polled["reply"] = server.request("GET", f"/v1/runs/{run_id}/events?after={last}&wait=20", token=alice)
        polled["seconds"] = time.monotonic() - started

    follower = threading.Thread(target=follow)
    follower.start()
    time.sleep(1.0)
    # When a second client is served meanwhile — reads, and the approval that resumes the run
    started = time.monotonic()
    assert server.request("GET", f"/v1/runs/{run_id}", token=alice).status == 200
    assert server.request("GET", "/v1/agents", token=alice).status == 200
    answer = server.request(
        "POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"}, token=alice
    )
    served = time.monotonic() - started
    follower.join(timeout=30)
    # Then the second client was not held up by the waiting one, and the long-poll answered with what came
    assert answer.status == 200 and served < 5.0, served
    reply: Response = polled["reply"]
    assert reply.status == 200
    events = reply.json()["events"]
    assert events and events[0]["seq"] == last + 1
    assert polled["seconds"] < 15.0


def test_a_tree_long_poll_returns_the_next_event_of_a_delegated_child(server: LocalServer, alice: str) -> None:
    # Given a boss whose child waits for approval (its agent prompts), the tree read up to now
    root = server.request(
        "POST", "/v1/runs", {"agent_id": "boss", "input": "/delegate asker :: /search dogs"}, token=alice
    ).json()["run_id"]
    events = _wait_for(server, alice, root, "approval_requested", tree=True)
    child = next(e for e in events if e["type"] == "approval_requested")
    cursor = server.request("GET", f"/v1/runs/{root}/events?tree=true", token=alice).json()["cursor"]
    # When the client follows the tree and alice approves the child's call
    polled: dict[str, Any] = {}
    follower = threading.Thread(
        target=lambda: polled.update(
            reply=server.request("GET", f"/v1/runs/{root}/events?tree=true&wait=20&cursor={cursor}", token=alice)
        )
    )
    follower.start()
    time.sleep(0.5)
    call_id = child["calls"][0]["call_id"]
    approved = server.request(
        "POST", f"/v1/runs/{child['run_id']}/approvals", {"call_id": call_id, "decision": "once"}, token=alice
    )
    assert approved.status == 200, approved.json()
    follower.join(timeout=30)
    # Then the answer carries the child's next events, tagged with its run and depth 1
    answered = polled["reply"].json()["events"]
    assert answered and answered[0]["run_id"] == child["run_id"] and answered[0]["depth"] == 1


def _stream(
    server: LocalServer,
    token: str,
    path: str,
    headers: dict[str, str] | None = None,
    frames: list[tuple[str, str, dict[str, Any]]] | None = None,
) -> list[tuple[str, str, dict[str, Any]]]:
    """Read a server-sent event stream to its end: (event, id, data) triples, appended to ``frames`` as they come."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=40)
    connection.request(
        "GET", path, headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream", **(headers or {})}
    )
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/event-stream")
    frames = [] if frames is None else frames
    kind, event_id, data = "", "", ""
    for raw in response:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and kind:
            frames.append((kind, event_id, json.loads(data)))
            if kind == "end":
                break
            kind, event_id, data = "", "", ""
    connection.close()
    return frames


def test_an_event_stream_carries_the_events_and_the_models_text_as_it_is_generated(
    server: LocalServer, alice: str
) -> None:
    # Given a run waiting for approval, followed as server-sent events
    run_id, call_id, _ = _waiting(server, alice)
    frames: list[Any] = []
    reader = threading.Thread(target=_stream, args=(server, alice, f"/v1/runs/{run_id}/events", None, frames))
    reader.start()
    # the stream follows the run's live text before it sends the stored events: once one came, no delta is missed
    deadline = time.monotonic() + 30
    while not any(kind == "run_event" for kind, _, _ in frames) and time.monotonic() < deadline:
        time.sleep(0.05)
    # When alice approves and the run finishes
    server.request("POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"}, token=alice)
    reader.join(timeout=40)
    # Then the stream held every event in order, the model's answer in pieces while it was generated, and an end
    events = [data for kind, _, data in frames if kind == "run_event"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "completed" and frames[-1][0] == "end", (frames[-3:], reader.is_alive())
    deltas = [data for kind, _, data in frames if kind == "delta"]
    assert len(deltas) >= 1 and all(d["run_id"] == run_id for d in deltas)
    output = server.request("GET", f"/v1/runs/{run_id}", token=alice).json()["output"]
    assert "".join(d["text"] for d in deltas) == output


def test_an_event_stream_resumes_after_the_last_event_id(server: LocalServer, alice: str) -> None:
    run = server.request("POST", "/v1/runs", {"agent_id": "lister", "input": "hello there"}, token=alice).json()
    frames = _stream(server, alice, f"/v1/runs/{run['run_id']}/events", headers={"Last-Event-ID": "2"})
    events = [data for kind, _, data in frames if kind == "run_event"]
    assert events[0]["seq"] == 3 and events[-1]["type"] == "completed"
    assert next(event_id for kind, event_id, _ in frames if kind == "run_event") == "3"


def test_an_event_stream_needs_a_token(server: LocalServer) -> None:
    reply = server.request("GET", "/v1/runs/anything/events", headers={"Accept": "text/event-stream"})
    assert reply.status == 401


def test_a_client_that_leaves_an_event_stream_leaves_no_traceback_in_the_log(server: LocalServer, alice: str) -> None:
    # Given a stream of a waiting run, whose client reads the first event and goes away (reset, like `| head`)
    run_id, call_id, _ = _waiting(server, alice)
    logged = len(server.output())
    client = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    request = f"GET /v1/runs/{run_id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {alice}\r\n"
    client.sendall((request + "Accept: text/event-stream\r\n\r\n").encode())
    assert b"event: run_event" in client.recv(65536)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()
    # When the run goes on, so the stream has more to write to nobody
    server.request("POST", f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"}, token=alice)
    deadline = time.monotonic() + 20
    while server.request("GET", f"/v1/runs/{run_id}", token=alice).json()["status"] != "succeeded":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(2.0)  # the stream's next read finds the end and writes it to nobody
    # Then the server logged no traceback of it
    assert "Traceback" not in server.output()[logged:] and "BrokenPipeError" not in server.output()[logged:]
