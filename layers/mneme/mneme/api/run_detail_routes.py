"""A run's details and controls (SPEC §10): read, events, recorded requests, the tree's audit, cancel and
approvals; and the context preview. Starting a run is mneme.api.run_routes."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic.types import AllowInfNan

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import audit_view
from mneme.api.responses import OK, refusals
from mneme.api.run_views import RunView, answers
from mneme.api.views import AuditTreeView, CancelView, EventsView, PreviewView, RequestsView
from mneme.engine.runs import approvals, cancel
from mneme.engine.views import follow, runs_read
from mneme.engine.views.follow import MAX_TREE_CURSOR_CHARS, MAX_WAIT_SECONDS
from mneme.engine.views.preview import preview
from mneme.models.requests import ApprovalBody
from mneme.models.run_request import RunRequest
from mneme.spec_limits import PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX

router = new_router()

_NO_RUN = "no run of the caller's with this id"
_TOO_LARGE = "one item of the page is larger than a response may carry: it cannot be read over HTTP"


@router.get("/v1/runs/<run_id>", responses={**answers(200, RunView), **refusals({404: _NO_RUN})})
def get_run(run_id: str) -> dict[str, Any]:
    """The run, with its tree's budget and what the tree has used of it."""
    return runs_read.run_view(deps_of(router), caller_of(router), run_id)


@router.get(
    "/v1/runs/<run_id>/events", responses={**answers(200, EventsView), **refusals({404: _NO_RUN, 413: _TOO_LARGE})}
)
def get_events(
    run_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[
        str | None, Query(max_length=MAX_TREE_CURSOR_CHARS, description="the cursor of the previous page")
    ] = None,
    after: Annotated[int | None, Query(ge=0, description="the seq of the last event seen (= cursor)")] = None,
    wait: Annotated[
        float,
        AllowInfNan(False),  # "nan" and "inf" answered "less than or equal to 20"; Query drops allow_inf_nan
        Query(ge=0, le=MAX_WAIT_SECONDS, description="long-poll: wait up to this many seconds for an event"),
    ] = 0,
    tree: Annotated[bool, Query(description="the run and every run below it (events carry run_id, depth)")] = False,
) -> dict[str, Any]:
    """The run's events in order, a page at a time (``cursor`` is null on the last page). With ``wait`` it
    long-polls: it answers as soon as an event after the position exists, or empty after ``wait`` seconds."""
    return follow.follow_events(
        deps_of(router), caller_of(router), run_id, limit=limit, cursor=cursor, after=after, wait=wait, tree=tree
    )


@router.post(
    "/v1/runs/<run_id>/cancel",
    responses={
        **answers(200, CancelView),
        **refusals({404: _NO_RUN, 409: "the run already ended otherwise (succeeded or failed), or kept changing"}),
    },
)
def post_cancel(run_id: str) -> dict[str, Any]:
    """Cancel the run and every unfinished run below it (idempotent; 409 for a run that ended otherwise)."""
    return cancel.cancel_run(deps_of(router), caller_of(router), run_id)


@router.get(
    "/v1/runs/<run_id>/context", responses={**answers(200, RequestsView), **refusals({404: _NO_RUN, 413: _TOO_LARGE})}
)
def get_context(
    run_id: str,
    limit: Annotated[int, Query(ge=1, le=PAGE_LIMIT_MAX)] = PAGE_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=12, description="the cursor of the previous page")] = None,
) -> dict[str, Any]:
    """The exact model requests of the run, one per model call, a page at a time (below 6 MB each)."""
    return runs_read.run_context(deps_of(router), caller_of(router), run_id, limit=limit, cursor=cursor)


@router.get("/v1/runs/<run_id>/audit", responses={**answers(200, AuditTreeView), **refusals({404: _NO_RUN})})
def get_tree_audit(run_id: str) -> dict[str, Any]:
    """Every audit record of the run's delegation tree (from its root run), oldest first."""
    return {"records": [audit_view(r) for r in runs_read.tree_audit(deps_of(router), caller_of(router), run_id)]}


@router.post(
    "/v1/runs/<run_id>/approvals",
    responses={
        **OK,
        **refusals(
            {
                404: "no run of the caller's with this id, or no tool call `call_id` it waits for",
                409: "the run waits for no approval, or the call was already answered otherwise",
            }
        ),
    },
)
def post_approval(run_id: str, body: ApprovalBody) -> dict[str, Any]:
    return approvals.decide(deps_of(router), caller_of(router), run_id, body.call_id, body.decision)


@router.post(
    "/v1/context/preview",
    responses={
        **answers(200, PreviewView),
        **refusals(
            {
                404: "no agent, task or chat of this id the caller may use",
                413: "the input is over 200,000 characters, or the body over 2,500,000 bytes",
            }
        ),
    },
)
def post_preview(body: RunRequest, explain: Annotated[bool, Query()] = False) -> dict[str, Any]:
    return preview(deps_of(router), caller_of(router), body, explain=explain)
