"""Keyword (BM25) scores computed by mneme from the caller's own statistics (issue 30.3).

A search engine's BM25 takes its document frequencies and average length from the whole index (SQLite FTS5's
``bm25()``, OpenSearch's per-shard statistics). In a shared index that makes one user's scores and order
depend on what other users stored, and every ``keyword_score`` tells a user how common a word is in other
users' memories. So the stores only *find* documents (the namespace and liveness filter inside the query) and
count them (:class:`KeywordMatches`: over the same filtered set); the score is computed here:

``bm25(d) = Σ_w idf(w) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|d| / avg|d|))``, ``idf(w) = ln(1 + (N − df + 0.5) /
(df + 0.5))``, with ``N``, ``df`` and ``avg|d|`` (characters) over the documents the caller may read. Words are
compared by their Porter stems (the stems SQLite FTS5's ``porter`` tokenizer indexes), function words dropped
(:func:`mneme.memory.keywords.query_words`). Adding another user's documents changes nothing here.

:meth:`Bm25.coverage` is the share of the query's idf mass a text contains: a calibrated keyword confidence
(1.0 = every word of the query, 0 = none; a word no readable memory contains weighs the most), comparable across
queries, unlike a score divided by the best one.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from mneme.memory.keywords import query_words
from mneme.memory.speakers import MONTHS, said
from mneme.models.memory import KeywordMatches, MemoryCandidate, MemoryDocument

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime


K1 = 1.2
B = 0.75
MATCH_LIMIT = 100  # documents a store returns for one keyword query (the rarest words' first; 200 measured no better)
_WORD = re.compile(r"\w+")
DATE_WEIGHT = 1.0  # a day's words count as the stamp's do (mneme.memory.speakers); 0.3 measured within 0.003
SPEAKER_WEIGHT = 0.3  # a turn's speaker says who, not what: "Kate: Talk soon!" must not win "Kate's hobbies"
_STEMS: dict[str, str] = {}
_STEM_CACHE_MAX = 200_000
_stemmer = None


def stem(word: str) -> str:
    """The Porter stem of a lower-case word (cached: the stemmer costs ~17 µs a word)."""
    found = _STEMS.get(word)
    if found is None:
        global _stemmer  # noqa: PLW0603 - built on first use, not at import (cold start)
        if _stemmer is None:
            import snowballstemmer

            _stemmer = snowballstemmer.stemmer("porter")
        found = _stemmer.stemWord(word)
        if len(_STEMS) < _STEM_CACHE_MAX:
            _STEMS[word] = found
    return found


@lru_cache(maxsize=65_536)
def stems(text: str) -> tuple[str, ...]:
    """Every word of ``text`` as its stem, in order (cached: the turns around a search's anchors recur)."""
    return tuple(stem(word) for word in _WORD.findall(text.lower()))


class Bm25:
    """BM25 over one caller's readable documents, for one query."""

    def __init__(self, words: Sequence[str], matches: KeywordMatches, *, said_by: Iterable[str] = ()) -> None:
        """``said_by``: names of speakers the question asks about (:mod:`mneme.memory.name_lift`): their words
        count in a turn's leading ``Speaker:`` only, not where a turn addresses them ("Take care, Kate!")."""
        self._said_by = frozenset(token for name in said_by for token in stems(name))
        n = max(matches.total_documents, 1)
        self.idf: dict[str, float] = {}
        #: the stems no readable document contains (none when the store counted no document: a store without a
        #: keyword leg, S3 Vectors, knows nothing of which words its documents hold)
        self.absent: set[str] = set()
        for word in words:
            key = stem(word)
            df = min(matches.doc_freq.get(word, 0), n)
            self.idf.setdefault(key, math.log(1.0 + (n - df + 0.5) / (df + 0.5)))
            if df == 0 and matches.total_documents > 0:
                self.absent.add(key)
        self.average_chars = max(matches.total_chars / n, 1.0)
        self.total_idf = sum(self.idf.values())
        self._of: dict[str, dict[str, float]] = {}

    def counts_of(self, doc: MemoryDocument) -> dict[str, float]:
        """:meth:`counts` of a document's content, computed once per document; a memory said on a known day
        (``observed_at``) and not stamped with it counts that day's words too (:func:`said_on`)."""
        found = self._of.get(doc.id)
        if found is None:
            found = self._of[doc.id] = self.counts(doc.content, day=doc.observed_at)
        return found

    def counts(self, text: str, *, day: datetime | None = None) -> dict[str, float]:
        """How often each query stem occurs in ``text``; a leading ``Speaker:`` counts :data:`SPEAKER_WEIGHT` (a
        stamp before it, ``[8 May 2023] Kate:``, is content: :mod:`mneme.memory.speakers`); the words of the ``day``
        it was said, when its text does not say when, count :data:`DATE_WEIGHT` each."""
        counts: dict[str, float] = {}
        line = said(text)
        if line:
            for token in stems(line.name):
                if token in self.idf:
                    counts[token] = counts.get(token, 0.0) + SPEAKER_WEIGHT
            text = f"{text[: line.stamp_end]} {text[line.body :]}"
        for token in stems(text):
            if token in self.idf and token not in self._said_by:
                counts[token] = counts.get(token, 0.0) + 1.0
        if day is not None and not (line and line.stamp_end):
            for token in stems(said_on(day)):
                if token in self.idf and token not in counts:
                    counts[token] = DATE_WEIGHT
        return counts

    def score(self, counts: Mapping[str, float], chars: float, *, span: float = 1.0) -> float:
        """BM25 of a text of ``chars`` characters with these counts (``span`` texts joined: a longer average)."""
        norm = K1 * (1.0 - B + B * chars / (self.average_chars * max(span, 1.0)))
        return sum(self.idf[key] * tf * (K1 + 1.0) / (tf + norm) for key, tf in counts.items())

    def coverage(self, counts: Mapping[str, float], leaving_out: frozenset[str] = frozenset()) -> float:
        """The share of the query's idf mass these counts contain, in [0, 1]; with ``leaving_out`` (stems), the
        share of the rest of it."""
        total = self.total_idf - sum(self.idf.get(key, 0.0) for key in leaving_out)
        if total <= 1e-12:
            return 0.0
        return sum(self.idf[key] for key in counts if key not in leaving_out) / total


def said_on(moment: datetime) -> str:
    """The words of the day a memory was said: ``"8 May 2023"``."""
    return f"{moment.day} {MONTHS[moment.month - 1]} {moment.year}"


def score_documents(bm25: Bm25, matches: KeywordMatches) -> list[tuple[MemoryDocument, float]]:
    """Each found document with its BM25, best first (ties: content hash, then id — the same twice)."""
    scored = [(doc, bm25.score(bm25.counts_of(doc), len(doc.content))) for doc in matches.documents]
    return sorted(
        ((doc, score) for doc, score in scored if score > 0),
        key=lambda item: (-item[1], item[0].content_hash, item[0].id),
    )


def rarest_first(words: Iterable[str], doc_freq: dict[str, int]) -> list[str]:
    """The words a store fetches documents for, the rarest first (those say the most), ties in query order."""
    listed = list(words)
    return sorted((w for w in listed if doc_freq.get(w, 0) > 0), key=lambda w: (doc_freq[w], listed.index(w)))


class KeywordSearch:
    """``keyword_search`` for a store that implements ``keyword_matches`` (every store shares the scoring)."""

    if TYPE_CHECKING:

        def keyword_matches(
            self, words: Sequence[str], patterns: Sequence[str], limit: int, *, now: datetime
        ) -> KeywordMatches: ...

    def keyword_search(self, text: str, patterns: Sequence[str], k: int, *, now: datetime) -> list[MemoryCandidate]:
        """The ``k`` best BM25 matches of ``text`` among the live documents of ``patterns``, scored with the
        statistics of those documents only."""
        words = query_words(text)
        if not patterns or k <= 0 or not words:
            return []
        matches = self.keyword_matches(words, patterns, MATCH_LIMIT, now=now)
        return [
            MemoryCandidate(document=doc, similarity=score, keyword_score=score)
            for doc, score in score_documents(Bm25(words, matches), matches)[:k]
        ]
