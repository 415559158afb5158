"""Response shapes of SPEC §10 other than starting a run's (mneme.api.run_views), for the OpenAPI document only
(the routes answer plain dicts).

Extra fields are allowed in every answer (``extra="allow"``); the fields listed here must be there.
"""

from typing import Any

from pydantic import Field

from mneme.api.run_views import View
from mneme.models.audit import AuditAction


class ErrorView(View):
    error: str
    message: str
    field: str | None = None


class EventView(View):
    seq: int
    type: str
    at: str


class EventsView(View):
    events: list[EventView]
    cursor: str | None = Field(
        description="pass as cursor (or after) for the next page; null on the last page. With tree=true: the "
        "tree cursor to continue from (never null); each event then also has run_id and depth"
    )


class CancelView(View):
    run_id: str
    status: str
    cancelled: list[str] = Field(description="the runs this call cancelled (the run and its unfinished descendants)")
    stopped_executions: int


class RememberedApprovalView(View):
    id: str
    agent_id: str
    tool: str
    created_at: str
    run_id: str | None


class RememberedApprovalsView(View):
    approvals: list[RememberedApprovalView]


class RequestsView(View):
    requests: list[dict[str, Any]] = Field(
        description="the Converse request of each model call, in call order; the rolling summary's call (made"
        ' before the run\'s own) is marked "purpose": "summary"'
    )
    cursor: str | None = Field(description="pass as cursor for the next page; null on the last page")


class ChatView(View):
    chat_id: str
    title: str
    created_at: str
    updated_at: str
    messages: list[dict[str, Any]]
    cursor: str | None = Field(description="pass as cursor for the next page of messages; null on the last page")


class PreviewView(View):
    request: dict[str, Any]
    memory_hits: list[dict[str, Any]]
    warnings: list[str]
    memory_explanation: dict[str, Any] | None = Field(None, description="with ?explain=true: auto-inject explained")


class MemoryHitView(View):
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
    context: list[dict[str, Any]] | None = Field(
        None,
        description="with lines: the lines of conversation said around a chat-line hit, each {id, content, offset}"
        " (-1 just before it, 1 just after it, …), in the order they were said; absent when none is shown",
    )


class SearchView(View):
    hits: list[MemoryHitView]
    namespaces: list[str]
    explanation: dict[str, Any] | None = Field(
        None, description="with explain: each hit's score parts, every dropped candidate and why, the thresholds"
    )


class ExplainView(View):
    memory_id: str
    namespace: str
    query: str
    search: dict[str, Any] | None = Field(None, description="without agent_id: POST /v1/memory/search's verdict")
    auto_inject: dict[str, Any] | None = Field(None, description="recalled, else the first reason")
    tool_search: dict[str, Any] | None = Field(None, description="recalled, else the first reason")


class RevisionsView(View):
    revisions: list[dict[str, Any]]


class DocumentsView(View):
    ids: list[str]


class BatchItemResult(View):
    index: int = Field(description="the item's position in the request")
    status: int = Field(description="201 stored (or replayed), else the HTTP status the item alone would get")
    ids: list[str] | None = None
    namespace: str | None = None
    replayed: bool | None = Field(None, description="true: a retry of a client_token already stored")
    refreshed: bool | None = Field(
        None, description="true: an entry of identical content was already stored; it was refreshed (its ids)"
    )
    error: dict[str, Any] | None = Field(None, description="{code, message, field?} of a refused item")


class BatchResultsView(View):
    results: list[BatchItemResult]


class DocumentView(View):
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


class DocumentPageView(View):
    documents: list[DocumentView]
    namespace: str
    cursor: str | None


class NamespaceCountView(View):
    namespace: str
    active: int
    superseded: int
    deleted: int


class NamespacesView(View):
    namespaces: list[NamespaceCountView]


class AuditRecordView(View):
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


class AuditPageView(View):
    records: list[AuditRecordView]
    cursor: str | None


class AuditTreeView(View):
    records: list[AuditRecordView]
