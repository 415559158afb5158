"""The embedded store's keyword leg and lifecycle queries (a mixin of :class:`EmbeddedVectorStore`).

* :meth:`keyword_search`: FTS5 ``bm25()`` over ``memory_fts`` joined to the rows, the namespace and liveness
  filter in the same ``WHERE`` as the ``MATCH`` (inside the query, before ``LIMIT``: never a post-filter).
  FTS5's ``bm25()`` is negated (lower is better); the candidates carry ``-bm25`` so higher is better.
* :meth:`set_status`, :meth:`refresh`: one row changed in a ``BEGIN IMMEDIATE`` transaction, its change
  logged so every process's vector index drops (or takes back) the row.
* :meth:`list_documents`, :meth:`namespace_counts`, :meth:`derived_ids`: the memory inbox's reads.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from mneme.memory.lifecycle import decode_cursor, encode_cursor, refreshed_fields
from mneme.models.memory import MemoryCandidate, MemoryDocument
from mneme_local.vector_rows import COLUMNS, LIVE, match_expression, micros, namespace_sql, row_document

_MEMBER_COLUMNS = ", ".join(f"m.{name.strip()}" for name in COLUMNS.split(","))


class LifecycleQueries:
    """Needs the host store's connection, lock and write helpers (declared here for the type checker only)."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    if TYPE_CHECKING:

        def _write(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def _find(self, db: sqlite3.Connection, doc_id: str, namespace: str) -> MemoryDocument: ...

        @staticmethod
        def _log(db: sqlite3.Connection, namespace: str, row: int) -> None: ...

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        expression = match_expression(text)
        if not patterns or k <= 0 or expression is None:
            return []
        where, params = namespace_sql(patterns)
        live = LIVE.replace("deleted", "m.deleted").replace("superseded", "m.superseded")
        live = live.replace("expires_at", "m.expires_at")
        sql = (
            f"SELECT {_MEMBER_COLUMNS}, bm25(memory_fts) AS score FROM memory_fts"
            " JOIN memory m ON m.rowid = memory_fts.rowid"
            f" WHERE memory_fts MATCH ? AND {where.replace('namespace', 'm.namespace')} AND {live}"
            " ORDER BY score, m.id LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (expression, *params, micros(now), k)).fetchall()
        return [MemoryCandidate(document=row_document(row[:-1]), similarity=-float(row[-1])) for row in rows]

    def _rowid(self, db: sqlite3.Connection, doc_id: str) -> int:
        return int(db.execute("SELECT rowid FROM memory WHERE id = ?", (doc_id,)).fetchone()[0])

    def set_status(
        self,
        doc_id: str,
        namespace: str,
        *,
        status: Literal["active", "superseded"],
        superseded_by: str | None,
        now: datetime,
        authority: str | None = None,
    ) -> MemoryDocument:
        with self._write() as db:
            doc = self._find(db, doc_id, namespace)
            by = superseded_by if status == "superseded" else None
            db.execute(
                "UPDATE memory SET superseded = ?, superseded_by = ?, updated_at = ?,"
                " authority = COALESCE(?, authority) WHERE id = ?",
                (int(status == "superseded"), by, micros(now), authority, doc_id),
            )
            self._log(db, namespace, self._rowid(db, doc_id))
        change = {"superseded": status == "superseded", "superseded_by": by, "updated_at": now}
        return doc.model_copy(update=change | ({"authority": authority} if authority else {}))

    def refresh(self, doc_id: str, namespace: str, newer: MemoryDocument) -> MemoryDocument:
        with self._write() as db:
            old = self._find(db, doc_id, namespace)
            doc = old.model_copy(update=refreshed_fields(old, newer))
            db.execute(
                "UPDATE memory SET tags = ?, derived_from = ?, updated_at = ?, expires_at = ?, metadata = ?,"
                " observed_at = ? WHERE id = ?",
                (
                    json.dumps(doc.tags),
                    json.dumps(doc.derived_from),
                    micros(doc.updated_at),
                    micros(doc.expires_at),
                    json.dumps(doc.metadata),
                    micros(doc.observed_at),
                    doc_id,
                ),
            )
            db.executemany(
                "INSERT OR IGNORE INTO memory_derived VALUES (?, ?)", [(s, doc_id) for s in doc.derived_from]
            )
            if micros(doc.expires_at) != micros(old.expires_at):
                self._log(db, namespace, self._rowid(db, doc_id))  # the expiry is part of the index
        return doc

    def list_documents(
        self, namespace: str, *, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[MemoryDocument], str | None]:
        after = decode_cursor(cursor)
        conditions = ["namespace = ?"]
        params: list[Any] = [namespace]
        conditions.append(
            {"active": "deleted = 0 AND superseded = 0", "superseded": "deleted = 0 AND superseded = 1"}.get(
                status or "", "deleted = 1" if status == "deleted" else "deleted = 0"
            )
        )
        if after is not None:
            conditions.append("(created_at < ? OR (created_at = ? AND id < ?))")
            params += [after[0], after[0], after[1]]
        sql = f"SELECT {COLUMNS} FROM memory WHERE {' AND '.join(conditions)} ORDER BY created_at DESC, id DESC LIMIT ?"
        with self._lock:
            rows = self._db.execute(sql, (*params, limit + 1)).fetchall()
        docs = [row_document(row) for row in rows[:limit]]
        return docs, encode_cursor(docs[-1]) if len(rows) > limit and docs else None

    def namespace_counts(self, patterns: Sequence[str]) -> dict[str, dict[str, int]]:
        if not patterns:
            return {}
        where, params = namespace_sql(patterns)
        sql = (
            "SELECT namespace, SUM(deleted = 0 AND superseded = 0), SUM(deleted = 0 AND superseded = 1),"
            f" SUM(deleted = 1) FROM memory WHERE {where} GROUP BY namespace ORDER BY namespace"
        )
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return {row[0]: {"active": row[1], "superseded": row[2], "deleted": row[3]} for row in rows}

    def recent_writes(self, namespace: str) -> list[tuple[MemoryDocument, list[float]]]:
        return []  # read-your-writes: the change log brings every search up to date

    def derived_ids(self, doc_id: str) -> list[str]:
        with self._lock:
            return list(self._derived(self._db, doc_id))

    @staticmethod
    def _derived(db: sqlite3.Connection, doc_id: str) -> Iterator[str]:
        seen = {doc_id}
        frontier = [doc_id]
        while frontier:  # transitive: entries derived from entries derived from ...
            marks = ", ".join("?" * len(frontier))
            rows = db.execute(
                "SELECT d.id FROM memory_derived d JOIN memory m ON m.id = d.id"
                f" WHERE d.source_id IN ({marks}) AND m.deleted = 0 ORDER BY m.created_at, d.id",
                tuple(frontier),
            ).fetchall()
            frontier = list(dict.fromkeys(row[0] for row in rows if row[0] not in seen))
            seen.update(frontier)
            yield from frontier
