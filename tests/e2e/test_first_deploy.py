"""What a first deploy must prove (issue 31, AWS review): a run's memory write travels SQS -> writer -> store;
a Step Functions step pushes live over the WebSocket API (not only the backlog replay); a throwaway user's
export and erasure end to end, the erasure also deleting the user; two real users are isolated.

Opt-in like the rest of tests/e2e: skipped with the reason when unconfigured. The throwaway users need
``MNEME_E2E_STACK`` (its user pool outputs) and AWS credentials allowed the Cognito admin APIs.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Generator, Iterator
from typing import Any, cast

import pytest

from tests.e2e.client import Api, eventually
from tests.e2e.conftest import Target, _cognito_user

pytestmark = pytest.mark.e2e

RUN_TIMEOUT = 240.0
MEMORY_TIMEOUT = 180.0  # queue delivery, Bedrock embedding, OpenSearch Serverless refresh (~60 s)


class Throwaway:
    """A second user of the stack's pool, created for one test and deleted by :meth:`delete`."""

    def __init__(self, target: Target) -> None:
        if target.session is None or "UserPoolId" not in target.outputs:
            pytest.skip(
                "e2e: a throwaway user needs MNEME_E2E_STACK with the stack's user pool and Cognito admin rights"
            )
        self._target = target
        self._users = cast(Generator[str, None, None], _cognito_user(target.session, target.outputs))
        self.api = Api(target.url, next(self._users))

    def delete(self) -> None:
        self._users.close()  # runs _cognito_user's finally: admin_delete_user

    def exists(self) -> bool:
        cognito = self._target.session.client("cognito-idp")
        pool = self._target.outputs["UserPoolId"]
        users = cognito.list_users(UserPoolId=pool, Filter=f'sub = "{self.api.user_id}"')["Users"]
        return bool(users)


@pytest.fixture
def other(target: Target) -> Iterator[Throwaway]:
    user = Throwaway(target)
    try:
        yield user
    finally:
        user.delete()


def _search(api: Api, namespace: str, query: str) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = api.call("POST", "/v1/memory/search", {"query": query, "namespaces": [namespace]})[
        "hits"
    ]
    return hits


def test_a_runs_memory_write_goes_through_the_queue_and_the_writer(api: Api, tag: str) -> None:
    agent_id = f"e2e-writer-{tag}"
    namespace = f"vector.user.{api.user_id}.e2e-auto-{tag}"
    policy = {"allow_write": True, "write_namespace": "vector.user.${user_id}.e2e-auto-" + tag}
    api.call(
        "PUT",
        f"/v1/agents/{agent_id}",
        {"model": {"provider": "offline", "model_id": "offline"}, "memory_policy": policy},
    )
    try:
        token = f"queued-probe-{tag}"
        started = api.call(
            "POST", "/v1/runs", {"agent_id": agent_id, "input": f"Remember {token} please."}, expect=(200, 202)
        )
        run = api.run_until(started["run_id"], ("succeeded",), timeout=RUN_TIMEOUT)
        events = api.call("GET", f"/v1/runs/{run['run_id']}/events")["events"]
        assert any(e["type"] == "memory_write_queued" for e in events)  # the run handed it to SQS
        hits = eventually(
            lambda: _search(api, namespace, token),
            lambda h: any(token in hit["content"] for hit in h),
            timeout=MEMORY_TIMEOUT,
            what="the writer to store the queued memory",
        )
        assert all(hit["namespace"] == namespace for hit in hits)
    finally:
        api.call("DELETE", f"/v1/agents/{agent_id}", expect=(204, 404))


def _frames_after_subscribed(socket: Any, done: Any, timeout: float = RUN_TIMEOUT) -> list[dict[str, Any]]:
    """Frames pushed after the ``subscribed`` frame (the backlog ends there) until ``done(frame)``."""
    live: list[dict[str, Any]] = []
    subscribed = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        socket.settimeout(max(0.1, deadline - time.monotonic()))
        frame = json.loads(socket.recv())
        if subscribed:
            live.append(frame)
            if done(frame):
                return live
        subscribed = subscribed or frame.get("type") == "subscribed"
    raise AssertionError(f"no live frame matched in {timeout} s: {live[-5:]}")


def test_a_step_functions_step_pushes_its_events_live(api: Api, agents: dict[str, str], target: Target) -> None:
    import websocket

    url = target.outputs.get("LiveUrl") or pytest.skip("e2e: the WebSocket test needs MNEME_E2E_STACK (LiveUrl)")
    # Given a delegated child (a Step Functions execution) waiting for an approval
    body = {"agent_id": agents["master"], "input": f"/delegate {agents['asker']} :: /search live push"}
    root = api.call("POST", "/v1/runs", body, expect=202)["run_id"]
    tree = eventually(
        lambda: api.call("GET", f"/v1/runs/{root}"), lambda r: bool(r["children"]), timeout=RUN_TIMEOUT, what="a child"
    )
    child = tree["children"][0]
    api.run_until(child, ("waiting_approval",), timeout=RUN_TIMEOUT)
    socket = websocket.create_connection(f"{url}?token={target.token}", timeout=30)
    try:
        socket.send(json.dumps({"action": "subscribe", "run_id": root, "tree": True}))
        # When the approval resumes the child in its state machine execution
        requested = [
            e for e in api.call("GET", f"/v1/runs/{child}/events")["events"] if e["type"] == "approval_requested"
        ]
        call_id = requested[0]["calls"][0]["call_id"]
        api.call("POST", f"/v1/runs/{child}/approvals", {"call_id": call_id, "decision": "once"})
        # Then the child's completion arrives as a push after the backlog, not only on replay
        live = _frames_after_subscribed(
            socket,
            lambda f: f.get("type") == "event" and f["run_id"] == child and f["event"]["type"] == "completed",
        )
    finally:
        socket.close()
    # frames carry the run and its depth beside the event (engine/views/sockets.py)
    assert any(f.get("type") == "event" and f["depth"] == 1 for f in live)


def test_export_then_erasure_of_a_throwaway_user_end_to_end(target: Target, tag: str) -> None:
    user = Throwaway(target)
    try:
        api = user.api
        namespace = f"vector.user.{api.user_id}.e2e"
        content = f"Export probe {tag} likes oolong."
        api.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": content}, expect=201)
        # export: requested, ready, and the archive holds the user's memory
        export_id = api.call("POST", "/v1/me/export", expect=202)["export_id"]
        ready = eventually(
            lambda: api.call("GET", f"/v1/me/exports/{export_id}"),
            lambda e: e["status"] in ("ready", "failed"),
            timeout=MEMORY_TIMEOUT,
            what="the export",
        )
        assert ready["status"] == "ready", ready
        with urllib.request.urlopen(ready["download_url"], timeout=30) as response:
            lines = [json.loads(line) for line in response.read().decode().splitlines() if line]
        assert any(content in json.dumps(line) for line in lines)
        # erasure: done, verified, nothing of the user left to find
        api.call("DELETE", "/v1/me", expect=(200, 202))
        receipt = eventually(
            lambda: api.call("GET", "/v1/me/erasure"),
            lambda r: r["status"] == "done",
            timeout=MEMORY_TIMEOUT,
            what="erasure",
        )
        assert receipt["verified"] is True, receipt
        assert receipt["user_id"] == api.user_id
        assert _search(api, namespace, content) == []
    finally:
        user.delete()
    # and the erasure's test user is gone from the pool too
    assert not user.exists()


def test_two_real_users_see_nothing_of_each_other(api: Api, agents: dict[str, str], other: Throwaway, tag: str) -> None:
    namespace = f"vector.user.{api.user_id}.e2e-iso-{tag}"
    content = f"Isolation probe {tag} is private."
    (doc_id,) = api.call("POST", "/v1/memory/documents", {"namespace": namespace, "content": content}, expect=201)[
        "ids"
    ]
    eventually(lambda: _search(api, namespace, content), bool, timeout=MEMORY_TIMEOUT, what="the owner's write")
    run_id = api.call("POST", "/v1/runs", {"agent_id": agents["sub"], "input": "private run"}, expect=(200, 202))[
        "run_id"
    ]
    try:
        intruder = other.api
        # another user's namespace: refused or empty, never the content
        body = {"query": content, "namespaces": [namespace]}
        answer = intruder.call("POST", "/v1/memory/search", body, expect=(200, 403, 404))
        assert not (answer or {}).get("hits")
        intruder.call("DELETE", f"/v1/memory/documents/{doc_id}?namespace={namespace}", expect=(403, 404))
        intruder.call("GET", f"/v1/runs/{run_id}", expect=404)
        intruder.call("GET", f"/v1/runs/{run_id}/events", expect=404)
        listed = intruder.call("GET", "/v1/agents")
        assert agents["sub"] not in json.dumps(listed)
        # and the owner still has it
        assert any(hit["id"] == doc_id for hit in _search(api, namespace, content))
    finally:
        api.call("DELETE", f"/v1/memory/documents/{doc_id}?namespace={namespace}", expect=(204, 404))
