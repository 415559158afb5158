"""Memory over the HTTP API (SPEC §5, §10) and mneme's MCP server (issue 20): search, write and soft-delete
entries — the caller's own scopes, or global — through the same security filter and audit as the runs' memory
paths. ``via`` (``http`` or ``mcp``) says on every audit record which of the two served the request."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mneme.engine.audit import AuditTrail, request_trail
from mneme.engine.deps import Deps
from mneme.engine.memory_io import audited_writes
from mneme.engine.memory_io import batch as memory_batch
from mneme.engine.memory_io import inbox as memory_inbox
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.conditional import claimed
from mneme.engine.memory_io.explain import Explanation
from mneme.engine.memory_io.revisions import acting
from mneme.errors import InvalidInput
from mneme.memory.access import (
    MemoryWriteForbidden,
    ReadAccess,
    denials_of,
    http_delete_allowed,
    http_namespace,
    http_search_access,
    http_write_access,
)
from mneme.memory.entry_retention import is_expired, memory_retention
from mneme.memory.lifecycle import check_user_metadata
from mneme.memory.namespaces import is_readable
from mneme.memory.policy import MemoryScope, resolved_rules
from mneme.models.memory import MemoryClass, MemoryHit
from mneme.models.policy import ResolvedPolicy
from mneme.models.precondition import Precondition, etag_of
from mneme.models.user import Caller
from mneme.records import Record, replace


class SearchResult(Record):
    hits: list[MemoryHit]
    access: ReadAccess
    explanation: Explanation | None = None  # with explain (issue 35.1)


def memory_ports(deps: Deps, caller: Caller | None = None) -> memory_ops.MemoryPorts:
    scope = MemoryScope(user_id=caller.user_id if caller else "", is_admin=bool(caller and caller.is_admin))
    return memory_ops.MemoryPorts(
        store=deps.memory,
        embedder=deps.embedder,
        audit=deps.audit,
        clock=deps.clock,
        rules=resolved_rules(ResolvedPolicy(), deps.settings.namespace_rules, scope),
        recency_decay=deps.settings.recency_decay,
        retention=memory_retention(deps.settings),
        reranker=deps.reranker,
        erasures=deps.privacy_ledger,
    )


def _trail(deps: Deps, caller: Caller) -> AuditTrail:
    return request_trail(caller.user_id, deps.clock)


class HttpSearch(Record):
    """What one ``POST /v1/memory/search`` reads with: its ports, audit trail, granted namespaces and ranking."""

    ports: memory_ops.MemoryPorts
    trail: AuditTrail
    access: ReadAccess
    ranking: memory_ops.Ranking
    granted_by: str  # the rule explain names for the namespaces searched


def http_search(
    deps: Deps,
    caller: Caller,
    namespaces: Sequence[str] | None,
    top_k: int,
    *,
    options: dict[str, Any] | None = None,
    via: str = "http",
) -> HttpSearch:
    """Without namespaces: the caller's own scopes and global; with them, the security filter decides.
    Every denied namespace is audited, also when the request is refused for another one. ``options``:
    retrieval, fusion, min_score, relative_cutoff (validated by the request model)."""
    ports, trail = memory_ports(deps, caller), _trail(deps, caller)
    try:
        access = http_search_access(caller.user_id, namespaces)
    except InvalidInput as exc:
        memory_ops.audit_denials(ports, trail.records, denials_of(exc), via=via)
        raise
    ranking = replace(memory_ops.Ranking.of(ResolvedPolicy(), top_k), **(options or {}))
    rule = "request.namespaces" if namespaces else "own_namespaces"
    return HttpSearch(ports=ports, trail=trail, access=access, ranking=ranking, granted_by=rule)


def search_memory(
    deps: Deps,
    caller: Caller,
    query: str,
    namespaces: Sequence[str] | None,
    top_k: int,
    *,
    via: str = "http",
    options: dict[str, Any] | None = None,
) -> SearchResult:
    """``POST /v1/memory/search``: the hits (see :func:`http_search`)."""
    search = http_search(deps, caller, namespaces, top_k, options=options, via=via)
    hits = memory_ops.search(search.ports, search.trail.records, search.access, query, search.ranking, via=via)
    return SearchResult(hits, search.access)


def write_memory(
    deps: Deps,
    caller: Caller,
    namespace: str,
    content: str,
    *,
    tags: Sequence[str] = (),
    ttl_seconds: int | None = None,
    via: str = "http",
    observed_at: datetime | None = None,
    memory_class: MemoryClass | None = None,
    metadata: dict[str, Any] | None = None,
) -> tuple[list[str], str]:
    """Write one entry into a namespace the caller may write; answers its ids (one per chunk of long
    content, the first the entry's own) and the resolved namespace. Reserved metadata keys are a 400."""
    ports, trail = memory_ports(deps, caller), _trail(deps, caller)
    extra = check_user_metadata(metadata)
    try:
        target = http_write_access(namespace, caller.user_id, is_admin=caller.is_admin)
    except MemoryWriteForbidden as exc:
        trail.write(deps.audit, "denied", [exc.denial.namespace], via=via, reason=exc.denial.reason)
        raise
    owner = "" if target.startswith("vector.global.") else caller.user_id
    document = memory_ops.new_document(
        deps.ids(),
        target,
        owner,
        content,
        clock=deps.clock,
        tags=tags,
        metadata={**extra, "source": via, "user_id": caller.user_id},
        ttl_seconds=ttl_seconds,
        memory_class=memory_class,
        authority="user_directed",
        observed_at=observed_at,
        retention=ports.retention,
    )
    documents = memory_ops.chunked(document, audited_writes.chunk_limit(ports))
    extra = {"chunks": len(documents)} if len(documents) > 1 else {}
    ids = audited_writes.audited_create(ports, trail.records, target, documents, via=via, **extra)
    return ids, target


def write_memory_batch(deps: Deps, caller: Caller, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``POST /v1/memory/documents:batch``: each item's result by index (:mod:`mneme.engine.memory_io.batch`)."""
    return memory_batch.write_batch(deps, caller, items, ports=memory_ports(deps, caller), trail=_trail(deps, caller))


def delete_memory(
    deps: Deps,
    caller: Caller,
    doc_id: str,
    namespace: str | None = None,
    *,
    via: str = "http",
    precondition: Precondition | None = None,
) -> list[str]:
    """Soft-delete an entry (and, by cascade, the entries derived from it); answers every id marked.
    An entry the caller may not read is answered as not found; a global one they read but may not delete (no
    admin) is a 403, as its PATCH is. With a precondition (``If-Match``: the entry as it was read; ``If-None-Match:
    *``: it must not exist), an entry it does not hold for is a 412 and is left as it is, as a PATCH's."""
    ports, trail = memory_ports(deps, caller), _trail(deps, caller)
    store, _ = ports.require()
    if namespace:  # the entry's namespace, to find it without a lookup: an invalid one is a 400
        namespace = http_namespace(namespace, caller.user_id)
    document = store.get(doc_id, namespace) if namespace else store.find(doc_id)
    if (
        document is None
        or document.deleted
        or is_expired(document, deps.clock.now())
        or not is_readable(document.namespace, caller.user_id)
    ):
        memory_inbox.refused(deps, caller, doc_id)
    if not http_delete_allowed(document.namespace, caller.user_id, is_admin=caller.is_admin):
        memory_inbox.forbidden(deps, caller, doc_id, document.namespace)
    if precondition is not None:
        precondition.require(etag_of(document))
    with claimed(deps, document, precondition), acting("user", caller.user_id):  # one change per version read
        return audited_writes.audited_delete(ports, trail, caller.user_id, document, via=via, id=doc_id)
