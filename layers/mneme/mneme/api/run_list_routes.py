"""The caller's runs (issue 33.3): ``GET /v1/runs?status=&agent_id=&chat_id=&since=&until=&limit=&cursor=``.

A router of its own: ``POST /v1/runs`` (a cold start's usual first request) loads only mneme.api.run_routes.
"""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import Field

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.run_views import View, answers
from mneme.engine.views.runs_list import list_runs
from mneme.models.common import Moment, MomentUntil
from mneme.models.run import RunStatus
from mneme.ports.runs import RunFilter

router = new_router()

LIST_LIMIT_DEFAULT = 50
LIST_LIMIT_MAX = 200


class RunCostView(View):
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float


class RunSummaryView(View):
    run_id: str
    status: str = Field(description="the tree's status: the root's, which ends after every run below it")
    agent_id: str
    task_id: str | None
    chat_id: str | None
    project_id: str | None = Field(None, description="the project the run's agent belongs to, if any")
    input: str = Field(description="the run's input (its first 200 characters)")
    error: str | None
    created_at: str
    updated_at: str
    children: int = Field(description="the runs the root delegated to")
    model_calls: int = Field(
        description="the root run's own model calls, as GET /v1/runs/{id}'s model_calls (the tree's count is "
        "GET /v1/runs/{id}'s budget.used.model_calls)"
    )
    tree_usage: RunCostView = Field(description="the whole delegation tree's usage")
    cost_usd: float = Field(description="the whole delegation tree's cost (the price table's USD)")


class RunListView(View):
    runs: list[RunSummaryView]
    cursor: str | None = Field(description="pass as cursor for the next page; null on the last page")


@router.get("/v1/runs", responses=answers(200, RunListView))
def get_runs(
    status: Annotated[RunStatus | None, Query(description="only runs (trees) in this status")] = None,
    agent_id: Annotated[str | None, Query(max_length=128, description="only runs of this agent")] = None,
    chat_id: Annotated[str | None, Query(max_length=128, description="only runs of this chat")] = None,
    since: Annotated[
        Moment | None, Query(description="created at or after (ISO 8601; UTC if no offset; a date: from its start)")
    ] = None,
    until: Annotated[
        MomentUntil | None,
        Query(description="created at or before (ISO 8601; UTC if no offset; a date: its whole day)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=LIST_LIMIT_MAX)] = LIST_LIMIT_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=2048, description="the cursor of the previous page")] = None,
) -> dict[str, Any]:
    """The caller's root runs, newest first, each with its delegation tree's status and total cost."""
    wanted = RunFilter(
        status=status.value if status else None,
        agent_id=agent_id,
        chat_id=chat_id,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )
    return list_runs(deps_of(router), caller_of(router), wanted)
