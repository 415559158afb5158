"""How the engine's answers become JSON bodies (SPEC §10 shapes): the "response" part of every route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from mneme.api.responses import json_response
from mneme.engine.memory_io.explain import Explanation
from mneme.memory.access import ReadAccess
from mneme.models.agent import Agent, Skill, Task
from mneme.models.audit import AuditRecord
from mneme.models.chat import Chat
from mneme.models.common import GLOBAL_OWNER
from mneme.models.config_revision import ConfigRevisionPage
from mneme.models.memory import MemoryDocument, MemoryHit
from mneme.models.privacy import ErasureState, ExportStatus
from mneme.models.revision import MemoryRevision
from mneme.models.run import Run
from mneme.models.user import Caller, UserSettings


def dump(model: BaseModel, **extra: Any) -> dict[str, Any]:
    return {**model.model_dump(mode="json", exclude_none=False), **extra}


def settings_view(settings: UserSettings, caller: Caller) -> dict[str, Any]:
    return {**settings.model_dump(mode="json"), "user_id": caller.user_id}


def agent_view(agent: Agent, warnings: list[str] | None = None) -> dict[str, Any]:
    extra: dict[str, Any] = {"global": agent.owner == GLOBAL_OWNER}
    if warnings is not None:
        extra["warnings"] = warnings
    return dump(agent, **extra)


def task_view(task: Task, warnings: list[str] | None = None) -> dict[str, Any]:
    return dump(task, **({"warnings": warnings} if warnings is not None else {}))


def skill_view(skill: Skill, warnings: list[str] | None = None) -> dict[str, Any]:
    extra: dict[str, Any] = {"global": skill.owner == GLOBAL_OWNER}
    if warnings is not None:
        extra["warnings"] = warnings
    return dump(skill, **extra)


def config_revisions_view(page: ConfigRevisionPage, kind: str, view: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """``{revisions: [{at, change, by, etag, <kind>: the resource as it was, tasks?}], cursor}``, newest first
    (``tasks``: on an agent's delete, the ids of the tasks deleted with it; ``by``: who made it, when known)."""
    revisions = [
        {"at": r.at.isoformat(), "change": r.change, "by": r.by, "etag": r.etag, kind: view(r.item)}
        | ({"tasks": r.tasks} if r.tasks is not None else {})
        for r in page.revisions
    ]
    return {"revisions": revisions, "cursor": page.cursor}


def chat_view(chat: Chat, *, messages: bool) -> dict[str, Any]:
    body = chat.model_dump(mode="json", exclude={"messages"})
    if messages:
        body["messages"] = [m.model_dump(mode="json") for m in chat.messages]
    return body


def chat_list_view(chat: Chat) -> dict[str, Any]:
    return chat_view(chat, messages=False)


def run_answer(run: Run) -> Any:
    """``POST /v1/runs``: 200 with the finished run, else 202 with ``{run_id, status}``."""
    if run.status.finished:
        return json_response(200, run.to_api())
    return json_response(202, {"run_id": run.run_id, "status": run.status.value})


def mcp_run_view(run: Run) -> dict[str, Any]:
    """The MCP ``run-agent`` tool: the finished run (its ``output`` is the answer), else ``{run_id, status}``."""
    if run.status.finished:
        return run.to_api()
    return {"run_id": run.run_id, "status": run.status.value}


def audit_view(record: AuditRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", exclude={"record_id"})


#: who wrote an entry (the writer's user id, the run's id): not shown with a global entry, which every user reads —
#: an admin's id, kept even after that user's erasure (docs/privacy.md); admins find the writer in the audit trail
WRITER_KEYS = frozenset({"user_id", "run_id"})


def _shared(body: dict[str, Any]) -> dict[str, Any]:
    if str(body.get("namespace") or "").startswith("vector.global.") and isinstance(body.get("metadata"), dict):
        body["metadata"] = {k: v for k, v in body["metadata"].items() if k not in WRITER_KEYS}
    return body


def hit_view(hit: MemoryHit) -> dict[str, Any]:
    """A search hit: SPEC §10's fields, the lifecycle's (``class``, ``observed_at``, chunk links) and, in hybrid
    mode, each leg's score (``vector_similarity``, ``keyword_score``)."""
    body = hit.as_json()
    body["class"] = body.pop("memory_class")
    return _shared(body)


def search_view(hits: list[MemoryHit], access: ReadAccess, explained: Explanation | None = None) -> dict[str, Any]:
    return {
        "hits": [hit_view(hit) for hit in hits],
        "namespaces": list(access.allowed),
        **({"message": access.message} if access.message else {}),
        **({"explanation": explanation_view(explained)} if explained is not None else {}),
    }


def explanation_view(explained: Explanation) -> dict[str, Any]:
    """``explain: true``: the hits' score parts, the dropped candidates (reason first) and the thresholds."""
    return {"hits": explained.hits, "dropped": explained.dropped, "thresholds": explained.thresholds}


def revisions_view(revisions: list[MemoryRevision]) -> dict[str, Any]:
    """An entry's revisions, numbered from 1, each with the entry as the inbox would have shown it then."""
    return {
        "revisions": [
            {
                "seq": seq,
                **revision.model_dump(mode="json", include={"doc_id", "change", "at", "by", "actor"}),
                "document": document_view(revision.document),
            }
            for seq, revision in enumerate(revisions, start=1)
        ]
    }


def export_status_view(status: ExportStatus) -> dict[str, Any]:
    return status.model_dump(mode="json", exclude={"object_key", "user_id"})


def erasure_answer(state: ErasureState) -> Any:
    """``DELETE /v1/me``: 200 with the receipt when the erasure is done, else 202 with its progress."""
    return json_response(200 if state.status == "done" else 202, state.receipt())


def document_view(doc: MemoryDocument, derived: list[str] | None = None) -> dict[str, Any]:
    """An entry as the inbox shows it: the lifecycle fields by their API names (``class``, ``status``,
    ``recorded_at``), never the vector."""
    body = doc.model_dump(mode="json", exclude={"memory_class", "deleted", "superseded", "content_hash"})
    body |= {"class": doc.memory_class, "status": doc.status, "recorded_at": body["created_at"]}
    if derived is not None:
        body["derived"] = derived
    return _shared(body)
