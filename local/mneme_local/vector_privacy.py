"""The embedded vector store's owner-scoped listing and deletion for good (exports, erasures, the purge).

Plain SQL over the store's rows, apart from the search structures: a listing pages by ``id`` over the
``memory_owner`` index (``owner_user_id, id``); a deletion removes the rows and their ``memory_derived``
links in the caller's write transaction (which drops the store's in-memory search blocks), telling the
store of each row first (``on_delete``) when its search structures need to hear of it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from mneme.models.memory import MemoryClass, MemoryDocument, default_class
from mneme_local.vector_rows import COLUMNS, micros, row_document

PAGE = 500
#: global entries whose metadata names their writer
AUTHORED = (
    "owner_user_id = '' AND namespace >= ? AND namespace < ? AND json_extract(metadata, '$.user_id') = ?",
    ("vector.global.", "vector.global.\uffff"),
)


def iter_rows(
    lock: threading.RLock, db: sqlite3.Connection, where: str, params: tuple[Any, ...]
) -> Iterator[MemoryDocument]:
    """The matching rows in ``id`` order, one page per lock hold (writes may interleave between pages)."""
    last = ""
    while True:
        with lock:
            rows = db.execute(
                f"SELECT {COLUMNS} FROM memory WHERE {where} AND id > ? ORDER BY id LIMIT {PAGE}", (*params, last)
            ).fetchall()
        for row in rows:
            yield row_document(row)
        if len(rows) < PAGE:
            return
        last = rows[-1][0]


#: told of each row before it is deleted: ``(db, namespace, rowid)`` (a store that keeps a change log for its
#: in-memory indexes logs the row there, so the indexes drop it)
OnDelete = Callable[[sqlite3.Connection, str, int], None]


def delete_rows(db: sqlite3.Connection, ids: Sequence[str], on_delete: OnDelete | None = None) -> int:
    unique = list(dict.fromkeys(ids))
    removed = 0
    for start in range(0, len(unique), PAGE):
        batch = unique[start : start + PAGE]
        marks = ", ".join("?" * len(batch))
        if on_delete is not None:
            for rowid, namespace in db.execute(f"SELECT rowid, namespace FROM memory WHERE id IN ({marks})", batch):
                on_delete(db, namespace, rowid)
        # the keyword index holds a copy of the content: it goes first, with the row it belongs to
        db.execute(f"DELETE FROM memory_fts WHERE rowid IN (SELECT rowid FROM memory WHERE id IN ({marks}))", batch)
        removed += db.execute(f"DELETE FROM memory WHERE id IN ({marks})", batch).rowcount
        db.execute(f"DELETE FROM memory_derived WHERE id IN ({marks}) OR source_id IN ({marks})", [*batch, *batch])
    return removed


def expired_ids(db: sqlite3.Connection, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> list[str]:
    """Entries expired at ``now``, and entries of a class created before its cutoff (a NULL class is the
    default of the entry's source)."""
    found = [row[0] for row in db.execute("SELECT id FROM memory WHERE expires_at <= ?", (micros(now),))]
    if cutoffs:
        rows = db.execute(  # a superset (before the latest cutoff), narrowed by each entry's class below
            "SELECT id, memory_class, json_extract(metadata, '$.source'), created_at FROM memory WHERE created_at < ?",
            (micros(max(cutoffs.values())),),
        )
        for doc_id, memory_class, source, created in rows:
            cls = memory_class or default_class(source)
            if cls in cutoffs and created < (micros(cutoffs[cls]) or 0):
                found.append(doc_id)
    return found
