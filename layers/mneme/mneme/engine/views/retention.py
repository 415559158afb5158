"""The deployment's retention, as ``GET /v1/retention`` shows it: how long each kind of data is kept."""

from __future__ import annotations

from typing import Any

from mneme.engine.deps import Deps
from mneme.memory.entry_retention import memory_retention
from mneme.models.user import Caller


def retention_view(deps: Deps, caller: Caller) -> dict[str, Any]:
    """Days after creation (0 = kept until deleted); recorded requests never outlive their run."""
    settings = deps.settings
    runs, requests = settings.retention_days_runs, settings.retention_days_requests
    effective = min(d for d in (runs, requests) if d) if runs or requests else 0
    return {
        "user_id": caller.user_id,
        "chats_days": settings.retention_days_chats,
        "runs_days": runs,
        "requests_days": effective,
        "memory_days": memory_retention(settings).as_dict(),
        "exports_days": settings.export_retention_days,
        "audit": "kept; an erasure redacts the details of a user's records",
    }
