"""The memory inbox over HTTP (issue 13.6): list a namespace's entries by recency, read one (with what a delete
would cascade to), confirm or correct one, and list the caller's namespaces with counts.

Owner-checked like every memory path: reads need the security filter (own scopes, or global), changes need
the write rule (own scopes; global for admins). An entry the caller may not see is answered 404, never 403.
Every read is audited (``read``, via ``inbox``), every change too (``update``) — the audit written before the
answer (fail closed, as everywhere).
"""

from __future__ import annotations

from typing import Any, Literal, NoReturn

from mneme.engine.audit import request_trail
from mneme.engine.deps import Deps
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io.conditional import claimed
from mneme.engine.memory_io.revisions import acting
from mneme.errors import EmbeddingInputTooLong, InvalidInput, MemoryUnavailable, NotFound
from mneme.memory.access import Denial, MemoryWriteForbidden, http_namespace
from mneme.memory.lifecycle import listing_cursor, store_cursor
from mneme.memory.namespaces import can_write, is_readable, own_namespaces
from mneme.models.audit import AuditAction
from mneme.models.memory import MemoryDocument
from mneme.models.precondition import Precondition, etag_of
from mneme.models.user import Caller
from mneme.ports.memory import MemoryStore
from mneme.records import Record

Status = Literal["active", "superseded", "deleted"]


class Page(Record):
    documents: list[MemoryDocument]
    cursor: str | None
    namespace: str


def _store(deps: Deps) -> MemoryStore:
    if deps.memory is None:
        raise MemoryUnavailable("long-term memory is not configured")
    return deps.memory


def _readable(deps: Deps, namespace: str, caller: Caller) -> str:
    target = http_namespace(namespace, caller.user_id)
    if not is_readable(target, caller.user_id):  # the caller named it: the refusal is audited (issue 31.10)
        _audit(deps, caller, "denied", target, reason="security_filter")
        raise NotFound(f"no memory namespace {target!r}")
    return target


def _audit(deps: Deps, caller: Caller, action: AuditAction, namespace: str | None, **detail: Any) -> None:
    trail = request_trail(caller.user_id, deps.clock)
    trail.write(deps.audit, action, [namespace], via="inbox", **detail)


def list_documents(
    deps: Deps, caller: Caller, namespace: str, *, status: Status | None, limit: int, cursor: str | None
) -> Page:
    """One namespace's entries, newest first (``deleted`` only when asked for)."""
    target = _readable(deps, namespace, caller)
    if status == "deleted" and target.startswith("vector.global.") and not caller.is_admin:
        # an admin's delete retracts a global entry: other users do not read it back (as its history, 403)
        _audit(deps, caller, "denied", target, reason="admin_required", status=status)
        raise MemoryWriteForbidden(
            f"only an admin may list deleted global memory ({target!r})", Denial(target, "admin_required")
        )
    listing = f"{target}|{status or 'live'}"  # a cursor pages the listing it came from, no other
    documents, following = _store(deps).list_documents(
        target, status=status, limit=limit, cursor=store_cursor(listing, cursor)
    )
    _audit(deps, caller, "read", target, hits=len(documents), status=status)
    return Page(documents, listing_cursor(listing, following), target)


def _visible(deps: Deps, caller: Caller, doc_id: str) -> MemoryDocument:
    document = _store(deps).find(doc_id)
    if document is None or not is_readable(document.namespace, caller.user_id):
        refused(deps, caller, doc_id)
    assert document is not None
    return document


def refused(deps: Deps, caller: Caller, doc_id: str) -> NoReturn:
    """A 404 for an id the caller may not see, audited ``denied`` — the same record whether the id is another
    user's or unknown, so the caller's own audit never tells the two apart (issue 31.10)."""
    _audit(deps, caller, "denied", None, reason="not_found", id=doc_id)
    raise NotFound(f"no memory entry {doc_id!r}")


def retracted(document: MemoryDocument, caller: Caller) -> bool:
    """A global entry an admin deleted, asked about by id by a user: gone for them (their ``GET`` of it is a
    404), so every route refuses it exactly as an unknown id — never an answer telling them it exists and where."""
    return document.deleted and not document.owner_user_id and not caller.is_admin


def forbidden(deps: Deps, caller: Caller, doc_id: str, namespace: str, *, what: str = "change") -> NoReturn:
    """A 403 for a global entry the caller reads but may not change (or read the history of: ``what``), being no
    admin; audited ``denied``."""
    _audit(deps, caller, "denied", namespace, reason="admin_required", id=doc_id)
    raise MemoryWriteForbidden(
        f"only an admin may {what} global memory ({namespace!r})", Denial(namespace, "admin_required")
    )


def get_document(deps: Deps, caller: Caller, doc_id: str, *, derived: bool) -> tuple[MemoryDocument, list[str] | None]:
    """One entry by id (superseded ones too), and with ``derived`` the ids a delete would cascade to."""
    document = _visible(deps, caller, doc_id)
    cascade = _store(deps).derived_ids(doc_id) if derived else None
    if cascade and not caller.is_admin:  # a global entry's: other users' entries derived from it are theirs
        mine = {d.id for d in _store(deps).entries(cascade) if is_readable(d.namespace, caller.user_id)}
        cascade = [i for i in cascade if i in mine]
    _audit(deps, caller, "read", document.namespace, hits=1, id=doc_id)
    return document, cascade


def patch_document(
    deps: Deps,
    caller: Caller,
    doc_id: str,
    *,
    content: str | None,
    tags: list[str] | None,
    status: Literal["active", "superseded"] | None,
    precondition: Precondition | None = None,
) -> MemoryDocument:
    """Confirm or correct an entry: new content (re-embedded), tags, or status; the entry becomes
    ``user_directed`` (the user vouched for it). Nothing to change is a 400. With a precondition (``If-Match``),
    an entry changed since the caller read it is a 412 and is left as it is. What the entry already is (a retried
    PATCH, a second click) is answered as it is, unwritten — audited as the read it was, with what it asked."""
    if content is None and tags is None and status is None:
        raise InvalidInput("name at least one of content, tags, status", field="body")
    document = _visible(deps, caller, doc_id)
    if not can_write(document.namespace, caller.user_id, is_admin=caller.is_admin):  # global, no admin: 403
        forbidden(deps, caller, doc_id, document.namespace, what="write")
    if precondition is not None:
        precondition.require(etag_of(document))
    asked = [name for name, value in (("content", content), ("tags", tags), ("status", status)) if value is not None]
    if _already(document, content=content, tags=tags, status=status):
        _audit(deps, caller, "read", document.namespace, hits=1, id=doc_id, unchanged=asked)
        return document
    with claimed(deps, document, precondition):  # two PATCHes that read the same ETag: one wins, one is a 412
        return _patched(deps, caller, document, content=content, tags=tags, status=status, asked=asked)


def _patched(
    deps: Deps,
    caller: Caller,
    document: MemoryDocument,
    *,
    content: str | None,
    tags: list[str] | None,
    status: Literal["active", "superseded"] | None,
    asked: list[str],
) -> MemoryDocument:
    doc_id = document.id
    store, now = _store(deps), deps.clock.now()
    ports = memory_ops.MemoryPorts(deps.memory, deps.embedder, deps.audit, deps.clock)
    try:
        vector = ports.embed_content(content) if content is not None else None
    except EmbeddingInputTooLong as exc:  # a PATCH changes one stored text: it is never cut into chunks
        raise EmbeddingInputTooLong(
            f"{exc.message}: an entry's content is changed in place, as one text; store a longer text with "
            "POST /v1/memory/documents, which stores it in chunks, and delete this entry",
            field="content",
        ) from None
    _audit(deps, caller, "update", document.namespace, id=doc_id, changed=asked)  # first: no change unaudited
    with acting("user", caller.user_id):
        if content is not None or tags is not None:
            store.update(doc_id, document.namespace, content=content, tags=tags, vector=vector, now=now)
        store.set_status(
            doc_id,
            document.namespace,
            status=status or ("superseded" if document.superseded else "active"),
            superseded_by=None if status == "active" else document.superseded_by,
            now=now,
            authority="user_directed",
        )
    updated = store.get(doc_id, document.namespace)
    if updated is None:  # deleted meanwhile
        raise NotFound(f"no memory entry {doc_id!r}")
    return updated


def _already(document: MemoryDocument, *, content: str | None, tags: list[str] | None, status: str | None) -> bool:
    """Whether a PATCH asks for what the entry is: its content, tags and status, and the user's word already
    (confirming an entry a model stored makes it ``user_directed``: a change)."""
    return (
        document.authority == "user_directed"
        and content in (None, document.content)
        and tags in (None, document.tags)
        and status in (None, document.status)
        and not (status == "active" and document.superseded_by is not None)
    )


def list_namespaces(deps: Deps, caller: Caller) -> dict[str, dict[str, int]]:
    """The caller's own namespaces (and global) with their entries counted by status. A user who is not an
    admin is shown no deleted global entry, not even counted (what an admin retracted is gone for them, as
    listing it is a 403), nor a global namespace holding nothing else."""
    patterns = own_namespaces(caller.user_id)
    counts = _store(deps).namespace_counts(patterns)
    if not caller.is_admin:
        counts = {name: _without_retracted(name, count) for name, count in counts.items()}
        counts = {name: count for name, count in counts.items() if any(count.values())}
    trail = request_trail(caller.user_id, deps.clock)
    trail.write(deps.audit, "read", list(patterns), via="inbox", listing="namespaces", hits=len(counts))
    return counts


def _without_retracted(namespace: str, count: dict[str, int]) -> dict[str, int]:
    return {**count, "deleted": 0} if namespace.startswith("vector.global.") else count
