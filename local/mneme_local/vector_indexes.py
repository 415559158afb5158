"""The embedded store's in-memory namespace indexes: built once, kept up to date from ``memory_log``, saved.

The SQLite rows stay the source of truth: an index is built from a namespace's live rows (in chunks), every
later change reaches it as one log line per changed row (the row dies and comes back as it is now), and a
snapshot beside the database (``<file>.vectors/<namespace hash>-<log position>.npz``, recorded in
``memory_snapshots``) lets a restarted process skip reading every vector. Log lines older than every
snapshot are pruned; an index whose position falls behind the pruned horizon is loaded again.
The caller (:class:`~mneme_local.vector_store.EmbeddedVectorStore`) holds its lock around every call.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np

from mneme.records import Record
from mneme_local.files import private_dir
from mneme_local.vector_index import NEVER, NamespaceIndex, fit_scale

_CHUNK = 50_000  # rows read per fetch when an index is built from the rows
_RESNAPSHOT = 0.05  # save a namespace again once its replayed tail passes this share of its rows (or 1000 rows)


class StoreWork(Record, frozen=False):
    """What the store did (tests count work, not time)."""

    indexes_built: int = 0  # namespaces indexed from every one of their rows
    snapshots_loaded: int = 0
    snapshots_saved: int = 0
    rows_read: int = 0  # vectors read from SQLite to build or update an index
    rows_reranked: int = 0  # vectors read from SQLite to score candidates exactly


def replay_sql(count: int) -> str:
    """The changed rows of a replay, each found by its rowid. ``NOT INDEXED``: with 10 or more rowids SQLite
    preferred the namespace index and scanned every row of the namespace (6.7-8.7x a warm search at 1M rows)."""
    return (
        "SELECT rowid, vector, expires_at FROM memory NOT INDEXED WHERE namespace = ? AND deleted = 0"
        f" AND superseded = 0 AND rowid IN ({', '.join('?' * count)}) ORDER BY rowid"
    )


class NamespaceIndexes:
    def __init__(self, db: sqlite3.Connection, snapshots: Path | None) -> None:
        self.db = db
        self.snapshots = snapshots
        self.dimension = 0
        self.indexes: dict[str, NamespaceIndex] = {}
        self.work = StoreWork()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def bring_up_to_date(self, names: Sequence[str]) -> list[str]:
        """Inside the caller's read transaction: every named index at the log's head; returns those to save."""
        head, horizon = self.head(), self.pruned_through()
        return [name for name in names if self.refresh(name, head, horizon)]

    def catch_up(self, names: Iterable[str]) -> None:
        """Right after a write committed: the loaded indexes of the namespaces it changed brought to the log's head
        (in a read transaction), so that the next search replays nothing — the writer pays for its own change,
        not the next reader. A namespace never searched stays unloaded. If bringing one up to date fails, it is
        dropped, to be loaded again by the next search: the write itself has committed."""
        loaded = [name for name in names if name in self.indexes]
        if not loaded:
            return
        self.db.execute("BEGIN")
        try:
            stale = self.bring_up_to_date(loaded)
        except Exception:  # a cache: the rows and the log still hold every change
            stale = []
            for name in loaded:
                self.indexes.pop(name, None)
        finally:
            self.db.execute("COMMIT")
        for name in stale:
            self.save(name, self.indexes[name])

    def save_changed(self) -> None:
        for name, index in self.indexes.items():
            if index.seq > index.snapshot_seq:
                self.save(name, index)

    def vectors(self, rowids: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The float32 vectors of these rows, in the same order."""
        wanted = [int(r) for r in rowids]
        found: dict[int, bytes] = {}
        for first in range(0, len(wanted), 30_000):
            part = wanted[first : first + 30_000]
            marks = ", ".join("?" * len(part))
            found.update(self.db.execute(f"SELECT rowid, vector FROM memory WHERE rowid IN ({marks})", part))
        self.work.rows_reranked += len(wanted)
        matrix = np.frombuffer(b"".join(found[r] for r in wanted), dtype=np.float32)
        return matrix.reshape(len(wanted), self.dimension)

    def head(self) -> int:
        """The log's last position (AUTOINCREMENT's high-water mark: it never goes back, even after pruning)."""
        found = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'memory_log'").fetchone()
        return int(found[0]) if found else 0

    def pruned_through(self) -> int:
        found = self.db.execute("SELECT value FROM memory_meta WHERE key = 'log_pruned_through'").fetchone()
        return int(found[0]) if found else 0

    def refresh(self, namespace: str, head: int, horizon: int) -> bool:
        """Bring the namespace's index to the log's head; True when it should be saved again."""
        index = self.indexes.get(namespace)
        if index is None or index.seq < horizon:  # never loaded, or its log lines were pruned meanwhile
            index = self._load(namespace, head, horizon)
            if index is None:
                self.indexes[namespace] = self._build(namespace, head)
                return self.snapshots is not None
            self.indexes[namespace] = index
        if index.seq < head:
            self._replay(namespace, index, head)
        tail = index.seq > index.snapshot_seq and self._tail(namespace, index.snapshot_seq, index.seq)
        return bool(tail) and self.snapshots is not None and tail > max(1000, _RESNAPSHOT * index.size)

    def _tail(self, namespace: str, after: int, through: int) -> int:
        sql = "SELECT COUNT(*) FROM memory_log WHERE namespace = ? AND seq > ? AND seq <= ?"
        return int(self.db.execute(sql, (namespace, after, through)).fetchone()[0])

    def _live_rows(self, sql: str, params: Sequence[Any]) -> Iterator[tuple[Any, Any, Any]]:
        """(rowids, float32 vectors, expiry) of live rows, in chunks."""
        cursor = self.db.execute(sql, params)
        while rows := cursor.fetchmany(_CHUNK):
            self.work.rows_read += len(rows)
            vectors = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
            yield (
                np.array([row[0] for row in rows], dtype=np.int64),
                vectors.reshape(len(rows), self.dimension),
                np.array([NEVER if row[2] is None else row[2] for row in rows], dtype=np.int64),
            )

    def _build(self, namespace: str, head: int) -> NamespaceIndex:
        sql = (
            "SELECT rowid, vector, expires_at FROM memory WHERE namespace = ? AND deleted = 0 AND superseded = 0"
            " ORDER BY rowid"
        )
        index: NamespaceIndex | None = None
        for rowids, vectors, expires in self._live_rows(sql, (namespace,)):
            if index is None:
                index = NamespaceIndex(self.dimension, fit_scale(vectors), seq=head)
            index.append(rowids, vectors, expires)
        self.work.indexes_built += 1
        dimension = self.dimension
        return index or NamespaceIndex(dimension, fit_scale(np.zeros((0, dimension), np.float32)), seq=head)

    def _replay(self, namespace: str, index: NamespaceIndex, head: int) -> None:
        """Apply the log lines after the index's position: each changed row dies and comes back as it is now."""
        sql = "SELECT DISTINCT row FROM memory_log WHERE namespace = ? AND seq > ? AND seq <= ?"
        changed = [r[0] for r in self.db.execute(sql, (namespace, index.seq, head))]
        index.kill(changed)
        for first in range(0, len(changed), 30_000):
            part = changed[first : first + 30_000]
            for rowids, vectors, expires in self._live_rows(replay_sql(len(part)), (namespace, *part)):
                index.append(rowids, vectors, expires)
        index.seq = head
        if len(index.always) > max(64, index.size // 100):  # too many codes outside the fitted range: refit
            self.indexes[namespace] = self._build(namespace, head)

    def _snapshot_file(self, namespace: str, seq: int) -> Path:
        assert self.snapshots is not None
        return self.snapshots / f"{hashlib.sha256(namespace.encode()).hexdigest()[:32]}-{seq}.npz"

    def _load(self, namespace: str, head: int, horizon: int) -> NamespaceIndex | None:
        if self.snapshots is None:
            return None
        found = self.db.execute("SELECT seq, file FROM memory_snapshots WHERE namespace = ?", (namespace,)).fetchone()
        if found is None or found[0] < horizon or found[0] > head:
            return None
        try:
            index = NamespaceIndex.load(self.snapshots / found[1])
        except (OSError, ValueError, RuntimeError):
            return None  # missing or damaged: the rows rebuild it
        if index.seq != found[0] or index.dimension != self.dimension:
            return None
        self.work.snapshots_loaded += 1
        return index

    def save(self, namespace: str, index: NamespaceIndex) -> None:
        """Save the index and record it; then prune log lines that no snapshot needs any more."""
        if self.snapshots is None:
            return
        path = self._snapshot_file(namespace, index.seq)
        try:
            private_dir(self.snapshots)  # the vectors of every user's memories: private like the database
            index.save(path)
        except OSError:
            return  # a cache: the rows still hold everything
        self.work.snapshots_saved += 1
        with self._transaction() as db:
            old = db.execute("SELECT seq, file FROM memory_snapshots WHERE namespace = ?", (namespace,)).fetchone()
            if old is not None and old[0] >= index.seq:
                newest = old[1] != path.name
            else:
                db.execute(
                    "INSERT OR REPLACE INTO memory_snapshots VALUES (?, ?, ?)", (namespace, index.seq, path.name)
                )
                newest = False
            floor = db.execute("SELECT MIN(seq) FROM memory_snapshots").fetchone()[0] or 0
            if floor > self.pruned_through():
                db.execute("DELETE FROM memory_log WHERE seq <= ?", (floor,))
                db.execute("INSERT OR REPLACE INTO memory_meta VALUES ('log_pruned_through', ?)", (str(floor),))
        stale = [path] if newest else [] if old is None or old[1] == path.name else [self.snapshots / old[1]]
        for file in stale:
            with suppress(OSError):
                file.unlink()
