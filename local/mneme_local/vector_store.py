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
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from mneme.errors import MemoryUnavailable, NotFound
from mneme.models.memory import MemoryCandidate, MemoryDocument

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_COLUMNS = (
    "id, namespace, owner_user_id, content, content_hash, tags, metadata, derived_from, "
    "created_at, updated_at, expires_at, deleted, superseded"
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS memory (
    id TEXT PRIMARY KEY, namespace TEXT NOT NULL, owner_user_id TEXT NOT NULL, content TEXT NOT NULL,
    content_hash TEXT NOT NULL, tags TEXT NOT NULL, metadata TEXT NOT NULL, derived_from TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER,
    deleted INTEGER NOT NULL, superseded INTEGER NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS memory_namespace ON memory (namespace, content_hash);
CREATE TABLE IF NOT EXISTS memory_derived (
    source_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (source_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_LIVE = "deleted = 0 AND superseded = 0 AND (expires_at IS NULL OR expires_at > ?)"


def _micros(moment: datetime | None) -> int | None:
    """Microseconds since the epoch (a naive time is taken as UTC): exact, and ordered in SQL."""
    if moment is None:
        return None
    return ((moment if moment.tzinfo else moment.replace(tzinfo=UTC)) - _EPOCH) // timedelta(microseconds=1)


def _moment(micros: int | None) -> datetime | None:
    return None if micros is None else _EPOCH + timedelta(microseconds=micros)


def _row_document(row: Sequence[Any]) -> MemoryDocument:
    return MemoryDocument(
        id=row[0],
        namespace=row[1],
        owner_user_id=row[2],
        content=row[3],
        content_hash=row[4],
        tags=json.loads(row[5]),
        metadata=json.loads(row[6]),
        derived_from=json.loads(row[7]),
        created_at=_moment(row[8]),
        updated_at=_moment(row[9]),
        expires_at=_moment(row[10]),
        deleted=bool(row[11]),
        superseded=bool(row[12]),
    )


def namespace_sql(patterns: Sequence[str]) -> tuple[str, list[str]]:
    """The SQL condition (and its parameters) selecting namespaces matched by one of ``patterns``."""
    exact = sorted({p for p in patterns if not p.endswith(".*")})
    prefixes = sorted({p[:-1] for p in patterns if p.endswith(".*")})
    parts = [f"namespace IN ({', '.join('?' * len(exact))})"] if exact else []
    parts += ["(namespace >= ? AND namespace < ?)"] * len(prefixes)
    params = exact + [bound for prefix in prefixes for bound in (prefix, prefix + "\uffff")]
    return "(" + " OR ".join(parts) + ")", params


class EmbeddedVectorStore:
    """:class:`mneme.ports.MemoryStore` in a SQLite file (or ``":memory:"``), exact search with numpy."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.RLock()
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        found = self._db.execute("SELECT value FROM memory_meta WHERE key = 'dimension'").fetchone()
        self._dimension: int | None = int(found[0]) if found else None

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
            rows = self._db.execute(
                f"SELECT id, vector FROM memory WHERE {where} AND {_LIVE}", (*params, _micros(now))
            ).fetchall()
            if not rows:
                return []
            matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
            scores = matrix.reshape(len(rows), self._dimension) @ query
            top = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
            order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), rows[i][0]))
            docs = self._fetch([rows[i][0] for i in order])
        return [MemoryCandidate(document=docs[rows[i][0]], similarity=float(scores[i])) for i in order]

    def _fetch(self, ids: Sequence[str]) -> dict[str, MemoryDocument]:
        marks = ", ".join("?" * len(ids))
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM memory WHERE id IN ({marks})", tuple(ids))
        return {row[0]: _row_document(row) for row in rows}

    def put(self, items: Sequence[tuple[MemoryDocument, Sequence[float]]]) -> list[str]:
        ids: list[str] = []
        with self._write() as db:
            for doc, vector in items:
                blob = self._blob(vector)
                existing = db.execute(
                    f"SELECT {_COLUMNS} FROM memory WHERE namespace = ? AND content_hash = ? AND {_LIVE}"
                    " ORDER BY created_at, id LIMIT 1",
                    (doc.namespace, doc.content_hash, _micros(doc.updated_at)),
                ).fetchone()
                if existing is None:
                    self._insert(db, doc, blob)
                    ids.append(doc.id)
                    continue
                old = _row_document(existing)  # identical content: refresh in place
                tags = list(dict.fromkeys([*old.tags, *doc.tags]))
                derived = list(dict.fromkeys([*old.derived_from, *doc.derived_from]))
                db.execute(
                    "UPDATE memory SET tags = ?, derived_from = ?, updated_at = ?, expires_at = ? WHERE id = ?",
                    (
                        json.dumps(tags),
                        json.dumps(derived),
                        _micros(doc.updated_at),
                        _micros(doc.expires_at),
                        old.id,
                    ),
                )
                db.executemany("INSERT OR IGNORE INTO memory_derived VALUES (?, ?)", [(s, old.id) for s in derived])
                ids.append(old.id)
        return ids

    @staticmethod
    def _insert(db: sqlite3.Connection, doc: MemoryDocument, blob: bytes) -> None:
        db.execute(
            f"INSERT OR REPLACE INTO memory ({_COLUMNS}, vector) VALUES ({', '.join('?' * 14)})",
            (
                doc.id,
                doc.namespace,
                doc.owner_user_id,
                doc.content,
                doc.content_hash,
                json.dumps(doc.tags),
                json.dumps(doc.metadata),
                json.dumps(doc.derived_from),
                _micros(doc.created_at),
                _micros(doc.updated_at),
                _micros(doc.expires_at),
                int(doc.deleted),
                int(doc.superseded),
                blob,
            ),
        )
        db.executemany("INSERT OR IGNORE INTO memory_derived VALUES (?, ?)", [(s, doc.id) for s in doc.derived_from])

    def _find(self, db: sqlite3.Connection, doc_id: str, namespace: str) -> MemoryDocument:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM memory WHERE id = ? AND namespace = ? AND deleted = 0",
            (doc_id, namespace),
        ).fetchone()
        if row is None:
            raise NotFound(f"memory entry {doc_id!r} not found in {namespace!r}")
        return _row_document(row)

    def get(self, doc_id: str, namespace: str) -> MemoryDocument | None:
        with self._lock:
            try:
                return self._find(self._db, doc_id, namespace)
            except NotFound:
                return None

    def find(self, doc_id: str) -> MemoryDocument | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM memory WHERE id = ? AND deleted = 0", (doc_id,)).fetchone()
        return _row_document(row) if row is not None else None

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
                (doc.content, doc.content_hash, json.dumps(doc.tags), _micros(now), doc_id),
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
                [(_micros(now), i) for i in marked],
            )
        return marked
