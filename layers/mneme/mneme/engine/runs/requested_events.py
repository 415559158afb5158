"""Runs requested by EventBridge events (``mneme.RunRequested``, SPEC §10): once per event, or a clear refusal.

EventBridge and Lambda's asynchronous invocation deliver an event *at least* once: a redelivery, a retry
after a timeout, or two deliveries racing carry the same event ``id``. The run id is derived from that id (and
the user it names), so
the run item's conditional create lets exactly one delivery start the run; every other one answers the
existing run (``duplicate: true``) and calls no model.

An event that can never succeed (no ``user_id``, an unknown agent, an invalid or too large detail) raises
:class:`~mneme.errors.EventRejected` with a message naming the event and the reason: the invocation fails,
and after its retry the event lands in the dead-letter destination instead of vanishing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from mneme.engine.deps import Deps
from mneme.engine.runs.service import start_run
from mneme.errors import (
    Conflict,
    EventRejected,
    Forbidden,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    field_path,
    validation_text,
)
from mneme.json_depth import too_deep_message, value_depth_exceeds
from mneme.models.run import Run
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller

#: refusals that a redelivery would meet again (transient errors propagate and are retried)
_PERMANENT = (NotFound, PayloadTooLarge, InvalidInput, Forbidden)


def event_run_id(event_id: str, user_id: str) -> str:
    """The run id of the event with this EventBridge ``id`` for this user (the same for every delivery of the
    event). The user is part of it: two users' events that carry one id (a publisher that sets ids, the local
    stand-in) start two runs, and neither is answered with the other's run."""
    return "run-evt-" + hashlib.sha256(f"{user_id}\x00{event_id}".encode()).hexdigest()[:32]


def start_requested_run(deps: Deps, event: Mapping[str, Any]) -> dict[str, Any]:
    """Start the run an event asks for, or answer the run an earlier delivery of it started."""
    event_id = str(event.get("id") or "").strip()
    if not event_id:
        raise EventRejected("the mneme.RunRequested event has no id (EventBridge gives every event one)", field="id")
    caller, request = _parse(event_id, event.get("detail"))
    run_id = event_run_id(event_id, caller.user_id)
    existing = deps.runs.get_run(run_id)
    if existing is not None:
        return _answer(existing, event_id, duplicate=True)
    try:
        result = start_run(deps, caller, request, event_triggered=True, run_id=run_id)
    except Conflict:  # a concurrent delivery of the same event created the run first
        existing = deps.runs.get_run(run_id)
        if existing is None:
            raise
        return _answer(existing, event_id, duplicate=True)
    except _PERMANENT as exc:
        raise _rejected(event_id, exc.message, exc.field) from exc
    return _answer(result.run, event_id, duplicate=False)


def _parse(event_id: str, detail: Any) -> tuple[Caller, RunRequest]:
    if not isinstance(detail, Mapping):
        raise _rejected(event_id, "its detail is not a JSON object", "detail")
    if value_depth_exceeds(detail):  # before pydantic (and any log line) walks it recursively
        raise _rejected(event_id, too_deep_message("its detail"), "detail")
    user_id = detail.get("user_id")
    if not isinstance(user_id, str) or not user_id.strip():
        raise _rejected(event_id, "it names no user (detail.user_id is missing or empty)", "user_id")
    try:
        caller = Caller(user_id=user_id)
    except ValidationError:
        raise _rejected(event_id, "detail.user_id is not a valid user id", "user_id") from None
    try:
        return caller, RunRequest.model_validate(dict(detail))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = field_path(first["loc"], "detail")
        raise _rejected(event_id, f"detail.{where}: {validation_text(first)}", where) from None


def _rejected(event_id: str, reason: str, field: str | None) -> EventRejected:
    return EventRejected(f"mneme.RunRequested event {event_id} was rejected: {reason}", field=field)


def _answer(run: Run, event_id: str, *, duplicate: bool) -> dict[str, Any]:
    return {"run_id": run.run_id, "status": run.status.value, "event_id": event_id, "duplicate": duplicate}
