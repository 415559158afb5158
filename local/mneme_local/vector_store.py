"""The embedded local twin of the OpenSearch memory store: SQLite rows plus exact numpy search.

* Same semantics as :class:`mneme.adapters.opensearch_memory.OpenSearchMemoryStore`: the filter
  (namespace patterns, not expired, not deleted, not superseded) selects rows in SQL **before** the
  top-k, so the top-k is exact over the readable documents.
* Exact namespaces are an ``IN``; a ``vector.global.*`` pattern is the index-friendly range
  ``namespace >= 'vector.global.' AND namespace < 'vector.global.\\uffff'`` (the prefix ends in a dot, so
  it stops at a segment boundary: ``vector.user.al.*`` never matches ``vector.user.alice.memory``).
* Vectors are float32 blobs; similarity is the dot product (the cosine of normalized vectors).
  The first vector stored fixes the dimension; another one raises ``MemoryUnavailable`` (as OpenSearch
  rejects it).
* One connection (WAL mode) shared by every thread under a lock; writes in ``BEGIN IMMEDIATE``
  transactions. State survives reopening the file. Needs numpy (requirements/dev.in).
* Search keeps each searched namespace's live vectors in memory (a block), so a query reads no BLOBs;
  every write drops the blocks, and so does a commit by another connection (``PRAGMA data_version``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from mneme.errors import MemoryUnavailable, NotFound
from mneme.models.memory import MemoryCandidate, MemoryClass, MemoryDocument
from mneme_local import vector_privacy
from mneme_local.vector_rows import COLUMNS, LIVE, SCHEMA, micros, migrate, namespace_sql, row_document

_NEVER = np.iinfo(np.int64).max


@dataclass
class _Block:
    ids: list[str]
    matrix: np.ndarray[Any, Any]
    expires: np.ndarray[Any, Any]


class EmbeddedVectorStore:
    """:class:`mneme.ports.MemoryStore` in a SQLite file (or ``":memory:"``), exact search with numpy."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.RLock()
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        migrate(self._db)
        found = self._db.execute("SELECT value FROM memory_meta WHERE key = 'dimension'").fetchone()
        self._dimension: int | None = int(found[0]) if found else None
        self._blocks: dict[str, _Block] = {}  # namespace -> its live vectors (search reads no BLOBs)
        self._data_version = self._db.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._blocks.clear()  # a write changed vectors, flags or expiry: rebuild on the next search

    def _blob(self, vector: Sequence[float]) -> bytes:
        array = np.asarray(vector, dtype=np.float32)
        if self._dimension is None:
            self._dimension = len(array)
            self._db.execute("INSERT OR REPLACE INTO memory_meta VALUES ('dimension', ?)", (str(len(array)),))
        if array.ndim != 1 or len(array) != self._dimension:
            raise MemoryUnavailable(f"vector dimension {array.size} does not match the store's {self._dimension}")
        return array.tobytes()

    # ----------------------------------------------------------------------------------------- port
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
            self._drop_stale_blocks()
            names = [row[0] for row in self._db.execute(f"SELECT DISTINCT namespace FROM memory WHERE {where}", params)]
            blocks = [block for block in map(self._block, names) if block.ids]
            if not blocks:
                return []
            ids = [doc_id for block in blocks for doc_id in block.ids]
            scores = np.concatenate([block.matrix @ query for block in blocks])
            expires = np.concatenate([block.expires for block in blocks])
            live = np.flatnonzero(expires > (micros(now) or 0))  # the expiry filter, before the top-k
            if not live.size:
                return []
            top = live[np.argpartition(-scores[live], k - 1)[:k]] if k < live.size else live
            order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), ids[i]))
            docs = self._fetch([ids[i] for i in order])
        return [MemoryCandidate(document=docs[ids[i]], similarity=float(scores[i])) for i in order]

    def _block(self, namespace: str) -> _Block:
        """The live (not deleted, not superseded) vectors of one namespace, kept in memory until a write."""
        block = self._blocks.get(namespace)
        if block is None:
            rows = self._db.execute(
                "SELECT id, vector, expires_at FROM memory WHERE namespace = ? AND deleted = 0 AND superseded = 0",
                (namespace,),
            ).fetchall()
            matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
            block = _Block(
                ids=[row[0] for row in rows],
                matrix=matrix.reshape(len(rows), self._dimension or 0),
                expires=np.array([_NEVER if row[2] is None else row[2] for row in rows], dtype=np.int64),
            )
            self._blocks[namespace] = block
        return block

    def _drop_stale_blocks(self) -> None:
        """Another connection (another process on the same file) committed: forget every cached block."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._blocks.clear()
            self._data_version = version

    def _fetch(self, ids: Sequence[str]) -> dict[str, MemoryDocument]:
        marks = ", ".join("?" * len(ids))
        rows = self._db.execute(f"SELECT {COLUMNS} FROM memory WHERE id IN ({marks})", tuple(ids))
        return {row[0]: row_document(row) for row in rows}

    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        ids: list[str] = []
        with self._write() as db:
            for doc, vector in items:
                blob = self._blob(vector)
                existing = db.execute(
                    f"SELECT {COLUMNS} FROM memory WHERE namespace = ? AND content_hash = ? AND {LIVE}"
                    " ORDER BY created_at, id LIMIT 1",
                    (doc.namespace, doc.content_hash, micros(doc.updated_at)),
                ).fetchone()
                if existing is None:
                    self._insert(db, doc, blob)
                    ids.append(doc.id)
                    continue
                old = row_document(existing)  # identical content: refresh in place
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
                ids.append(old.id)
        return ids

    @staticmethod
    def _insert(db: sqlite3.Connection, doc: MemoryDocument, blob: bytes) -> None:
        db.execute(
            f"INSERT OR REPLACE INTO memory ({COLUMNS}, vector) VALUES ({', '.join('?' * 15)})",
            (
                doc.id,
                doc.namespace,
                doc.owner_user_id,
                doc.content,
                doc.content_hash,
                json.dumps(doc.tags),
                json.dumps(doc.metadata),
                json.dumps(doc.derived_from),
                micros(doc.created_at),
                micros(doc.updated_at),
                micros(doc.expires_at),
                int(doc.deleted),
                int(doc.superseded),
                doc.memory_class,
                blob,
            ),
        )
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
            if vector is not None:
                db.execute("UPDATE memory SET vector = ? WHERE id = ?", (self._blob(vector), doc_id))
        return doc

    def soft_delete(self, doc_id: str, namespace: str, *, now: datetime) -> list[str]:
        with self._write() as db:
            self._find(db, doc_id, namespace)
            marked = [doc_id]
            seen = {doc_id}
            frontier = [doc_id]
            while frontier:  # transitive: entries derived from entries derived from ...
                marks = ", ".join("?" * len(frontier))
                rows = db.execute(
                    "SELECT d.id FROM memory_derived d JOIN memory m ON m.id = d.id"
                    f" WHERE d.source_id IN ({marks}) AND m.deleted = 0 ORDER BY m.created_at, d.id",
                    tuple(frontier),
                ).fetchall()
                frontier = [row[0] for row in rows if row[0] not in seen]
                frontier = list(dict.fromkeys(frontier))
                seen.update(frontier)
                marked += frontier
            db.executemany(
                "UPDATE memory SET deleted = 1, updated_at = ? WHERE id = ?",
                [(micros(now), i) for i in marked],
            )
        return marked

    # ----------------------------------------------------------------------------------------- privacy
    # (listing by owner and deleting for good: kept to these few methods, see mneme_local.vector_privacy)
    def iter_owned(self, user_id: str) -> Iterator[MemoryDocument]:
        return vector_privacy.iter_rows(self._lock, self._db, "owner_user_id = ?", (user_id,))

    def iter_authored(self, user_id: str) -> Iterator[MemoryDocument]:
        where, params = vector_privacy.AUTHORED
        return vector_privacy.iter_rows(self._lock, self._db, where, (*params, user_id))

    def hard_delete(self, ids: Sequence[str]) -> int:
        with self._write() as db:
            return vector_privacy.delete_rows(db, ids)

    def purge_expired(self, now: datetime, cutoffs: Mapping[MemoryClass, datetime]) -> int:
        with self._write() as db:
            return vector_privacy.delete_rows(db, vector_privacy.expired_ids(db, now, cutoffs))
