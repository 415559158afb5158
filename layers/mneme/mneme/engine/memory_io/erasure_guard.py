"""A synchronous memory write (HTTP, batch, MCP, a run's memory tool) and its user's erasure.

The queued writes have the writer's check (``erased_writes``); these have the same, around the store's ``put``.
Before the write, a user whose erasure runs is refused (409 ``erasure_in_progress``): the receipt would say
everything is gone while the write goes on. After it, the tombstones are read again: an erasure that started
while the content was embedded may have listed the user's entries before this write landed — even finished,
its receipt ``verified`` — so what the write stored is deleted for good and the write answers 409 as well
(never a 201 for an entry that is not there). An erasure that finished before the write began is history:
the user writes again. A tombstone is written before an erasure deletes anything, so when the second read
finds none the erasure's own listings (later) see the write.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mneme.engine.memory_io.search_ports import MemoryPorts
from mneme.errors import ErasureInProgress
from mneme.models.memory import MemoryDocument
from mneme.models.privacy import ErasureState


def _writers(documents: Sequence[MemoryDocument]) -> list[str]:
    users = {doc.owner_user_id for doc in documents} | {str(doc.metadata.get("user_id") or "") for doc in documents}
    return sorted(user for user in users if user)


def _began(documents: Sequence[MemoryDocument]) -> datetime:
    return min(doc.created_at for doc in documents)


def _erasing(erasure: ErasureState, began: datetime) -> bool:
    """Running, or finished at or after the moment the write began (its data belongs to what was erased)."""
    return erasure.finished_at is None or began <= erasure.finished_at


def _erased_writer(ports: MemoryPorts, documents: Sequence[MemoryDocument]) -> str | None:
    if ports.erasures is None or not documents:
        return None
    began = _began(documents)
    erasures = ports.erasures.erasures(_writers(documents))
    return next((user for user, state in sorted(erasures.items()) if _erasing(state, began)), None)


def refuse_if_erasing(ports: MemoryPorts, documents: Sequence[MemoryDocument]) -> None:
    """Before the write: a 409 when its user's erasure runs (a tombstone store failing is a 503)."""
    if _erased_writer(ports, documents) is not None:
        raise ErasureInProgress("this user's data is being erased: nothing was written; write again once it is done")


def undo_if_erased(ports: MemoryPorts, documents: Sequence[MemoryDocument], ids: Sequence[str]) -> None:
    """After the write: when its user's erasure started meanwhile, what it stored is deleted for good and the
    write is a 409. The tombstones unreadable raise (the caller takes back what the write created)."""
    if _erased_writer(ports, documents) is None:
        return
    store, _ = ports.require()
    store.hard_delete(list(dict.fromkeys(ids)))
    raise ErasureInProgress("this user's data was erased while the entry was written: nothing of it is kept")
