"""Response shapes of SPEC §10, for the OpenAPI document only (the routes answer plain dicts).

Extra fields are allowed in every answer (``extra="allow"``); the fields listed here must be there.
"""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mneme.api.responses import JSON
from mneme.models.audit import AuditAction


class _View(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="allow")


class ErrorView(_View):
    error: str
    message: str
    field: str | None = None


class UsageView(_View):
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


class TreeUsageView(_View):
    runs: int
    model_calls: int
    tokens: int
    active_children: int
    seconds: int


class BudgetView(_View):
    max_model_calls: int
    max_tokens: int
    max_runs: int
    max_seconds: int
    used: TreeUsageView | None = Field(description="what the run's whole delegation tree has used so far")


class RunView(_View):
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
    budget: BudgetView | None = Field(None, description="the tree's budget (GET /v1/runs/{id} only)")


class RunAcceptedView(_View):
    run_id: str
    status: str


class EventView(_View):
    seq: int
    type: str
    at: str


class EventsView(_View):
    events: list[EventView]
    cursor: str | None = Field(
        description="pass as cursor (or after) for the next page; null on the last page. With tree=true: the "
        "tree cursor to continue from (never null); each event then also has run_id and depth"
    )


class CancelView(_View):
    run_id: str
    status: str
    cancelled: list[str] = Field(description="the runs this call cancelled (the run and its unfinished descendants)")
    stopped_executions: int


class RememberedApprovalView(_View):
    id: str
    agent_id: str
    tool: str
    created_at: str
    run_id: str | None


class RememberedApprovalsView(_View):
    approvals: list[RememberedApprovalView]


class RequestsView(_View):
    requests: list[dict[str, Any]]
    cursor: str | None = Field(description="pass as cursor for the next page; null on the last page")


class ChatView(_View):
    chat_id: str
    title: str
    created_at: str
    updated_at: str
    messages: list[dict[str, Any]]
    cursor: str | None = Field(description="pass as cursor for the next page of messages; null on the last page")


class PreviewView(_View):
    request: dict[str, Any]
    memory_hits: list[dict[str, Any]]
    warnings: list[str]


class MemoryHitView(_View):
    id: str
    namespace: str
    content: str
    similarity: float
    relevance: float
    created_at: str
    metadata: dict[str, Any]
    class_: str = Field(alias="class")
    observed_at: str | None
    vector_similarity: float | None = Field(description="hybrid: the cosine of the vector leg, if in it")
    keyword_score: float | None = Field(description="hybrid: the BM25 score of the keyword leg, if in it")
    parent_id: str | None
    chunk_index: int | None
    chunk_count: int | None


class SearchView(_View):
    hits: list[MemoryHitView]
    namespaces: list[str]


class DocumentsView(_View):
    ids: list[str]


class DocumentView(_View):
    id: str
    namespace: str
    content: str
    status: str = Field(description="active | superseded | deleted")
    class_: str = Field(alias="class", description="episodic | semantic | preference | procedural | document")
    authority: str | None = Field(description="user_directed | agent_initiated | extracted | auto_write")
    observed_at: str | None
    recorded_at: str
    updated_at: str
    superseded_by: str | None
    tags: list[str]
    metadata: dict[str, Any]
    derived_from: list[str]
    parent_id: str | None
    chunk_index: int | None
    chunk_count: int | None
    derived: list[str] | None = Field(None, description="with ?derived=true: the ids a delete would cascade to")


class DocumentPageView(_View):
    documents: list[DocumentView]
    namespace: str
    cursor: str | None


class NamespaceCountView(_View):
    namespace: str
    active: int
    superseded: int
    deleted: int


class NamespacesView(_View):
    namespaces: list[NamespaceCountView]


class AuditRecordView(_View):
    at: str
    action: AuditAction
    namespace: str | None
    user_id: str
    run_id: str | None
    root_run_id: str | None
    agent_id: str | None
    task_id: str | None
    depth: int
    detail: dict[str, Any]


class AuditPageView(_View):
    records: list[AuditRecordView]
    cursor: str | None


class AuditTreeView(_View):
    records: list[AuditRecordView]


def answers(status: int, view: type[BaseModel], description: str = "OK") -> dict[int, Any]:
    """A ``responses=`` entry of a route: ``status`` answers ``view`` as JSON."""
    return {status: {"description": description, "content": {JSON: {"model": view}}}}
