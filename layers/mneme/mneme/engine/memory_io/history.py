"""An entry's revisions and the memory as it was (issue 35.3): ``GET /v1/memory/documents/{id}/revisions``
(the owner only) and ``POST /v1/memory/search`` with ``as_of``.

**As of** a moment, each entry is what its last revision at or before that moment says: created later, it is
not there; deleted, superseded or expired then, it is not a candidate. Those documents (the caller's own and
the global ones) become a read-only :class:`~mneme.memory.snapshot.MemorySnapshot`, and the **live search**
runs over it unchanged (:func:`mneme.engine.memory_io.ops.search_explained`, or with ``explain`` the
explained search): the same first stage — by default hybrid, the vector leg, the keyword leg with BM25
statistics over the caller's as-of documents only, the conversation windows, the calibrated fusion — the same
``retrieval`` / ``fusion`` / floors options, the same reranking and ranking, with liveness and recency counted
from that moment. One ranking, two memories to rank.

The revisions keep no vectors: each distinct content that may be a candidate is embedded once, in one batched
call (the store's vectors are not readable through its port). Entries that changed before revisions were
kept have no history and are not found.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import Any

from mneme.engine.audit import request_trail
from mneme.engine.deps import Deps
from mneme.engine.memory_io import explain as explaining
from mneme.engine.memory_io import inbox as memory_inbox
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.requests import SearchResult, http_search
from mneme.errors import InvalidInput, MemoryUnavailable
from mneme.memory.access import ReadAccess
from mneme.memory.snapshot import MemorySnapshot, live
from mneme.memory.speakers import spoken
from mneme.models.common import not_after
from mneme.models.memory import MemoryDocument
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
    if (
        document is None
        or not (_owner(document, caller) or _global(document))
        or memory_inbox.retracted(document, caller)
    ):
        memory_inbox.refused(deps, caller, doc_id)
    assert document is not None
    if not _owner(document, caller):  # a global entry a user reads: its history is the admins'
        memory_inbox.forbidden(deps, caller, doc_id, document.namespace, what="read the history of")
    history = revisions.history(document.owner_user_id, doc_id)
    trail = request_trail(caller.user_id, deps.clock)
    trail.write(deps.audit, "read", [document.namespace], via="revisions", id=doc_id, hits=len(history))
    return history


def _owner(document: MemoryDocument, caller: Caller) -> bool:
    if document.owner_user_id:
        return document.owner_user_id == caller.user_id
    return caller.is_admin and _global(document)


def _global(document: MemoryDocument) -> bool:
    return not document.owner_user_id and document.namespace.startswith("vector.global.")


def state_at(revisions: Sequence[MemoryRevision], moment: datetime) -> list[MemoryDocument]:
    """Each entry as its last revision at or before ``moment`` left it, in the order the entries were created
    (their first revision's moment and key: the store's write order, which the conversation windows read)."""
    first: dict[str, tuple[datetime, str]] = {}
    last: dict[str, MemoryRevision] = {}
    for revision in revisions:
        if revision.at <= moment:
            first.setdefault(revision.doc_id, (revision.at, revision.key))
            last[revision.doc_id] = revision
    return [last[doc_id].document for doc_id in sorted(last, key=first.__getitem__)]


def _global_as_of(revisions: MemoryRevisions, caller: Caller, moment: datetime) -> list[MemoryDocument]:
    """The global entries as of ``moment`` that ``caller`` may see: all of them for an admin; for a user, only
    those still readable now as they were then. A global entry is everyone's to read, not its history (its
    revisions and deleted entries are the admins'), so what an admin retracted or corrected since is not shown."""
    history = revisions.owned("")
    then = state_at(history, moment)
    if caller.is_admin:
        return then
    now = {revision.doc_id: revision.document for revision in history}  # each entry's oldest first: its last
    return [doc for doc in then if _unchanged(doc, now[doc.id])]


def _unchanged(then: MemoryDocument, now: MemoryDocument) -> bool:
    """Whether a user reading ``now`` learns nothing from ``then``: it is not deleted and what a hit or an
    explanation shows of it is the same."""
    shown = {"namespace", "content", "tags", "metadata", "memory_class", "observed_at", "deleted", "superseded"}
    return not now.deleted and then.model_dump(include=shown) == now.model_dump(include=shown)


class _At:
    """A clock standing at the as-of moment."""

    def __init__(self, moment: datetime) -> None:
        self._moment = moment

    def now(self) -> datetime:
        return self._moment


def search_as_of(
    deps: Deps,
    caller: Caller,
    query: str,
    namespaces: Sequence[str] | None,
    top_k: int,
    moment: datetime,
    *,
    options: dict[str, Any] | None = None,
    explain: bool = False,
    via: str = "http",
) -> SearchResult:
    """What ``POST /v1/memory/search`` would have answered at ``moment`` (see the module doc), explained with
    ``explain``; audited as the live search's reads, each with ``as_of``."""
    revisions = _revisions(deps)
    at = not_after(moment, deps.clock.now())  # today's date (its end): the memory as it is now
    if at is None:
        raise InvalidInput("as_of must not be in the future", field="as_of")
    moment = at
    search = http_search(deps, caller, namespaces, top_k, options=options, via=via)
    access, ranking = search.access, search.ranking
    vectors = ranking.retrieval != "keyword"
    snapshot = _snapshot(search.ports, revisions, access, caller, moment, vectors=vectors)
    then = replace(search.ports, clock=_At(moment), view=snapshot)
    records = partial(search.trail.records, as_of=moment.isoformat())
    if not explain:
        return SearchResult(memory_ops.search(then, records, access, query, ranking, via=via), access)
    explained = explaining.explain_search(
        then, records, access, query, ranking, user_id=caller.user_id, via=via, granted_by=search.granted_by
    )
    return SearchResult(explained.ranked.hits, access, explained)


def _snapshot(
    ports: memory_ops.MemoryPorts,
    revisions: MemoryRevisions,
    access: ReadAccess,
    caller: Caller,
    moment: datetime,
    *,
    vectors: bool,
) -> MemorySnapshot:
    """The caller's own and the global entries as of ``moment``; with ``vectors``, the vectors of those that
    may be candidates (live then, in a granted namespace), each distinct content embedded once, in one call."""
    if access.empty:
        return MemorySnapshot()
    keyword = getattr(ports.store, "keyword_search_available", True)  # False: S3 Vectors (vector-only hybrid)
    documents = [*state_at(revisions.owned(caller.user_id), moment), *_global_as_of(revisions, caller, moment)]
    searchable = [
        doc for doc in documents if live(doc, moment) and any(matches(p, doc.namespace) for p in access.allowed)
    ]
    contents = list(dict.fromkeys(spoken(doc.content) for doc in searchable)) if vectors else []
    if not contents:
        return MemorySnapshot(documents, keyword_search_available=keyword)
    _, embedder = ports.require()
    embedded = dict(zip(contents, embedder.embed(contents), strict=True))
    found = {doc.id: embedded[spoken(doc.content)] for doc in searchable}
    return MemorySnapshot(documents, found, keyword_search_available=keyword)
