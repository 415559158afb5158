"""The rows of the embedded vector store: schema, time encoding, row to document, namespace filters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from mneme.models.memory import MemoryDocument, default_class

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
COLUMNS = (
    "id, namespace, owner_user_id, content, content_hash, tags, metadata, derived_from, "
    "created_at, updated_at, expires_at, deleted, superseded, "
    "memory_class, authority, observed_at, superseded_by, parent_id, chunk_index, chunk_count"
)
# Added after the first release: ``migrate`` adds them to an existing file (NULL → the model's default;
# a NULL memory_class reads as ``default_class(metadata.source)``).
LIFECYCLE_COLUMNS = (
    ("memory_class", "TEXT"),
    ("authority", "TEXT"),
    ("observed_at", "INTEGER"),
    ("superseded_by", "TEXT"),
    ("parent_id", "TEXT"),
    ("chunk_index", "INTEGER"),
    ("chunk_count", "INTEGER"),
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS memory (
    id TEXT PRIMARY KEY, namespace TEXT NOT NULL, owner_user_id TEXT NOT NULL, content TEXT NOT NULL,
    content_hash TEXT NOT NULL, tags TEXT NOT NULL, metadata TEXT NOT NULL, derived_from TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER,
    deleted INTEGER NOT NULL, superseded INTEGER NOT NULL, vector BLOB NOT NULL,
    memory_class TEXT, authority TEXT, observed_at INTEGER, superseded_by TEXT, parent_id TEXT,
    chunk_index INTEGER, chunk_count INTEGER);
CREATE INDEX IF NOT EXISTS memory_namespace ON memory (namespace, content_hash);
CREATE TABLE IF NOT EXISTS memory_derived (
    source_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (source_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memory_namespaces (namespace TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, row INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS memory_log_namespace ON memory_log (namespace, seq);
CREATE TABLE IF NOT EXISTS memory_snapshots (
    namespace TEXT PRIMARY KEY, seq INTEGER NOT NULL, file TEXT NOT NULL) WITHOUT ROWID;
"""
# memory_log: one line per changed row (insert, refresh, update, delete), written in the change's own
# transaction, so every process on the file can bring its in-memory indexes up to date row by row.
# memory_snapshots: the saved index file of a namespace and the log position it reflects.
# The keyword leg: FTS5 over the same rows (rowid = memory.rowid), kept in step in each write's transaction;
# SQLite's own file, so every process sees a commit at once (no in-memory cache to bring up to date).
FTS_SCHEMA = "CREATE VIRTUAL TABLE memory_fts USING fts5(content, tokenize = 'porter unicode61')"
LIVE = "deleted = 0 AND superseded = 0 AND (expires_at IS NULL OR expires_at > ?)"
#: :data:`LIVE` of the rows ``m`` joined to the keyword index (``memory_fts CROSS JOIN memory m``)
LIVE_MEMBER = (
    LIVE.replace("deleted", "m.deleted").replace("superseded", "m.superseded").replace("expires_at", "m.expires_at")
)


def micros(moment: datetime | None) -> int | None:
    """Microseconds since the epoch (a naive time is taken as UTC): exact, and ordered in SQL."""
    if moment is None:
        return None
    return ((moment if moment.tzinfo else moment.replace(tzinfo=UTC)) - EPOCH) // timedelta(microseconds=1)


def moment(micros: int | None) -> datetime | None:
    """The moment of :func:`micros`; one outside Python's dates (a row written before the API bounded the moments
    it takes, ``mneme.models.common.Moment``) reads as the nearest one it can hold, so the row stays readable."""
    if micros is None:
        return None
    try:
        return EPOCH + timedelta(microseconds=micros)
    except OverflowError:
        return (datetime.min if micros < 0 else datetime.max).replace(tzinfo=UTC)


def migrate(db: Any) -> None:
    """Bring a file written by an older mneme up to this schema (idempotent; call inside a transaction)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(memory)")}
    for name, kind in LIFECYCLE_COLUMNS:
        if name not in present:
            db.execute(f"ALTER TABLE memory ADD COLUMN {name} {kind}")
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_fts'").fetchone() is None:
        db.execute(FTS_SCHEMA)
        db.execute("INSERT INTO memory_fts (rowid, content) SELECT rowid, content FROM memory")
    db.execute("CREATE INDEX IF NOT EXISTS memory_owner ON memory (owner_user_id, id)")
    db.execute("CREATE INDEX IF NOT EXISTS memory_namespace_row ON memory (namespace)")  # rowid order: adjacent


def row_document(row: Sequence[Any]) -> MemoryDocument:
    """The document of a stored row. The row was validated when it was written: built without validating it
    again (``model_construct``: a search builds hundreds of them), and the same row (every column the same)
    answers the same document again (the turns around a user's anchors recur from search to search)."""
    return _document(tuple(row))


@lru_cache(maxsize=20_000)
def _document(row: tuple[Any, ...]) -> MemoryDocument:
    metadata = json.loads(row[6])
    return MemoryDocument.model_construct(
        id=row[0],
        namespace=row[1],
        owner_user_id=row[2],
        content=row[3],
        content_hash=row[4],
        tags=json.loads(row[5]),
        metadata=metadata,
        derived_from=json.loads(row[7]),
        created_at=EPOCH + timedelta(microseconds=row[8]),  # NOT NULL columns
        updated_at=EPOCH + timedelta(microseconds=row[9]),
        expires_at=moment(row[10]),
        deleted=bool(row[11]),
        superseded=bool(row[12]),
        memory_class=row[13] or default_class(metadata.get("source")),
        authority=row[14],
        observed_at=moment(row[15]),
        superseded_by=row[16],
        parent_id=row[17],
        chunk_index=row[18],
        chunk_count=row[19],
    )


def row_values(doc: MemoryDocument) -> tuple[Any, ...]:
    """The values of :data:`COLUMNS` for ``doc``."""
    return (
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
        doc.authority,
        micros(doc.observed_at),
        doc.superseded_by,
        doc.parent_id,
        doc.chunk_index,
        doc.chunk_count,
    )


def namespace_sql(patterns: Sequence[str]) -> tuple[str, list[str]]:
    """The SQL condition (and its parameters) selecting namespaces matched by one of ``patterns``."""
    exact = sorted({p for p in patterns if not p.endswith(".*")})
    prefixes = sorted({p[:-1] for p in patterns if p.endswith(".*")})
    parts = [f"namespace IN ({', '.join('?' * len(exact))})"] if exact else []
    parts += ["(namespace >= ? AND namespace < ?)"] * len(prefixes)
    params = exact + [bound for prefix in prefixes for bound in (prefix, prefix + "\uffff")]
    return "(" + " OR ".join(parts) + ")", params
