"""Memory over HTTP (SPEC §10): search, write and soft-delete entries — the caller's own, or global."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.bodies import DocumentBody, SearchBody
from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.responses import json_response, no_content
from mneme.api.views import DocumentsView, SearchView, answers
from mneme.engine import memory_ops
from mneme.engine.deps import Deps
from mneme.errors import InvalidInput, NotFound
from mneme.memory.access import MemoryWriteForbidden, denials_of, http_search_access, http_write_access
from mneme.memory.namespaces import can_write
from mneme.models.audit import AuditRecord
from mneme.models.policy import ResolvedPolicy
from mneme.models.user import Caller

router = new_router()


def _ports(deps: Deps) -> memory_ops.MemoryPorts:
    return memory_ops.MemoryPorts(
        store=deps.memory,
        embedder=deps.embedder,
        audit=deps.audit,
        clock=deps.clock,
        rules=deps.settings.namespace_rules,
        recency_decay=deps.settings.recency_decay,
    )


def _records(deps: Deps, caller: Caller) -> memory_ops.RecordFactory:
    def records(action: Any, namespaces: list[str | None], **detail: Any) -> list[AuditRecord]:
        now = deps.clock.now()
        return [
            AuditRecord(at=now, action=action, user_id=caller.user_id, namespace=ns, detail=dict(detail))
            for ns in namespaces
        ]

    return records


@router.post("/v1/memory/search", responses=answers(200, SearchView))
def search(body: SearchBody) -> dict[str, Any]:
    deps, caller = deps_of(router), caller_of(router)
    try:
        access = http_search_access(caller.user_id, body.namespaces)
    except InvalidInput as exc:
        memory_ops.audit_denials(_ports(deps), _records(deps, caller), denials_of(exc), via="http")
        raise
    defaults = ResolvedPolicy()
    ranking = memory_ops.Ranking(body.top_k, defaults.min_score, defaults.relative_cutoff)
    hits = memory_ops.search(_ports(deps), _records(deps, caller), access, body.query, ranking, via="http")
    return {
        "hits": [hit.model_dump(mode="json") for hit in hits],
        "namespaces": list(access.allowed),
        **({"message": access.message} if access.message else {}),
    }


@router.post("/v1/memory/documents", responses=answers(201, DocumentsView, "the entry was written"))
def write_document(body: DocumentBody) -> Any:
    deps, caller = deps_of(router), caller_of(router)
    ports, records = _ports(deps), _records(deps, caller)
    try:
        target = http_write_access(body.namespace, caller.user_id, is_admin=caller.is_admin)
    except MemoryWriteForbidden as exc:
        deps.audit.append(records("denied", [exc.denial.namespace], via="http", reason=exc.denial.reason))
        raise
    owner = "" if target.startswith("vector.global.") else caller.user_id
    document = memory_ops.new_document(
        deps.ids(),
        target,
        owner,
        body.content,
        clock=deps.clock,
        tags=body.tags,
        metadata={"source": "http", "user_id": caller.user_id},
        ttl_seconds=body.ttl_seconds,
    )
    ids = memory_ops.audited_write(
        ports, records, "write", target, lambda: memory_ops.write_documents(ports, [document]), via="http"
    )
    return json_response(201, {"ids": ids, "namespace": target})


@router.delete("/v1/memory/documents/<doc_id>")
def delete_document(doc_id: str, namespace: Annotated[str | None, Query(max_length=512)] = None) -> Any:
    deps, caller = deps_of(router), caller_of(router)
    ports, records = _ports(deps), _records(deps, caller)
    store, _ = ports.require()
    document = store.get(doc_id, namespace) if namespace else store.find(doc_id)
    if (
        document is None
        or document.deleted
        or not can_write(document.namespace, caller.user_id, is_admin=caller.is_admin)
    ):
        raise NotFound(f"no memory entry {doc_id!r}")
    memory_ops.audited_write(
        ports,
        records,
        "delete",
        document.namespace,
        lambda: store.soft_delete(doc_id, document.namespace, now=deps.clock.now()),
        via="http",
        id=doc_id,
    )
    return no_content()
