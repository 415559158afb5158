"""Starting a run (SPEC §10): ``POST /v1/runs``, in a module of its own.

It is the request a cold start most often begins with, so it loads without the run's other routes
(mneme.api.run_detail_routes), their engine modules and their response views.
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Header

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import run_answer
from mneme.api.responses import refusals
from mneme.api.run_views import RunAcceptedView, RunView, answers
from mneme.engine.runs.admission import submit_run
from mneme.models.run_request import RunRequest

router = new_router()


@router.post(
    "/v1/runs",
    responses={
        **answers(200, RunView, "the finished run"),
        **answers(202, RunAcceptedView, "the run continues in the state machine"),
        **refusals(
            {
                404: "no agent, task or chat of this id the caller may use",
                409: "`idempotency_conflict`: the Idempotency-Key was sent with another request",
                413: "the input is over 200,000 characters, or the body over 2,500,000 bytes",
                429: "`rate_limited`: the caller started the deployment's limit of runs in the last minute "
                "(`RunsPerUserPerMinute`); retry after Retry-After seconds",
            }
        ),
    },
)
def create_run(
    body: RunRequest,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=256)] = None,
) -> Any:
    """Start a run: 200 with the finished run, or 202 with ``{run_id, status}`` when it continues. A repeated
    ``Idempotency-Key`` answers the run the first request started."""
    return run_answer(submit_run(deps_of(router), caller_of(router), body, idempotency_key))
