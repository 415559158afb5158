"""The WebSocket push adapter (issue 15.2): ``PostToConnection`` through botocore's Stubber, a connection
that is gone (``GoneException``) forgotten with its subscriptions, subscriptions to a run and to a subtree."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import botocore.session
import pytest
from botocore.stub import Stubber

from mneme.adapters.aws.websocket_hub import (
    CONNECTION_TTL_SECONDS,
    MAX_FRAME_BYTES,
    ApiGatewayPusher,
    WebSocketHub,
    event_frame,
)
from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme.models.run import Run, RunEvent
from tests.fakes.clock import FixedClock
from tests.fakes.items import MemoryItemTable

ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/live"


def _client() -> Any:
    return botocore.session.get_session().create_client(
        "apigatewaymanagementapi",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )


def _run(run_id: str, *, root: str | None = None, lineage: list[str] | None = None, user: str = "alice") -> Run:
    at = FixedClock().now()
    return Run(
        run_id=run_id,
        user_id=user,
        agent_id="a",
        root_run_id=root or run_id,
        depth=len(lineage or []),
        lineage=lineage or [],
        created_at=at,
        updated_at=at,
    )


def _event(seq: int, **data: Any) -> RunEvent:
    return RunEvent(seq=seq, type="warning", at=FixedClock().now(), data={"message": "hi", **data})


class Recorded:
    """A pusher that records frames; connections in ``gone`` answer like a closed WebSocket."""

    def __init__(self, gone: set[str] | None = None) -> None:
        self.frames: list[tuple[str, dict[str, Any]]] = []
        self.gone = gone or set()

    def send(self, connection_id: str, frame: dict[str, Any]) -> bool:
        if connection_id in self.gone:
            return False
        self.frames.append((connection_id, frame))
        return True


@pytest.fixture
def table() -> MemoryItemTable:
    return MemoryItemTable(MAIN_SCHEMA)


def test_a_committed_event_is_posted_to_the_subscribed_connection(table: MemoryItemTable) -> None:
    client = _client()
    hub = WebSocketHub(table, ApiGatewayPusher(client), FixedClock())
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    expected = json.dumps(event_frame(run, _event(1)), separators=(",", ":")).encode()
    with Stubber(client) as stub:
        stub.add_response("post_to_connection", {}, {"ConnectionId": "c1", "Data": expected})
        hub.publish(run, [_event(1)])
        stub.assert_no_pending_responses()


def test_a_gone_connection_is_forgotten_with_its_subscriptions(table: MemoryItemTable) -> None:
    client = _client()
    hub = WebSocketHub(table, ApiGatewayPusher(client), FixedClock())
    run, other = _run("r1"), _run("r2")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    hub.subscribe("c1", "alice", other, tree=True)
    with Stubber(client) as stub:
        stub.add_client_error("post_to_connection", service_error_code="GoneException", http_status_code=410)
        hub.publish(run, [_event(1), _event(2)])  # the second event is not tried: the connection is gone
        stub.assert_no_pending_responses()
    assert hub.listeners(run) == [] and hub.listeners(other) == []
    assert hub.user_of("c1") is None
    assert table.query("WS#c1").items == [] and table.query("RUN#r1", sk_prefix="SUB#").items == []


def test_another_push_error_is_logged_and_keeps_the_connection(table: MemoryItemTable) -> None:
    client = _client()
    hub = WebSocketHub(table, ApiGatewayPusher(client), FixedClock())
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    with Stubber(client) as stub:
        stub.add_client_error("post_to_connection", service_error_code="LimitExceededException", http_status_code=429)
        hub.publish(run, [_event(1)])
    assert hub.listeners(run) == ["c1"]


def test_an_event_too_large_for_a_frame_is_announced_instead(table: MemoryItemTable) -> None:
    client = _client()
    hub = WebSocketHub(table, ApiGatewayPusher(client), FixedClock())
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    big = _event(7, message="x" * (MAX_FRAME_BYTES + 10))
    announce = json.dumps({"type": "event_too_large", "run_id": "r1", "seq": 7}).encode()
    with Stubber(client) as stub:
        stub.add_response("post_to_connection", {}, {"ConnectionId": "c1", "Data": announce})
        hub.publish(run, [big])
        stub.assert_no_pending_responses()


def test_a_subtree_subscription_follows_its_descendants_and_nothing_beside_them(table: MemoryItemTable) -> None:
    pusher = Recorded()
    hub = WebSocketHub(table, pusher, FixedClock())
    child_a = _run("a", root="root", lineage=["root"])
    grandchild = _run("a1", root="root", lineage=["root", "a"])
    child_b = _run("b", root="root", lineage=["root"])
    hub.connect("whole", "alice")
    hub.connect("sub", "alice")
    hub.subscribe("whole", "alice", _run("root"), tree=True)
    hub.subscribe("sub", "alice", child_a, tree=True)
    assert sorted(hub.listeners(grandchild)) == ["sub", "whole"]
    assert hub.listeners(child_b) == ["whole"]
    assert hub.listeners(_run("root")) == ["whole"]


def test_an_expired_subscription_is_skipped(table: MemoryItemTable) -> None:
    clock = FixedClock()
    hub = WebSocketHub(table, Recorded(), clock)
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    clock.advance(seconds=CONNECTION_TTL_SECONDS + 1)
    assert hub.listeners(run) == [] and hub.user_of("c1") is None


def test_a_subscription_of_another_user_never_receives_the_run(table: MemoryItemTable) -> None:
    hub = WebSocketHub(table, Recorded(), FixedClock())
    hub.connect("c1", "bob")
    hub.subscribe("c1", "bob", _run("r1"), tree=False)  # the engine checks ownership first; this is the floor
    assert hub.listeners(_run("r1", user="alice")) == []


def test_unsubscribe_stops_the_pushes(table: MemoryItemTable) -> None:
    pusher = Recorded()
    hub = WebSocketHub(table, pusher, FixedClock())
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    hub.unsubscribe("c1", "r1")
    hub.publish(run, [_event(1)])
    assert pusher.frames == [] and hub.user_of("c1") == "alice"


def test_deltas_reuse_the_listeners_found_a_moment_ago(table: MemoryItemTable) -> None:
    # Given a hub whose listener reads are counted, and a monotonic clock we move
    now = [0.0]
    hub = WebSocketHub(table, Recorded(), FixedClock(), monotonic=lambda: now[0])
    run = _run("r1")
    hub.connect("c1", "alice")
    hub.subscribe("c1", "alice", run, tree=False)
    reads: list[str] = []
    listeners = hub.listeners

    def counted(r: Run) -> list[str]:
        reads.append(r.run_id)
        return listeners(r)

    hub.listeners = counted  # type: ignore[method-assign,assignment]
    assert hub.listening(run)
    # When 20 deltas are pushed within a second, then one after 5 s
    for _ in range(20):
        now[0] += 0.05
        hub.publish_delta(run, 1, "word ")
    now[0] += 5
    hub.publish_delta(run, 1, "late")
    # Then the listeners were read twice: before the call, and once they were stale
    assert reads == ["r1", "r1"]


def test_connection_items_expire_with_the_websocket(table: MemoryItemTable) -> None:
    clock = FixedClock()
    hub = WebSocketHub(table, Recorded(), clock)
    hub.connect("c1", "alice")
    item = table.get("WS#c1", "CONN")
    assert item is not None
    assert item["expires_at"] == int((clock.now() + timedelta(seconds=CONNECTION_TTL_SECONDS)).timestamp())
