"""Response shapes of SPEC §10, for the OpenAPI document only (the routes answer plain dicts).

Extra fields are allowed in every answer (``extra="allow"``); the fields listed here must be there.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from mneme.api.responses import JSON
from mneme.models.audit import AuditAction


class _View(BaseModel):
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


class RunAcceptedView(_View):
    run_id: str
    status: str


class EventView(_View):
    seq: int
    type: str
    at: str


class EventsView(_View):
    events: list[EventView]


class RequestsView(_View):
    requests: list[dict[str, Any]]


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


class SearchView(_View):
    hits: list[MemoryHitView]
    namespaces: list[str]


class DocumentsView(_View):
    ids: list[str]


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
