"""``POST /v1/memory/documents:batch`` (issue 30.5): up to 100 entries, embedded together, each answered by index.

* Every item goes through what a single write does (``memory_requests.write_memory``): validation, reserved
  metadata, the security filter (a refused namespace is audited ``denied``), chunking, a ``write`` audit
  record per stored item. A bad item answers its own error; the others are stored.
* All items' texts are embedded in one call (the embedder batches) and stored in one ``put``.
* ``client_token``: the entry's id is derived from the caller, the namespace and the token, so a retried
  batch finds what the first try stored and answers the same ids (``replayed: true``) without storing,
  embedding or auditing it again. The same token with other content is a 409 for that item — in a later
  request and in the same one (two items with one token stored only the second before: both answered 201) —
  and so is a token whose entry was deleted since (it answered ``replayed`` with ids that were a 404).
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from mneme.engine.memory_io import audited_writes
from mneme.engine.memory_io import ops as memory_ops
from mneme.errors import Conflict, InvalidInput, MnemeError, field_path, validation_text
from mneme.memory.access import MemoryWriteForbidden, http_write_access
from mneme.memory.chunking import chunk_ids
from mneme.memory.lifecycle import check_user_metadata
from mneme.models.requests import BatchItem
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from mneme.engine.audit import AuditTrail
    from mneme.engine.deps import Deps
    from mneme.models.memory import MemoryDocument
    from mneme.models.user import Caller


class _Planned(Record):
    index: int
    namespace: str
    documents: list[MemoryDocument]


def token_id(user_id: str, namespace: str, token: str) -> str:
    """The id of the entry a client token names (the same for every retry, different for every user)."""
    return "ct-" + hashlib.sha256(f"{user_id}\x00{namespace}\x00{token}".encode()).hexdigest()[:32]


def _error(index: int, exc: MnemeError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": exc.code, "message": str(exc)}
    if exc.field:
        body["field"] = exc.field
    return {"index": index, "status": exc.status, "error": body}


def _invalid(exc: ValidationError) -> InvalidInput:
    first = exc.errors()[0]
    where = field_path(first.get("loc", ()), "item")
    return InvalidInput(f"{where}: {validation_text(first, 'invalid')}", field=where)


def write_batch(
    deps: Deps, caller: Caller, items: Sequence[dict[str, Any]], *, ports: memory_ops.MemoryPorts, trail: AuditTrail
) -> list[dict[str, Any]]:
    """One result per item, in order: ``{index, status: 201, ids, namespace[, replayed | refreshed]}`` or
    ``{index, status, error}``. Raises only for what fails the whole batch (memory unavailable, the audit failing)."""
    results: list[dict[str, Any] | None] = [None] * len(items)
    planned: list[_Planned] = []
    tokens: dict[str, list[MemoryDocument]] = {}  # what this batch's earlier items store under a client token
    limit = audited_writes.chunk_limit(ports)
    store, _ = ports.require()
    for index, raw in enumerate(items):
        try:
            item = _validated(raw)
            target = _target(deps, caller, item, trail)
            owner = "" if target.startswith("vector.global.") else caller.user_id
            doc_id = token_id(caller.user_id, target, item.client_token) if item.client_token else deps.ids()
            document = memory_ops.new_document(
                doc_id,
                target,
                owner,
                item.content,
                clock=deps.clock,
                tags=item.tags,
                metadata={**check_user_metadata(item.metadata), "source": "http", "user_id": caller.user_id},
                ttl_seconds=item.ttl_seconds,
                memory_class=item.memory_class,
                authority="user_directed",
                observed_at=item.observed_at,
                retention=ports.retention,
            )
            documents = memory_ops.chunked(document, limit)
            if item.client_token:
                found = tokens.get(doc_id) or store.entries([doc_id])
                if (done := _replayed(found, documents, partial(_as_created, deps))) is not None:
                    results[index] = {"index": index, "status": 201, "ids": done, "namespace": target, "replayed": True}
                    continue
                tokens[doc_id] = documents
            planned.append(_Planned(index, target, documents))
        except MnemeError as exc:
            results[index] = _error(index, exc)
    _store(ports, trail, planned, results)
    return [result for result in results if result is not None]


def _validated(raw: Any) -> BatchItem:
    if not isinstance(raw, dict):
        raise InvalidInput("an item must be a JSON object", field="item")
    try:
        return BatchItem.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(exc) from None


def _target(deps: Deps, caller: Caller, item: BatchItem, trail: AuditTrail) -> str:
    try:
        return http_write_access(item.namespace, caller.user_id, is_admin=caller.is_admin)
    except MemoryWriteForbidden as exc:
        trail.write(deps.audit, "denied", [exc.denial.namespace], via="http", reason=exc.denial.reason)
        raise


def _replayed(
    found: list[MemoryDocument],
    documents: list[MemoryDocument],
    created: Callable[[MemoryDocument], MemoryDocument | None],
) -> list[str] | None:
    """The ids a first try stored under this token (None: nothing stored yet); other content is a conflict, and so
    is an entry deleted since: its ids are a 404 now, and storing it again under the same id would bring back what
    the user deleted (a deleted entry is kept, marked, until it expires). An entry edited since (a PATCH) is
    compared as it was first stored (``created``: its history's ``create``): the same item sent again is the
    same request, replayed — an import run again after the user corrected an entry."""
    if not found:
        return None
    first = found[0]
    if first.deleted:
        raise Conflict(
            f"client_token names entry {first.id!r}, which was deleted since it was stored; "
            "to store the item again, send it with another client_token",
            field="client_token",
        )
    if not _same(first, documents) and not _same(created(first), documents):
        raise Conflict("client_token was already used for another entry", field="client_token")
    return chunk_ids(first.id, len(documents))


def _same(stored: MemoryDocument | None, documents: list[MemoryDocument]) -> bool:
    return (
        stored is not None
        and stored.content_hash == documents[0].content_hash
        and (stored.chunk_count or 1) == len(documents)
    )


def _as_created(deps: Deps, document: MemoryDocument) -> MemoryDocument | None:
    """The entry as it was first stored (None: its history is not kept)."""
    if deps.revisions is None:
        return None
    history = deps.revisions.history(document.owner_user_id, document.id)
    return next((revision.document for revision in history if revision.change == "create"), None)


def _store(
    ports: memory_ops.MemoryPorts,
    trail: AuditTrail,
    planned: list[_Planned],
    results: list[dict[str, Any] | None],
) -> None:
    """Embed every planned document in one call, store them in one ``put``, audit one write per item."""
    documents = [doc for plan in planned for doc in plan.documents]
    if not documents:
        return
    records = [
        record
        for plan in planned
        for record in trail.records(
            "write",
            [plan.namespace],
            via="http",
            batch=True,
            **({"chunks": len(plan.documents)} if len(plan.documents) > 1 else {}),
        )
    ]
    ids = audited_writes.write_audited(ports, documents, records)
    at = 0
    for plan in planned:
        stored = ids[at : at + len(plan.documents)]
        at += len(plan.documents)
        result: dict[str, Any] = {"index": plan.index, "status": 201, "ids": stored, "namespace": plan.namespace}
        if stored != [doc.id for doc in plan.documents]:  # identical content was there: it was refreshed (§5.5)
            result["refreshed"] = True
        results[plan.index] = result
