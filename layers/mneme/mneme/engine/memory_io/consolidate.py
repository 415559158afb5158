"""Consolidation on write (issue 13.3): refresh a near-duplicate, supersede an updated fact, else add.

For each new document (with its vector), in its namespace:

* the nearest active entry (of another run) at cosine ≥ the threshold (policy, else the embedding model's
  calibrated one) that adds no value (number, capitalized word) the stored entry lacks, or with the same
  normalized text (case, whitespace, punctuation), is **refreshed** instead of adding one (``update``,
  reason ``near_duplicate`` / ``same_text``);
* an extracted fact whose ``metadata.subject`` equals an active entry's with other content is added and the
  old entry is **superseded** by it (``write``, reason ``supersedes``) — same subject and text refreshes;
* otherwise it is added (``write``, reason ``new``).

The store may not show entries written moments ago (OpenSearch Serverless refreshes every 60 s): entries
written earlier in the same batch (``recent``) and those the store lists as written too recently for its
search (``MemoryStore.recent_writes``: the journal, on Serverless) are checked too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mneme.engine.memory_io.revisions import acting
from mneme.models.memory import MemoryDocument
from mneme.ports.memory import MemoryStore
from mneme.records import Record, field

_NEIGHBOURS = 20
_PUNCTUATION = re.compile(r"[\s.!?,;:]+")


def normalized(text: str) -> str:
    return _PUNCTUATION.sub(" ", text.lower()).strip()


_VALUE = re.compile(r"(?<![.!?:]\s)(?<!^)\b(?:[A-Z][\w'-]+|\d[\d.,:/-]*)")


def values(text: str) -> set[str]:
    """Numbers and capitalized words not at a sentence start: the values a near-duplicate must not change
    ("due on March 15" vs "due on April 2" embed at cosine 0.935 with MiniLM — two facts, not one)."""
    return {v.lower().rstrip(".,:") for v in _VALUE.findall(text.strip())} - {"i"}


class Decision(Record):
    action: str  # "write" | "update"
    reason: str  # new | near_duplicate | same_text | supersedes
    doc_id: str
    superseded: tuple[str, ...] = ()
    similarity: float | None = None


class Recent(Record, frozen=False):
    """Documents written earlier in this batch, with their vectors (read-your-writes inside the batch)."""

    items: list[tuple[MemoryDocument, list[float]]] = field(default_factory=list)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def consolidate(
    store: MemoryStore, doc: MemoryDocument, vector: list[float], *, threshold: float, now: datetime, recent: Recent
) -> Decision:
    seen = {
        c.document.id: (c.document, c.similarity) for c in store.search(vector, [doc.namespace], _NEIGHBOURS, now=now)
    }
    for other, other_vector in [*recent.items, *store.recent_writes(doc.namespace)]:
        if other.namespace == doc.namespace and other.status == "active":
            seen.setdefault(other.id, (other, _cosine(vector, other_vector)))
    seen.pop(doc.id, None)  # a redelivered job finds itself: store it again (idempotent)
    subject, run_id = doc.metadata.get("subject"), doc.metadata.get("run_id")
    if subject:  # an extracted fact: the same subject is the same fact — the same value refreshes, a new one replaces
        same_subject = [pair for pair in seen.values() if pair[0].metadata.get("subject") == subject]
        for other, similarity in same_subject:
            if normalized(other.content) == normalized(doc.content):
                store.refresh(other.id, other.namespace, _by(doc, "same_text", [other.id]))
                return Decision("update", "same_text", other.id, similarity=similarity)
        return _add(store, doc, vector, recent, replaced=[other for other, _ in same_subject], now=now)
    # a run's own input and answer are two records, never merged (an answer often restates the question)
    others = [pair for pair in seen.values() if not run_id or pair[0].metadata.get("run_id") != run_id]
    nearest = max(others, key=lambda pair: pair[1], default=None)
    if nearest is not None:
        other, similarity = nearest
        same = normalized(other.content) == normalized(doc.content)
        if same or (similarity >= threshold and values(doc.content) <= values(other.content)):
            reason = "same_text" if same else "near_duplicate"
            store.refresh(other.id, other.namespace, _by(doc, reason, [other.id]))
            return Decision("update", reason, other.id, similarity=similarity)
    return _add(store, doc, vector, recent, replaced=[], now=now)


def _add(
    store: MemoryStore,
    doc: MemoryDocument,
    vector: list[float],
    recent: Recent,
    *,
    replaced: list[MemoryDocument],
    now: datetime,
) -> Decision:
    if replaced:
        turns = list(dict.fromkeys(turn for other in replaced for turn in other.derived_from))
        doc = _by(doc, "supersedes", [other.id for other in replaced], turns=turns)
    store.put([(doc, vector)])
    recent.items.append((doc, vector))
    for other in replaced:
        with acting("consolidation", _run_of(doc)):
            store.set_status(other.id, other.namespace, status="superseded", superseded_by=doc.id, now=now)
        recent.items = [(d, v) for d, v in recent.items if d.id != other.id]
    return Decision("write", "supersedes" if replaced else "new", doc.id, tuple(o.id for o in replaced))


def _by(doc: MemoryDocument, strategy: str, entries: list[str], *, turns: list[str] | None = None) -> MemoryDocument:
    """The consolidation's own mark on what it writes (issue 35.2): its strategy and the entries it touched; a
    superseding fact also the raw turns the replaced ones came from (``turns``: they state the old value, so
    search ranks this entry above them, :mod:`mneme.memory.updates`)."""
    mark: dict[str, Any] = {"rule": "consolidation", "strategy": strategy, "entries": entries}
    if turns is not None:
        mark["turns"] = turns
    return doc.model_copy(update={"metadata": {**doc.metadata, "consolidated": mark}})


def _run_of(doc: MemoryDocument) -> str | None:
    run_id = doc.metadata.get("run_id")
    return str(run_id) if run_id else None
