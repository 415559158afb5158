"""Runs (SPEC §10): start, read, events, recorded requests, approvals, and the context preview."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Header, Query

from mneme.api.bodies import ApprovalBody
from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import json_response
from mneme.api.views import EventsView, PreviewView, RequestsView, RunAcceptedView, RunView, answers
from mneme.engine import approvals, reading
from mneme.engine.preview import preview
from mneme.engine.requests import RunRequest
from mneme.engine.service import start_run
from mneme.errors import Conflict, NotFound
from mneme.limits import PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX
from mneme.models.run import Run

router = new_router()


def _own_run(run_id: str) -> Run:
    run = deps_of(router).runs.get_run(run_id)
    if run is None or run.user_id != caller_of(router).user_id:
        raise NotFound(f"no run {run_id!r}")
    return run


def _answer(run: Run) -> Any:
    if run.status.finished:
        return json_response(200, run.to_api())
    return json_response(202, {"run_id": run.run_id, "status": run.status.value})


@router.post(
    "/v1/runs",
    responses={
        **answers(200, RunView, "the finished run"),
        **answers(202, RunAcceptedView, "the run continues in the state machine"),
    },
)
def create_run(
    body: RunRequest,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=256)] = None,
) -> Any:
    """Start a run: 200 with the finished run, or 202 with ``{run_id, status}`` when it continues.

    With an ``Idempotency-Key`` the run id (and, when the body names no chat, the chat id) is derived from
    the caller and the key, so a retry answers the run the first request started instead of a new one.
    """
    deps, caller = deps_of(router), caller_of(router)
    if not idempotency_key:
        return _answer(start_run(deps, caller, body).run)
    key = hashlib.sha256(f"{caller.user_id}\x00{idempotency_key}".encode()).hexdigest()[:32]
    run_id = f"run-{key}"
    existing = deps.runs.get_run(run_id)
    if existing is not None:
        return _answer(_same_request(existing, body))
    if body.chat_id is None:
        body = body.model_copy(update={"chat_id": f"chat-{key}"})
    try:
        result = start_run(deps, caller, body, run_id=run_id)
    except Conflict:  # a concurrent retry with the same key created the run first
        existing = deps.runs.get_run(run_id)
        if existing is None:
            raise
        return _answer(_same_request(existing, body))
    return _answer(result.run)


def _same_request(run: Run, body: RunRequest) -> Run:
    """A retry must repeat the request: the same key with another agent or input is a 409."""
    if (run.agent_id, run.input) != (body.agent_id, body.input):
        raise Conflict(
            "this Idempotency-Key was used for another request (agent or input differ)", field="Idempotency-Key"
        )
    return run


@router.get("/v1/runs/<run_id>", responses=answers(200, RunView))
def get_run(run_id: str) -> dict[str, Any]:
    return _own_run(run_id).to_api()


@router.get("/v1/runs/<run_id>/events", responses=answers(200, EventsView))
def get_events(
    run_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=12, description="the cursor of the previous page")] = None,
    after: Annotated[int | None, Query(ge=0, description="the seq of the last event seen (= cursor)")] = None,
) -> dict[str, Any]:
    """The run's events in order, a page at a time (``cursor`` is null on the last page)."""
    return reading.run_events(deps_of(router), caller_of(router), run_id, limit=limit, cursor=cursor, after=after)


@router.get("/v1/runs/<run_id>/context", responses=answers(200, RequestsView))
def get_context(
    run_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=12, description="the cursor of the previous page")] = None,
) -> dict[str, Any]:
    """The exact model requests of the run, one per model call, a page at a time (below 6 MB each)."""
    return reading.run_context(deps_of(router), caller_of(router), run_id, limit=limit, cursor=cursor)


@router.post("/v1/runs/<run_id>/approvals")
def post_approval(run_id: str, body: ApprovalBody) -> dict[str, Any]:
    return approvals.decide(deps_of(router), caller_of(router), run_id, body.call_id, body.decision)


@router.post("/v1/context/preview", responses=answers(200, PreviewView))
def post_preview(body: RunRequest) -> dict[str, Any]:
    return preview(deps_of(router), caller_of(router), body)
