"""Runs (SPEC §10): start, read, events, recorded requests, approvals, and the context preview."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Header

from mneme.api.bodies import ApprovalBody
from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import json_response
from mneme.engine import approvals
from mneme.engine.preview import preview
from mneme.engine.requests import RunRequest
from mneme.engine.service import start_run
from mneme.errors import Conflict, NotFound
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


@router.post("/v1/runs")
def create_run(
    body: RunRequest,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=256)] = None,
) -> Any:
    """Start a run: 200 with the finished run, or 202 with ``{run_id, status}`` when it continues."""
    deps = deps_of(router)
    caller = caller_of(router)
    if idempotency_key:
        run_id = hashlib.sha256(f"{caller.user_id}\x00{idempotency_key}".encode()).hexdigest()[:32]
        existing = deps.runs.get_run(run_id)
        if existing is not None:
            return _answer(existing)
        from dataclasses import replace

        deps = replace(deps, ids=_first_then(run_id, deps.ids))
        try:
            return _answer(start_run(deps, caller, body).run)
        except Conflict:
            existing = deps.runs.get_run(run_id)
            if existing is None:
                raise
            return _answer(existing)
    return _answer(start_run(deps, caller, body).run)


def _first_then(first: str, then: Any) -> Any:
    """An id source whose first id is the idempotent run id (the chat id and the rest come after)."""
    state = {"used": False}

    def ids() -> str:
        if not state["used"]:
            state["used"] = True
            return first
        return str(then())

    return ids


@router.get("/v1/runs/<run_id>")
def get_run(run_id: str) -> dict[str, Any]:
    return _own_run(run_id).to_api()


@router.get("/v1/runs/<run_id>/events")
def get_events(run_id: str) -> dict[str, Any]:
    _own_run(run_id)
    return {"events": [event.to_api() for event in deps_of(router).runs.list_events(run_id)]}


@router.get("/v1/runs/<run_id>/context")
def get_context(run_id: str) -> dict[str, Any]:
    _own_run(run_id)
    return {"requests": deps_of(router).runs.list_requests(run_id)}


@router.post("/v1/runs/<run_id>/approvals")
def post_approval(run_id: str, body: ApprovalBody) -> dict[str, Any]:
    return approvals.decide(deps_of(router), caller_of(router), run_id, body.call_id, body.decision)


@router.post("/v1/context/preview")
def post_preview(body: RunRequest) -> dict[str, Any]:
    return preview(deps_of(router), caller_of(router), body)
