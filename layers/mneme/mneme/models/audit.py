"""Audit records (SPEC §9): append-only, partitioned per user."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

#: ``preview``: a memory read by ``POST /v1/context/preview`` (nothing reached a model); ``config``: a save or delete
#: of an agent, task or skill (``mneme.engine.config_audit``)
AuditAction = Literal[
    "read",
    "write",
    "update",
    "delete",
    "denied",
    "delegation",
    "delegation_refused",
    "approval",
    "cancel",
    "preview",
    "export",
    "erasure",
    "config",
]


class AuditRecord(BaseModel, defer_build=True):
    model_config = ConfigDict(frozen=True)

    at: datetime
    action: AuditAction
    user_id: str
    namespace: str | None = None
    run_id: str | None = None
    root_run_id: str | None = None
    agent_id: str | None = None
    task_id: str | None = None
    depth: int = 0
    detail: dict[str, Any] = {}
    #: a deterministic identity (12 hex) for records a retried step writes again: stored once, not twice
    record_id: str | None = None
