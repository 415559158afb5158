"""The response shapes of starting a run (``POST /v1/runs``), for the OpenAPI document only, and the base
of every view: the module the runs router imports, without the views of the other routes (mneme.api.views).

Extra fields are allowed in every answer (``extra="allow"``); the fields listed here must be there.
"""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mneme.api.responses import JSON


class View(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="allow")


class UsageView(View):
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


class TreeUsageView(View):
    runs: int
    model_calls: int
    tokens: int
    active_children: int
    seconds: int


class BudgetView(View):
    max_model_calls: int
    max_tokens: int
    max_runs: int
    max_seconds: int
    used: TreeUsageView | None = Field(description="what the run's whole delegation tree has used so far")


class PendingApprovalView(View):
    """A tool call a run waits for a person's answer to (``POST /v1/runs/{id}/approvals``)."""

    call_id: str
    tool: str
    arguments: dict[str, Any]


class RunView(View):
    run_id: str
    status: str
    agent_id: str
    task_id: str | None
    chat_id: str | None
    depth: int
    parent_run_id: str | None
    root_run_id: str
    output: str | None
    error: str | None
    usage: UsageView
    children: list[str]
    agent_version: str | None = Field(
        None, description="the agent's ETag when the run was created: its revision in GET /v1/agents/{id}/revisions"
    )
    budget: BudgetView | None = Field(None, description="the tree's budget (GET /v1/runs/{id} only)")
    pending_approvals: list[PendingApprovalView] | None = Field(
        None, description="while waiting_approval: the calls not answered yet (GET /v1/runs/{id} only)"
    )


class RunAcceptedView(View):
    run_id: str
    status: str


def answers(status: int, view: type[BaseModel], description: str = "OK") -> dict[int, Any]:
    """A ``responses=`` entry of a route: ``status`` answers ``view`` as JSON."""
    return {status: {"description": description, "content": {JSON: {"model": view}}}}
