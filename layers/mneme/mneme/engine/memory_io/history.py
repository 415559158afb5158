"""An entry's revisions and the memory as it was (issue 35.3): ``GET /v1/memory/documents/{id}/revisions``
(the owner only) and ``POST /v1/memory/search`` with ``as_of``.

**As of** a moment, each entry is what its last revision at or before that moment says: created later, deleted,
superseded or expired then, it is not a candidate. The candidates are ranked as a vector search then was
(their content as it was, embedded with the query now; the floors of the vector mode, recency counted from that
moment) — the keyword leg and the fusion are not replayed. Entries that changed before revisions were kept
have no history and are not found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mneme.engine.audit import denial_records, request_trail
from mneme.engine.deps import Deps
from mneme.engine.memory_io import inbox as memory_inbox
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.requests import SearchResult, memory_ports
from mneme.errors import InvalidInput, MemoryUnavailable
from mneme.memory.access import ReadAccess, denials_of, http_search_access
from mneme.memory.ranking import rank_explained
from mneme.models.memory import MemoryCandidate, MemoryDocument
from mneme.models.policy import ResolvedPolicy
from mneme.models.revision import MemoryRevision
from mneme.models.user import Caller
from mneme.namespace_grammar import matches
from mneme.ports.memory_revisions import MemoryRevisions
from mneme.records import replace


def _revisions(deps: Deps) -> MemoryRevisions:
    if deps.memory is None or deps.revisions is None:
        raise MemoryUnavailable("memory revisions are not kept in this deployment")
    return deps.revisions


def revisions_of(deps: Deps, caller: Caller, doc_id: str) -> list[MemoryRevision]:
    """Every revision of an entry the caller owns (a global one: admins), oldest first, numbered from 1.
    Another user's entry, or an unknown id, is the inbox's audited 404."""
    revisions = _revisions(deps)
    assert deps.memory is not None
    found = deps.memory.entries([doc_id])
    document = found[0] if found else None
    if document is None or not _owner(document, caller):
        memory_inbox.refused(deps, caller, doc_id)
    assert document is not None
    history = revisions.history(document.owner_user_id, doc_id)
    trail = request_trail(caller.user_id, deps.clock)
    trail.write(deps.audit, "read", [document.namespace], via="revisions", id=doc_id, hits=len(history))
    return history


def _owner(document: MemoryDocument, caller: Caller) -> bool:
    if document.owner_user_id:
        return document.owner_user_id == caller.user_id
    return caller.is_admin and document.namespace.startswith("vector.global.")


def state_at(revisions: Sequence[MemoryRevision], moment: datetime) -> list[MemoryDocument]:
    """Each entry as its last revision at or before ``moment`` left it (revisions of one entry in order)."""
    last: dict[str, MemoryRevision] = {}
    for revision in revisions:
        if revision.at <= moment:
            last[revision.doc_id] = revision
    return [revision.document for revision in last.values()]


def search_as_of(
    deps: Deps,
    caller: Caller,
    query: str,
    namespaces: Sequence[str] | None,
    top_k: int,
    moment: datetime,
    *,
    options: dict[str, Any] | None = None,
    via: str = "http",
) -> SearchResult:
    """What ``POST /v1/memory/search`` would have answered at ``moment`` (see the module doc); audited as a
    read with ``as_of``."""
    revisions = _revisions(deps)
    if moment > deps.clock.now():
        raise InvalidInput("as_of must not be in the future", field="as_of")
    ports, trail = memory_ports(deps, caller), request_trail(caller.user_id, deps.clock)
    try:
        access = http_search_access(caller.user_id, namespaces)
    except InvalidInput as exc:
        memory_ops.audit_denials(ports, trail.records, denials_of(exc), via=via)
        raise
    ranking = replace(memory_ops.Ranking.of(ResolvedPolicy(), top_k), **{**(options or {}), "retrieval": "vector"})
    pending = denial_records(trail.records, access.denied, via=via)
    candidates = _candidates(ports, revisions, access, query, caller.user_id, moment)
    min_score, cutoff = ranking.floors(ports.model_id)
    ranked = rank_explained(
        candidates,
        now=moment,
        top_k=ranking.top_k,
        min_score=min_score,
        relative_cutoff=cutoff,
        rules=ports.rules,
        recency_decay=ports.recency_decay,
    )
    for namespace in access.allowed:
        count = sum(1 for hit in ranked.hits if matches(namespace, hit.namespace))
        pending += trail.records("read", [namespace], via=via, hits=count, as_of=moment.isoformat())
    memory_ops.append_audit(deps.audit, pending)
    return SearchResult(ranked.hits, access)


def _candidates(
    ports: memory_ops.MemoryPorts,
    revisions: MemoryRevisions,
    access: ReadAccess,
    query: str,
    user_id: str,
    moment: datetime,
) -> list[MemoryCandidate]:
    if access.empty:
        return []
    history = [*revisions.owned(user_id), *revisions.owned("")]
    documents = [
        doc
        for doc in state_at(history, moment)
        if any(matches(pattern, doc.namespace) for pattern in access.allowed)
        and not doc.deleted
        and not doc.superseded
        and (doc.expires_at is None or doc.expires_at > moment)
    ]
    if not documents:
        return []
    _, embedder = ports.require()
    query_vector = ports.embed_one(query)  # cut to the model's limit, as every search's query
    vectors = embedder.embed([doc.content for doc in documents])
    scored = [
        MemoryCandidate(document=doc, similarity=_cosine(query_vector, vector))
        for doc, vector in zip(documents, vectors, strict=True)
    ]
    return sorted(scored, key=lambda c: -c.similarity)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b)) or 1.0
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm
