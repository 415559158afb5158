"""Standing memories: the entries of a policy's ``standing_namespaces``, shown to the run's model whatever the
question (a personal assistant that "knows the user's preferences unprompted", the design note's first use of
auto-inject).

Auto-inject recalls what a question is about, and nothing for a question about something else: since the floors
mean something (issue 30.2), "I prefer answers in bullet points." or "I am allergic to peanuts." is never injected
for "Suggest a dinner recipe for tonight." (cosine 0.05-0.15, no word shared). A standing namespace says which
entries hold whatever is asked:

* its live whole entries (not deleted, superseded or expired; a chunk of a long memory is no standing entry),
  newest first (``created_at``), over all the standing namespaces, at most :data:`MAX_ENTRIES` of them and
  :data:`MAX_CHARS` characters in all (an entry that does not fit is left out, a shorter older one may still
  be shown); what is left out is counted (the run's ``memory_hits`` event says how many);
* only where auto-inject reads (``auto_read_enabled``), through the same security filter (another user's
  namespace is denied and audited); each namespace read is audited as a read (``standing: true``) **before**
  its entries are used;
* shown first in the memory context, each once (a hit of the question's search that is a standing entry is
  not shown twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.engine.audit import denial_records
from mneme.engine.memory_io.ops import RecordFactory, append_audit
from mneme.memory.chunking import whole
from mneme.memory.ranking import hit_of, unusable_reason
from mneme.models.memory import MemoryCandidate
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from mneme.engine.memory_io.search_ports import MemoryPorts
    from mneme.memory.access import ReadAccess
    from mneme.models.audit import AuditAction
    from mneme.models.memory import MemoryDocument, MemoryHit

#: the standing entries shown at most, and their characters in all
MAX_ENTRIES = 10
MAX_CHARS = 1_500
#: the entries read per standing namespace, newest first (a namespace holding more leaves its oldest unread)
READ_PER_NAMESPACE = 50


class Standing(Record):
    """The standing entries to show (newest first), how many usable ones did not fit, the namespaces ``read``
    (``None``: the policy names none, or none could be read)."""

    hits: tuple[MemoryHit, ...] = ()
    left_out: int = 0
    read: tuple[str, ...] | None = None

    def event(self) -> dict[str, object]:
        """What the run's ``memory_hits`` event says of them (nothing when none was read)."""
        if self.read is None:
            return {}
        ids = [hit.id for hit in self.hits]
        return {"standing": {"count": len(ids), "ids": ids, "left_out": self.left_out, "namespaces": list(self.read)}}


def read_standing(
    ports: MemoryPorts, records: RecordFactory, access: ReadAccess, *, via: str, action: AuditAction = "read"
) -> Standing:
    """The standing entries of ``access.allowed`` (module doc); denials and reads audited, the reads before the
    entries are returned. Raises MemoryUnavailable when the store fails, AuditWriteFailed when the audit does."""
    pending = denial_records(records, access.denied, via=via)
    try:
        if access.empty:
            return Standing(read=())
        live = _live(ports, access.allowed)
        shown = _within_budget(live)
        for namespace in access.allowed:
            count = sum(1 for doc in shown if doc.namespace == namespace)
            pending += records(action, [namespace], via=via, hits=count, standing=True)
        to_write, pending = pending, []
        append_audit(ports.audit, to_write)
        return Standing(hits=tuple(as_hit(doc) for doc in shown), left_out=len(live) - len(shown), read=access.allowed)
    finally:
        if pending:  # the read failed: the denials are still recorded
            append_audit(ports.audit, pending)


def _live(ports: MemoryPorts, namespaces: Sequence[str]) -> list[MemoryDocument]:
    """The live whole entries of ``namespaces`` (the newest :data:`READ_PER_NAMESPACE` of each), newest first."""
    store, _ = ports.require()
    now = ports.clock.now()
    live: list[MemoryDocument] = []
    for namespace in namespaces:
        documents, _ = store.list_documents(namespace, status="active", limit=READ_PER_NAMESPACE, cursor=None)
        live += [doc for doc in documents if whole(doc) and not unusable_reason(doc, now)]
    live = [doc for doc in live if doc.id not in ports.hidden_ids]
    return sorted(live, key=lambda doc: (doc.created_at, doc.id), reverse=True)


def with_standing(standing: Standing, hits: Sequence[MemoryHit]) -> list[MemoryHit]:
    """The memory context's entries: the standing ones first, then the question's hits that are not one of them."""
    ids = {hit.id for hit in standing.hits}
    return [*standing.hits, *(hit for hit in hits if hit.id not in ids)]


def why_not_shown(doc: MemoryDocument, standing: Standing, *, now: datetime, hidden: frozenset[str]) -> str | None:
    """Why an entry of a standing namespace is not among ``standing``'s: ``deleted`` / ``superseded`` / ``expired``,
    ``chunk`` (a piece of a long memory), ``budget`` (newer entries filled :data:`MAX_ENTRIES` / :data:`MAX_CHARS`,
    or more than :data:`READ_PER_NAMESPACE` newer ones were stored); None when it is shown or not of one."""
    if standing.read is None or doc.namespace not in standing.read or any(hit.id == doc.id for hit in standing.hits):
        return None
    if doc.id in hidden:
        return "deleted"
    return unusable_reason(doc, now) or ("budget" if whole(doc) else "chunk")


def _within_budget(documents: Sequence[MemoryDocument]) -> list[MemoryDocument]:
    shown: list[MemoryDocument] = []
    chars = 0
    for doc in documents:
        if len(shown) == MAX_ENTRIES:
            break
        if chars + len(doc.content) <= MAX_CHARS:
            shown.append(doc)
            chars += len(doc.content)
    return shown


def as_hit(doc: MemoryDocument) -> MemoryHit:
    """A standing entry as the memory context shows it: relevant by the policy, not by a score (1.0)."""
    return hit_of(MemoryCandidate(document=doc, similarity=1.0), 1.0, standing=True)
