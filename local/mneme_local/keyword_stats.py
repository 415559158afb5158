"""The keyword statistics of the embedded store, per namespace, kept until the namespace changes (issue 30.3/30.7).

The keyword leg scores with the statistics of the caller's own namespaces (``mneme.memory.keyword_scoring``):
how many live rows, their total length, and per query word how many contain it. Counting them per query cost
most of a search at 10k rows per user (a word's FTS5 posting list is every user's), so each namespace's counts
are kept in memory with the position of its last change in ``memory_log`` (every write logs its rows there,
another process's too) and the earliest expiry among the rows counted: a search recounts a namespace only
when it has changed or a row of it has expired since, and a word only the first time it is asked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mneme.records import Record, field
from mneme_local.vector_rows import LIVE, LIVE_MEMBER

_WORD_COUNT = (
    "SELECT COUNT(*) FROM memory_fts CROSS JOIN memory m ON m.rowid = memory_fts.rowid"
    f" WHERE memory_fts MATCH ? AND m.namespace = ? AND {LIVE_MEMBER}"
)
#: one seek per namespace (SQLite's min/max optimization on ``(namespace, seq)``); the same over ``namespace IN
#: (…) GROUP BY namespace`` read every log row of the namespaces: 2,000 rows of a user, 22,000 VM instructions
_LAST_CHANGE = "SELECT MAX(seq) FROM memory_log WHERE namespace = ?"
MAX_WORDS_KEPT = 20_000  # per namespace: a namespace asked more distinct words than this starts afresh


class _Counts(Record, frozen=False):
    seq: int
    expires: int | None  # the earliest expiry of a counted row: at or after it, recount
    rows: int
    chars: int
    words: dict[str, int] = field(default_factory=dict)


class KeywordStatistics:
    """Counts per namespace, valid while the namespace's last ``memory_log`` position is unchanged."""

    def __init__(self) -> None:
        self._of: dict[str, _Counts] = {}
        self.recounts = 0  # namespaces counted again (tests count work, never time it)

    def counts(
        self, db: sqlite3.Connection, namespaces: Sequence[str], words: Sequence[str], at: int
    ) -> tuple[int, int, dict[str, int]]:
        """(live rows, their characters, rows containing each word) over ``namespaces``, as of ``at``."""
        rows = chars = 0
        doc_freq = dict.fromkeys(words, 0)
        if not namespaces:
            return rows, chars, doc_freq
        for name in namespaces:
            counts = self._current(db, name, int(db.execute(_LAST_CHANGE, (name,)).fetchone()[0] or 0), at)
            for word in words:
                if word not in counts.words:
                    counts.words[word] = int(db.execute(_WORD_COUNT, (f'"{word}"', name, at)).fetchone()[0])
                doc_freq[word] += counts.words[word]
            rows, chars = rows + counts.rows, chars + counts.chars
        return rows, chars, doc_freq

    def _current(self, db: sqlite3.Connection, name: str, seq: int, at: int) -> _Counts:
        counts = self._of.get(name)
        stale = counts is None or counts.seq != seq or (counts.expires is not None and at >= counts.expires)
        if stale or len(counts.words) > MAX_WORDS_KEPT:  # type: ignore[union-attr]
            found = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(LENGTH(content)), 0), MIN(expires_at) FROM memory"
                f" WHERE namespace = ? AND {LIVE}",
                (name, at),
            ).fetchone()
            counts = self._of[name] = _Counts(seq=seq, expires=found[2], rows=int(found[0]), chars=int(found[1]))
            self.recounts += 1
        assert counts is not None
        return counts
