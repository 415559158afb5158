"""Live runs on AWS (issue 15.2): the WebSocket API's connections and subscriptions in the main table, and
pushes through the API's ``@connections`` endpoint (``PostToConnection``).

================================ =========================== =================================================
``PK``                           ``SK``                      item
================================ =========================== =================================================
``WS#<connection_id>``           ``CONN``                    the connection: ``user_id``, ``connected_at``
``WS#<connection_id>``           ``SUB#<run_id>``            a subscription of it (found again on disconnect)
``RUN#<run_id>``                 ``SUB#<connection_id>``     a subscription to one run
``RUN#<root_run_id>``            ``SUB#T#<run_id>#<conn>``   a subscription to the subtree of ``run_id``
================================ =========================== =================================================

Every item carries the TTL attribute (a WebSocket connection lives at most 2 hours), so a connection API
Gateway never reported closed disappears by itself; reads skip expired items. A run's listeners are one
Query of its own partition, plus — for a sub-run — one of its root's tree subscriptions, kept when their
subtree holds the run (``run.lineage``). A push to a connection that is gone (``GoneException``) removes it
and its subscriptions; any other push failure is logged and skipped: the events are durable, and a client
resumes with ``after=<seq>``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme import observability
from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.adapters.dynamo.run_items import run_pk
from mneme.adapters.dynamo.ttl import expired, stamp
from mneme.models.run import Run, RunEvent
from mneme.ports.common import Clock

#: API Gateway closes a WebSocket connection after 2 hours; its items expire a little later
CONNECTION_TTL_SECONDS = 2 * 3600 + 600
#: a WebSocket message is at most 128 KB; a larger event is announced, and read over HTTP
MAX_FRAME_BYTES = 120_000
#: how long the listeners found for a run serve its text deltas before they are read again
LISTENERS_FRESH_SECONDS = 3.0
CONNECTION_SK = "CONN"
SUB_PREFIX = "SUB#"
DIRECT_PREFIX = "SUB#C#"
TREE_PREFIX = "SUB#T#"


def connection_pk(connection_id: str) -> str:
    return f"WS#{connection_id}"


def event_frame(run: Run, event: RunEvent) -> dict[str, Any]:
    return {"type": "event", "run_id": run.run_id, "depth": run.depth, "event": event.to_api()}


def delta_frame(run: Run, request_seq: int, text: str) -> dict[str, Any]:
    return {"type": "delta", "run_id": run.run_id, "depth": run.depth, "request_seq": request_seq, "text": text}


class ApiGatewayPusher:
    """``PostToConnection`` on the WebSocket API's management endpoint; False when the connection is gone."""

    def __init__(self, client: Any) -> None:
        self._client = client

    @observability.traced("apigateway.post_to_connection")
    def send(self, connection_id: str, frame: dict[str, Any]) -> bool:
        data = json.dumps(frame, default=str, separators=(",", ":")).encode("utf-8")
        if len(data) > MAX_FRAME_BYTES:
            event = frame.get("event") or {}
            too_large = {"type": "event_too_large", "run_id": frame.get("run_id"), "seq": event.get("seq")}
            data = json.dumps(too_large).encode("utf-8")
        try:
            self._client.post_to_connection(ConnectionId=connection_id, Data=data)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "GoneException":
                return False
            observability.logger().warning("a push to a WebSocket connection failed", error=str(exc))
        except BotoCoreError as exc:
            observability.logger().warning("a push to a WebSocket connection failed", error=str(exc))
        return True


class WebSocketHub:
    """The connections and subscriptions, and the LiveFeed that pushes to them."""

    def __init__(
        self, table: ItemTable, pusher: Any, clock: Clock, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._table = table
        self._pusher = pusher
        self._clock = clock
        self._monotonic = monotonic
        self._recent: dict[str, tuple[float, list[str]]] = {}  # run id -> (when, listeners), for deltas

    def _expiry(self) -> int:
        return int(self._clock.now().timestamp()) + CONNECTION_TTL_SECONDS

    # ------------------------------------------------------------------------------ connections
    def connect(self, connection_id: str, user_id: str) -> None:
        now = self._clock.now()
        item: Item = {PK: connection_pk(connection_id), SK: CONNECTION_SK, "user_id": user_id}
        item["connected_at"] = now.isoformat()
        self._table.put(stamp(item, self._expiry()))

    def user_of(self, connection_id: str) -> str | None:
        item = self._table.get(connection_pk(connection_id), CONNECTION_SK)
        if item is None or expired(item, self._clock.now()):
            return None
        return str(item["user_id"])

    def disconnect(self, connection_id: str) -> None:
        """Forget the connection and every subscription it holds."""
        pk = connection_pk(connection_id)
        items = query_all(self._table, pk)
        targets = [(str(i["target_pk"]), str(i["target_sk"])) for i in items if str(i[SK]).startswith(SUB_PREFIX)]
        self._table.delete_many([*targets, *((pk, str(i[SK])) for i in items)])

    # ------------------------------------------------------------------------------ subscriptions
    def subscribe(self, connection_id: str, user_id: str, run: Run, *, tree: bool) -> None:
        if tree:
            target = (run_pk(run.root_run_id), f"{TREE_PREFIX}{run.run_id}#{connection_id}")
        else:
            target = (run_pk(run.run_id), f"{DIRECT_PREFIX}{connection_id}")
        expires_at = self._expiry()
        subscription: Item = {PK: target[0], SK: target[1], "connection_id": connection_id, "user_id": user_id}
        back: Item = {PK: connection_pk(connection_id), SK: f"{SUB_PREFIX}{run.run_id}#{'tree' if tree else 'run'}"}
        back.update(target_pk=target[0], target_sk=target[1])
        self._table.put_many([stamp(subscription, expires_at), stamp(back, expires_at)])

    def unsubscribe(self, connection_id: str, run_id: str) -> None:
        pk = connection_pk(connection_id)
        items = query_all(self._table, pk, sk_prefix=f"{SUB_PREFIX}{run_id}#")
        targets = [(str(i["target_pk"]), str(i["target_sk"])) for i in items]
        self._table.delete_many([*targets, *((pk, str(i[SK])) for i in items)])

    def listeners(self, run: Run) -> list[str]:
        """The connections following this run: its own subscribers, and those of a subtree holding it."""
        now = self._clock.now()
        scopes = {*run.lineage, run.run_id}
        items = query_all(self._table, run_pk(run.run_id), sk_prefix=SUB_PREFIX)  # a root's holds its tree's
        if run.run_id != run.root_run_id:
            items += query_all(self._table, run_pk(run.root_run_id), sk_prefix=TREE_PREFIX)
        wanted = [
            item
            for item in items
            if str(item[SK]).startswith(DIRECT_PREFIX)
            or str(item[SK]).removeprefix(TREE_PREFIX).rsplit("#", 1)[0] in scopes
        ]
        live = (i for i in wanted if not expired(i, now) and i.get("user_id") == run.user_id)
        return list(dict.fromkeys(str(i["connection_id"]) for i in live))

    def send(self, connection_id: str, frame: dict[str, Any]) -> bool:
        """Push one frame; a connection that is gone is forgotten (False)."""
        if self._pusher.send(connection_id, frame):
            return True
        self.disconnect(connection_id)
        return False

    # ------------------------------------------------------------------------------ LiveFeed
    def listening(self, run: Run) -> bool:
        listeners = self.listeners(run)
        self._recent[run.run_id] = (self._monotonic(), listeners)
        return bool(listeners)

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None:
        for connection_id in self.listeners(run):
            for event in events:
                if not self.send(connection_id, event_frame(run, event)):
                    break

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None:
        """Deltas come many times a second: they go to the listeners found at most a few seconds ago."""
        at, listeners = self._recent.get(run.run_id, (float("-inf"), []))
        if self._monotonic() - at > LISTENERS_FRESH_SECONDS:
            self.listening(run)
            listeners = self._recent[run.run_id][1]
        for connection_id in listeners:
            self.send(connection_id, delta_frame(run, request_seq, text))
