"""The WebSocket API's routes (issue 15.2): connect, subscribe to a run (or its subtree), unsubscribe.

``$connect`` has passed the authorizer: the connection is stored with its user. A ``subscribe`` message
names a run the connection's user owns (another user's run, or none, is answered ``not_found`` — the same
as over HTTP); the subscription is stored first, then the events after ``after`` (or the tree ``cursor``)
are sent, then ``{"type": "subscribed", cursor}``: an event committed meanwhile may come twice (pushed and
in the backlog), never not at all; clients keep the highest ``seq`` per run. Frames:

* ``{"type": "event", "run_id", "depth", "event": {seq, type, at, …}}`` — a committed run event;
* ``{"type": "delta", "run_id", "depth", "request_seq", "text"}`` — the model's text while it is generated;
* ``{"type": "subscribed" | "unsubscribed" | "error", …}`` — answers to the client's messages.
"""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.engine.runs.owner import own_run
from mneme.engine.views.follow import follow_events
from mneme.errors import MnemeError
from mneme.models.requests import SocketMessage
from mneme.models.user import Caller
from mneme.ports.live import SocketHub

#: events sent as a subscription's backlog (the rest is read over HTTP from the cursor answered)
BACKLOG_LIMIT = 1000


def _hub(deps: Deps) -> SocketHub:
    if deps.sockets is None:
        raise MnemeError("no WebSocket API is configured (MNEME_WEBSOCKET_ENDPOINT)")
    return deps.sockets


def connected(deps: Deps, connection_id: str, caller: Caller) -> None:
    _hub(deps).connect(connection_id, caller.user_id)


def disconnected(deps: Deps, connection_id: str) -> None:
    _hub(deps).disconnect(connection_id)


def answer(deps: Deps, connection_id: str, frame: dict[str, Any]) -> None:
    """Push an answer the API layer made (an invalid message)."""
    _hub(deps).send(connection_id, frame)


def received(deps: Deps, connection_id: str, message: SocketMessage) -> None:
    """A client's message: subscribe, unsubscribe or ping; the answer is pushed to the connection."""
    hub = _hub(deps)
    user_id = hub.user_of(connection_id)
    if user_id is None:
        hub.send(connection_id, {"type": "error", "error": "unauthorized", "message": "connect again"})
        return
    if message.action == "ping":
        hub.send(connection_id, {"type": "pong"})
        return
    run_id = message.run_id or ""
    if message.action == "unsubscribe":
        hub.unsubscribe(connection_id, run_id)
        hub.send(connection_id, {"type": "unsubscribed", "run_id": run_id})
        return
    caller = Caller(user_id=user_id)
    try:
        run = own_run(deps, caller, run_id)
        hub.subscribe(connection_id, user_id, run, tree=message.tree)
        # read after the subscription exists, so no event falls between the backlog and the pushes
        page = follow_events(
            deps,
            caller,
            run_id,
            limit=BACKLOG_LIMIT,
            cursor=message.cursor,
            after=None if message.tree else message.after,
            tree=message.tree,
        )
    except MnemeError as exc:
        hub.send(connection_id, {"type": "error", "run_id": run_id, **exc.to_body()})
        return
    for event in page["events"]:
        frame = {"type": "event", "run_id": event.pop("run_id", run_id), "depth": event.pop("run_depth", run.depth)}
        if not hub.send(connection_id, {**frame, "event": event}):
            return
    answer: dict[str, Any] = {"type": "subscribed", "run_id": run_id, "tree": message.tree}
    hub.send(connection_id, {**answer, "cursor": page["cursor"]})
