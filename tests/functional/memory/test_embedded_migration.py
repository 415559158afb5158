"""An embedded store file written before the lifecycle fields and the keyword leg opens, migrated in place."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from mneme_local.vector_store import EmbeddedVectorStore
from tests.functional.memory.conftest import NOW, ids_of, unit

OLD_SCHEMA = """
CREATE TABLE memory (
    id TEXT PRIMARY KEY, namespace TEXT NOT NULL, owner_user_id TEXT NOT NULL, content TEXT NOT NULL,
    content_hash TEXT NOT NULL, tags TEXT NOT NULL, metadata TEXT NOT NULL, derived_from TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER,
    deleted INTEGER NOT NULL, superseded INTEGER NOT NULL, vector BLOB NOT NULL);
CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO memory_meta VALUES ('dimension', '8');
"""


def test_an_old_file_gets_the_new_columns_and_its_rows_in_the_keyword_index(tmp_path):
    path = tmp_path / "memory.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    vector = np.asarray(unit(1), dtype=np.float32).tobytes()
    micros = int(NOW.timestamp() * 1_000_000)
    db.execute(
        "INSERT INTO memory VALUES (?, ?, ?, ?, ?, '[]', ?, '[]', ?, ?, NULL, 0, 0, ?)",
        (
            "old-1",
            "vector.user.alice.memory",
            "alice",
            "The boat is called Marlin.",
            "h",
            json.dumps({"source": "run_output"}),
            micros,
            micros,
            vector,
        ),
    )
    db.commit()
    db.close()

    store = EmbeddedVectorStore(path)
    old = store.get("old-1", "vector.user.alice.memory")
    assert old is not None and old.memory_class == "episodic" and old.status == "active"  # by its source
    assert old.authority is None and old.observed_at is None
    assert ids_of(store.keyword_search("marlin boat", ["vector.user.alice.*"], 5, now=NOW)) == ["old-1"]
    assert ids_of(store.search(unit(1), ["vector.user.alice.*"], 5, now=NOW)) == ["old-1"]
    store.close()
    assert EmbeddedVectorStore(path).get("old-1", "vector.user.alice.memory") == old  # idempotent
