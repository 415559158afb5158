"""The embedded local twin of the OpenSearch memory store: SQLite rows plus an exact in-memory search.

* Same semantics as :class:`mneme.adapters.opensearch.store.OpenSearchMemoryStore`: the filter
  (namespace patterns, not expired, not deleted, not superseded) is applied **inside** the search, so the
  top-k is exact over the readable documents.
* The SQLite rows are the source of truth (documents and float32 vectors). Exact namespaces are an ``IN``;
  a ``vector.global.*`` pattern is the range ``namespace >= 'vector.global.' AND namespace < 'vector.global.\\uffff'``
  over the small ``memory_namespaces`` table (the prefix ends in a dot, so it stops at a segment boundary:
  ``vector.user.al.*`` never matches ``vector.user.alice.memory``).
* Each searched namespace is held in memory as a :class:`~mneme_local.vector_index.NamespaceIndex` (int8
  codes scanned by faiss, then an exact re-rank from the rows that proves the top-k). A write appends one
  line per changed row to ``memory_log`` in its own transaction, then brings the loaded indexes of the
  namespaces it changed up to date from those lines; a search brings the namespaces it reads up to date
  likewise (another process's commits included), so a write never reloads anything and the next search
  after this process's writes replays nothing.
* A namespace's index is saved beside the database (``<file>.vectors/``) when it is built and when its log
  tail grows; a restarted process loads that snapshot and replays the tail instead of reading every vector.
* The first vector stored fixes the dimension; another one raises ``MemoryUnavailable`` (as OpenSearch
  rejects it). One connection (WAL mode) shared by every thread under a lock; writes in ``BEGIN IMMEDIATE``
  transactions, each search in one read transaction. Needs numpy and faiss-cpu (requirements/dev.in).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from mneme.errors import MemoryUnavailable, NotFound
from mneme.models.memory import MemoryCandidate, MemoryClass, MemoryDocument
from mneme_local import vector_privacy
from mneme_local.keyword_stats import KeywordStatistics
from mneme_local.vector_indexes import NamespaceIndexes, StoreWork
from mneme_local.vector_lifecycle import LifecycleQueries
from mneme_local.vector_rows import COLUMNS, LIVE, SCHEMA, micros, migrate, namespace_sql, row_document, row_values


class EmbeddedVectorStore(LifecycleQueries):
    """:class:`mneme.ports.memory.MemoryStore` in a SQLite file (or ``":memory:"``), exact search in memory."""

    def __init__(self, path: str | Path, *, threads: int = 1) -> None:
        self._lock = threading.RLock()
        self._written: set[str] = set()  # the namespaces the open write transaction has logged changes to
        snapshots: Path | None = None
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            snapshots = Path(f"{path}.vectors")
        # One query per search: more OpenMP threads only fight the server's own threads on a small machine
        faiss.omp_set_num_threads(threads)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        with self._write() as db:
            migrate(db)
        found = self._db.execute("SELECT value FROM memory_meta WHERE key = 'dimension'").fetchone()
        self._dimension: int | None = int(found[0]) if found else None
        self._cache = NamespaceIndexes(self._db, snapshots)  # namespace -> its live vectors, kept up to date
        self._keyword_stats = KeywordStatistics()  # namespace -> its keyword counts, until it changes
        self._cache.dimension = self._dimension or 0
        if self._db.execute("SELECT 1 FROM memory_namespaces LIMIT 1").fetchone() is None:  # a file from before
            with self._write() as db:
                db.execute("INSERT OR IGNORE INTO memory_namespaces SELECT DISTINCT namespace FROM memory")

    @property
    def work(self) -> StoreWork:
        return self._cache.work

    def close(self) -> None:
        """Save every index that changed since its snapshot (brought to the log's head first), then close."""
        with self._lock:
            if self._cache.snapshots is not None and self._cache.indexes:
                self._db.execute("BEGIN")
                try:
                    self._cache.bring_up_to_date(list(self._cache.indexes))
                finally:
                    self._db.execute("COMMIT")
                self._cache.save_changed()
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; once committed, the loaded indexes of the namespaces it changed catch up."""
        with self._lock:
            self._written.clear()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            if self._written:
                self._cache.catch_up(self._written)

    def _log(self, db: sqlite3.Connection, namespace: str, row: int) -> None:
        db.execute("INSERT INTO memory_log (namespace, row) VALUES (?, ?)", (namespace, row))
        self._written.add(namespace)

    def _blob(self, vector: Sequence[float]) -> bytes:
        array = np.asarray(vector, dtype=np.float32)
        if self._dimension is None:
            self._dimension = self._cache.dimension = len(array)
            self._db.execute("INSERT OR REPLACE INTO memory_meta VALUES ('dimension', ?)", (str(len(array)),))
        if array.ndim != 1 or len(array) != self._dimension:
            raise MemoryUnavailable(f"vector dimension {array.size} does not match the store's {self._dimension}")
        return array.tobytes()

    # ----------------------------------------------------------------------------------------- search
    def search(
        self, vector: Sequence[float], patterns: Sequence[str], k: int, *, now: datetime
    ) -> list[MemoryCandidate]:
        if not patterns or k <= 0:
            return []
        where, params = namespace_sql(patterns)
        with self._lock:
            if self._dimension is None:
                return []
            query = np.asarray(vector, dtype=np.float32)
            if query.shape != (self._dimension,):
                raise MemoryUnavailable(f"query dimension {query.size} does not match {self._dimension}")
            self._db.execute("BEGIN")  # one snapshot: the log, the indexes and the re-scored rows agree
            try:
                sql = f"SELECT namespace FROM memory_namespaces WHERE {where}"
                names = [row[0] for row in self._db.execute(sql, params)]
                stale = self._cache.bring_up_to_date(names)
                hits: list[tuple[int, float]] = []
                for name in names:
                    hits += self._cache.indexes[name].search(query, k, micros(now) or 0, self._cache.vectors)
                hits = sorted(hits, key=lambda hit: -hit[1])[:k]
                docs = self._fetch([rowid for rowid, _score in hits])
            finally:
                self._db.execute("COMMIT")
            for name in stale:  # written after the read transaction: a snapshot is valid at its own position
                self._cache.save(name, self._cache.indexes[name])
        ranked = sorted(hits, key=lambda hit: (-hit[1], docs[hit[0]].id))
        return [MemoryCandidate(document=docs[rowid], similarity=score) for rowid, score in ranked]

    def _fetch(self, rowids: Sequence[int]) -> dict[int, MemoryDocument]:
        if not rowids:
            return {}
        marks = ", ".join("?" * len(rowids))
        rows = self._db.execute(f"SELECT rowid, {COLUMNS} FROM memory WHERE rowid IN ({marks})", tuple(rowids))
        return {row[0]: row_document(row[1:]) for row in rows}

    # ----------------------------------------------------------------------------------------- writes
    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        ids: list[str] = []
        with self._write() as db:
            for doc, vector in items:
                blob = self._blob(vector)
                existing = None
                if doc.chunk_count is None:  # a chunk is its document's own: never merged with another's
                    existing = db.execute(
                        f"SELECT rowid, {COLUMNS} FROM memory WHERE namespace = ? AND content_hash = ? AND {LIVE}"
                        " AND chunk_count IS NULL ORDER BY created_at, id LIMIT 1",
                        (doc.namespace, doc.content_hash, micros(doc.updated_at)),
                    ).fetchone()
                if existing is None:
                    self._insert(db, doc, blob)
                    ids.append(doc.id)
                    continue
                old = row_document(existing[1:])  # identical content: refresh in place
                tags = list(dict.fromkeys([*old.tags, *doc.tags]))
                derived = list(dict.fromkeys([*old.derived_from, *doc.derived_from]))
                db.execute(
                    "UPDATE memory SET tags = ?, derived_from = ?, updated_at = ?, expires_at = ? WHERE id = ?",
                    (
                        json.dumps(tags),
                        json.dumps(derived),
                        micros(doc.updated_at),
                        micros(doc.expires_at),
                        old.id,
                    ),
                )
                db.executemany("INSERT OR IGNORE INTO memory_derived VALUES (?, ?)", [(s, old.id) for s in derived])
                if micros(doc.expires_at) != micros(old.expires_at):
                    self._log(db, old.namespace, existing[0])  # the expiry is part of the index
                ids.append(old.id)
        return ids

    def _insert(self, db: sqlite3.Connection, doc: MemoryDocument, blob: bytes) -> None:
        replaced = db.execute("SELECT rowid, namespace FROM memory WHERE id = ?", (doc.id,)).fetchone()
        if replaced is not None:  # INSERT OR REPLACE gives the row a new rowid: the old one dies
            self._log(db, replaced[1], replaced[0])
        marks = ", ".join("?" * (len(COLUMNS.split(",")) + 1))
        cursor = db.execute(
            f"INSERT OR REPLACE INTO memory ({COLUMNS}, vector) VALUES ({marks})", (*row_values(doc), blob)
        )
        if replaced is not None:
            db.execute("DELETE FROM memory_fts WHERE rowid = ?", (replaced[0],))
        db.execute("INSERT INTO memory_fts (rowid, content) VALUES (?, ?)", (cursor.lastrowid, doc.content))
        db.execute("INSERT OR IGNORE INTO memory_namespaces VALUES (?)", (doc.namespace,))
        self._log(db, doc.namespace, int(cursor.lastrowid or 0))
        db.executemany("INSERT OR IGNORE INTO memory_derived VALUES (?, ?)", [(s, doc.id) for s in doc.derived_from])

    def _find(self, db: sqlite3.Connection, doc_id: str, namespace: str) -> MemoryDocument:
        row = db.execute(
            f"SELECT {COLUMNS} FROM memory WHERE id = ? AND namespace = ? AND deleted = 0",
            (doc_id, namespace),
        ).fetchone()
        if row is None:
            raise NotFound(f"memory entry {doc_id!r} not found in {namespace!r}")
        return row_document(row)

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        with self._lock:
            try:
                return self._find(self._db, doc_id, namespace)
            except NotFound:
                return None

    def entries(self, doc_ids: Sequence[str]) -> list[MemoryDocument]:
        """The entries of these ids (deleted ones too), once each, in the order asked."""
        wanted = list(dict.fromkeys(doc_ids))
        if not wanted:
            return []
        marks = ", ".join("?" * len(wanted))
        with self._lock:
            rows = self._db.execute(f"SELECT {COLUMNS} FROM memory WHERE id IN ({marks})", tuple(wanted)).fetchall()
        found = {row[0]: row_document(row) for row in rows}
        return [found[i] for i in wanted if i in found]

    def find(self, doc_id: str) -> MemoryDocument | None:
        with self._lock:
            row = self._db.execute(f"SELECT {COLUMNS} FROM memory WHERE id = ? AND deleted = 0", (doc_id,)).fetchone()
        return row_document(row) if row is not None else None

    def update(
        self,
        doc_id: str,
        namespace: str,
        *,
        content: str | None,
        tags: list[str] | None,
        vector: Sequence[float] | None,
        now: datetime,
    ) -> MemoryDocument:
        with self._write() as db:
            doc = self._find(db, doc_id, namespace)
            change: dict[str, Any] = {"updated_at": now}
            if content is not None:
                change |= {"content": content, "content_hash": hashlib.sha256(content.encode()).hexdigest()}
            if tags is not None:
                change["tags"] = list(tags)
            doc = doc.model_copy(update=change)
            db.execute(
                "UPDATE memory SET content = ?, content_hash = ?, tags = ?, updated_at = ? WHERE id = ?",
                (doc.content, doc.content_hash, json.dumps(doc.tags), micros(now), doc_id),
            )
            rowid = db.execute("SELECT rowid FROM memory WHERE id = ?", (doc_id,)).fetchone()[0]
            if content is not None:
                db.execute("UPDATE memory_fts SET content = ? WHERE rowid = ?", (content, rowid))
            if vector is not None:
                db.execute("UPDATE memory SET vector = ? WHERE id = ?", (self._blob(vector), doc_id))
            if content is not None or vector is not None:
                self._log(db, namespace, rowid)  # the vector index and the keyword statistics see it
        return doc

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        with self._write() as db:
            self._find(db, doc_id, namespace)
            marked = [doc_id, *self._derived(db, doc_id)]
            db.executemany(
                "UPDATE memory SET deleted = 1, updated_at = ? WHERE id = ?",
                [(micros(now), i) for i in marked],
            )
            marks = ", ".join("?" * len(marked))
            for rowid, name in db.execute(f"SELECT rowid, namespace FROM memory WHERE id IN ({marks})", marked):
                self._log(db, name, rowid)
        return marked

    # ----------------------------------------------------------------------------------------- privacy
    # (listing by owner and deleting for good: kept to these few methods, see mneme_local.vector_privacy)
    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        return vector_privacy.iter_rows(self._lock, self._db, "owner_user_id = ?", (user_id,))

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        where, params = vector_privacy.AUTHORED
        return vector_privacy.iter_rows(self._lock, self._db, where, (*params, user_id))

    def hard_delete(self, ids: Sequence[str]) -> int:
        with self._write() as db:  # each removed row is logged, so the in-memory indexes drop it too
            return vector_privacy.delete_rows(db, ids, on_delete=self._log)

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        with self._write() as db:
            return vector_privacy.delete_rows(db, vector_privacy.expired_ids(db, now, cutoffs), on_delete=self._log)
