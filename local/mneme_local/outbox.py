"""The durable memory-write queue of the local embedded mode (issue 12.11).

moto keeps its SQS queue in memory: a ``kill -9`` of ``make run`` lost the memory writes still queued.
:class:`DurableQueue` first commits each job to an outbox table in the SQLite store (``memory_outbox`` in
``mneme.sqlite3``), then sends it to the queue; the writer removes a job once it is written. On start,
every job still in the outbox is sent again. Job ids are deterministic and identical content refreshes in
place, so a job sent twice is still one memory.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from mneme.errors import QueueUnavailable, StoreUnavailable
from mneme.ports.memory import MemoryWriteJob, MemoryWriteQueue
from mneme.records import asdict
from mneme_local.files import private_file

SCHEMA = "CREATE TABLE IF NOT EXISTS memory_outbox (job_id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID"


class SqliteOutbox:
    """Jobs queued and not yet written, in a SQLite table (committed: they survive the process)."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                str(private_file(path)), check_same_thread=False, isolation_level=None, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot open the local outbox {path}: {exc}") from exc

    def add(self, jobs: Sequence[MemoryWriteJob]) -> None:
        rows = [(job.job_id, json.dumps(asdict(job))) for job in jobs]
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")  # one transaction, committed before the queue gets the jobs
                try:
                    self._db.executemany("INSERT OR REPLACE INTO memory_outbox (job_id, body) VALUES (?, ?)", rows)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:  # the run keeps the jobs in its own outbox (a QueueUnavailable)
                raise QueueUnavailable(f"the local outbox could not keep the memory writes: {exc}") from exc

    def remove(self, job_ids: Sequence[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM memory_outbox WHERE job_id = ?", [(job_id,) for job_id in job_ids])

    def pending(self) -> list[MemoryWriteJob]:
        with self._lock:
            rows = self._db.execute("SELECT body FROM memory_outbox ORDER BY job_id").fetchall()
        return [MemoryWriteJob(**json.loads(row[0])) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class DurableQueue:
    """A MemoryWriteQueue that keeps every job in the outbox before the inner queue gets it."""

    def __init__(self, outbox: SqliteOutbox, inner: MemoryWriteQueue) -> None:
        self.outbox = outbox
        self._inner = inner

    def enqueue(self, jobs: Sequence[MemoryWriteJob]) -> None:
        self.outbox.add(jobs)
        self._inner.enqueue(jobs)

    def requeue_pending(self) -> int:
        """Send the jobs an earlier server left unwritten to the queue again; answers how many."""
        jobs = self.outbox.pending()
        for start in range(0, len(jobs), 10):
            self._inner.enqueue(jobs[start : start + 10])
        return len(jobs)
