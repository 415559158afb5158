"""The WebSocket API's routes through ``Runtime.handle`` (issue 15.2): ``$connect`` after the authorizer,
``subscribe`` (owner-checked, backlog first), pushes of committed events and of the model's text while it is
generated, ``unsubscribe``, ``$disconnect``. The pushes are recorded (the real one is tested with Stubber)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.adapters.aws.websocket_hub import WebSocketHub
from mneme.runtime import Runtime
from tests.functional.adapters.test_websocket_hub import Recorded
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World


@pytest.fixture
def pusher(world: World) -> Recorded:
    recorded = Recorded()
    hub = WebSocketHub(world.deps.runs._table, recorded, world.clock)  # type: ignore[attr-defined]
    world.deps.live, world.deps.sockets = hub, hub
    return recorded


def _socket(kind: str, connection: str = "c1", body: Any = None, user: str | None = "alice") -> dict[str, Any]:
    context: dict[str, Any] = {"eventType": kind, "connectionId": connection, "routeKey": "$default"}
    if user is not None:
        context["authorizer"] = {"user_id": user, "is_admin": "false", "principalId": user}
    event: dict[str, Any] = {"requestContext": context, "isBase64Encoded": False}
    if body is not None:
        event["body"] = body if isinstance(body, str) else json.dumps(body)
    return event


def _frames(pusher: Recorded, connection: str = "c1", kind: str | None = None) -> list[dict[str, Any]]:
    return [f for c, f in pusher.frames if c == connection and (kind is None or f["type"] == kind)]


def _waiting(api: Api, world: World) -> tuple[str, str]:
    add_agent(world, "master", tools=["memory-search"])
    run_id = start(api, "/search cats", tool_approval="prompt")["run_id"]
    call = next(e for e in events_of(api, run_id) if e["type"] == "approval_requested")["calls"][0]
    return run_id, call["call_id"]


def test_a_subscriber_gets_the_backlog_then_every_event_and_the_models_text_as_it_comes(
    api: Api, world: World, pusher: Recorded
) -> None:
    runtime: Runtime = api.runtime
    run_id, call_id = _waiting(api, world)
    # Given alice's connection subscribed to her waiting run
    assert runtime.handle(_socket("CONNECT")) == {"statusCode": 200}
    runtime.handle(_socket("MESSAGE", body={"action": "subscribe", "run_id": run_id}))
    backlog = _frames(pusher, kind="event")
    assert [f["event"]["seq"] for f in backlog] == [e["seq"] for e in events_of(api, run_id)]
    assert _frames(pusher)[-1] == {"type": "subscribed", "run_id": run_id, "tree": False, "cursor": None}
    pusher.frames.clear()
    # When she approves and the run's step runs
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    # Then each event of the step was pushed as it was committed, and the answer's text in pieces before it
    pushed = _frames(pusher, kind="event")
    stored = [e for e in events_of(api, run_id) if e["seq"] > backlog[-1]["event"]["seq"]]
    assert [f["event"]["seq"] for f in pushed] == [e["seq"] for e in stored]
    deltas = _frames(pusher, kind="delta")
    assert deltas and "".join(d["text"] for d in deltas) == api.get(f"/v1/runs/{run_id}").body["output"]
    first_event = next(i for i, (_, f) in enumerate(pusher.frames) if f["type"] == "event")
    assert pusher.frames[0][1]["type"] == "delta" and first_event > 0  # the text came while the step ran


def test_without_a_subscriber_the_model_does_not_stream(api: Api, world: World, pusher: Recorded) -> None:
    run_id, call_id = _waiting(api, world)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    assert pusher.frames == []


def test_subscribing_after_a_seq_sends_only_what_came_later(api: Api, world: World, pusher: Recorded) -> None:
    run_id, _ = _waiting(api, world)
    last = events_of(api, run_id)[-1]["seq"]
    api.runtime.handle(_socket("CONNECT"))
    api.runtime.handle(_socket("MESSAGE", body={"action": "subscribe", "run_id": run_id, "after": last - 1}))
    assert [f["event"]["seq"] for f in _frames(pusher, kind="event")] == [last]


def test_another_users_run_cannot_be_subscribed(api: Api, world: World, pusher: Recorded) -> None:
    run_id, call_id = _waiting(api, world)
    api.runtime.handle(_socket("CONNECT", connection="bob1", user="bob"))
    api.runtime.handle(_socket("MESSAGE", connection="bob1", body={"action": "subscribe", "run_id": run_id}))
    assert _frames(pusher, "bob1") == [
        {"type": "error", "run_id": run_id, "error": "not_found", "message": f"no run {run_id!r}"}
    ]
    pusher.frames.clear()
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    assert _frames(pusher, "bob1") == []


def test_a_tree_subscription_receives_the_childrens_events(api: Api, world: World, pusher: Recorded) -> None:
    add_agent(world, "helper")
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"])
    root = start(api, "/delegate helper :: look it up")["run_id"]
    (child,) = api.get(f"/v1/runs/{root}").body["children"]
    api.runtime.handle(_socket("CONNECT"))
    api.runtime.handle(_socket("MESSAGE", body={"action": "subscribe", "run_id": root, "tree": True}))
    pusher.frames.clear()
    step_event(api, child, depth=1)
    pushed = _frames(pusher, kind="event")
    assert pushed and {(f["run_id"], f["depth"]) for f in pushed} == {(child, 1)}


def test_unsubscribe_and_disconnect_stop_the_pushes(api: Api, world: World, pusher: Recorded) -> None:
    run_id, call_id = _waiting(api, world)
    api.runtime.handle(_socket("CONNECT"))
    api.runtime.handle(_socket("MESSAGE", body={"action": "subscribe", "run_id": run_id}))
    api.runtime.handle(_socket("MESSAGE", body={"action": "unsubscribe", "run_id": run_id}))
    assert _frames(pusher)[-1] == {"type": "unsubscribed", "run_id": run_id}
    assert api.runtime.handle(_socket("DISCONNECT")) == {"statusCode": 200}
    pusher.frames.clear()
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, run_id)
    assert pusher.frames == []
    assert world.deps.sockets is not None and world.deps.sockets.user_of("c1") is None


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        {"action": "subscribe"},
        {"action": "explode", "run_id": "x"},
        {"action": "subscribe", "run_id": "x", "after": -1},
    ],
)
def test_an_invalid_message_is_answered_with_an_error_frame(api: Api, pusher: Recorded, body: Any) -> None:
    api.runtime.handle(_socket("CONNECT"))
    assert api.runtime.handle(_socket("MESSAGE", body=body)) == {"statusCode": 200}
    (frame,) = _frames(pusher)
    assert frame["type"] == "error" and frame["error"] == "invalid_input"


def test_a_message_on_an_unknown_connection_is_refused(api: Api, world: World, pusher: Recorded) -> None:
    run_id, _ = _waiting(api, world)
    api.runtime.handle(_socket("MESSAGE", connection="never-connected", body={"action": "subscribe", "run_id": run_id}))
    assert _frames(pusher, "never-connected") == [
        {"type": "error", "error": "unauthorized", "message": "connect again"}
    ]


def test_a_connect_without_the_authorizers_user_is_a_401(api: Api, pusher: Recorded) -> None:
    assert api.runtime.handle(_socket("CONNECT", user=None)) == {"statusCode": 401}


def test_ping_is_answered(api: Api, pusher: Recorded) -> None:
    api.runtime.handle(_socket("CONNECT"))
    api.runtime.handle(_socket("MESSAGE", body={"action": "ping"}))
    assert _frames(pusher) == [{"type": "pong"}]
