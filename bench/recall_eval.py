"""Measure — memory recall on the hard conversation benchmark, in process (issue 30.6).

    .venv/bin/python bench/recall_eval.py [--users 12] [--modes default,keyword,vector,rrf]

Loads ``bench/conversations.py`` (every user's turns, one memory entry each, in conversation order, the
session time as ``observed_at``) into the embedded store with the local MiniLM embedder, and asks every
question through the same functions ``POST /v1/memory/search`` and auto-inject use
(``mneme.engine.memory_io.ops.search_explained``: the store's legs, the fusion, the ranking and its floors).
Embeddings are cached on disk (``/tmp/mneme-recall-cache``, keyed by model and text) so a rerun takes
seconds. For each mode it prints recall@5/@10/@20 (share of each question's evidence turns in the top K, no
floors), recall@10 as ``POST /v1/memory/search {query, top_k: 10}`` answers it (the default floors: a hit under
them is not returned), per category @10, characters @10, stale-first (knowledge updates whose old value ranks above the
new), and, with the defaults (floors on, ``top_k`` 5): the evidence auto-inject carries (``inject@5``: the hits
and the lines of conversation shown with them, ``mneme.memory.conversation``; ``injHits``: the hits alone), the
block's characters of memory, and the share of off-topic questions that inject nothing. Exits non-zero on any
error.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_repo_paths
from conversations import Conversation, Question, dataset, dated
from notes import dataset as notes_dataset
from own_notes import beside
from own_notes import dataset as own_notes_dataset

use_repo_paths()

from datetime import UTC, datetime, timedelta  # noqa: E402

from mneme.engine.memory_io.entries import chunked  # noqa: E402
from mneme.engine.memory_io.ops import MemoryPorts, Ranking, search_explained  # noqa: E402
from mneme.memory.access import ReadAccess  # noqa: E402
from mneme.memory.conversation import conversation  # noqa: E402
from mneme.memory.embedding_limits import limit_for  # noqa: E402
from mneme.memory.speakers import spoken  # noqa: E402
from mneme.models.memory import KeywordMatches, MemoryDocument  # noqa: E402
from mneme.models.policy import Fusion, Retrieval  # noqa: E402
from mneme_local.embedder import LocalEmbedder  # noqa: E402
from mneme_local.vector_store import EmbeddedVectorStore  # noqa: E402

NOW = datetime(2024, 6, 1, tzinfo=UTC)
CACHE = Path("/tmp/mneme-recall-cache")
INGESTED = datetime(2026, 12, 7, tzinfo=UTC)  # when --no-observed-at stores every line
NO_OBSERVED_AT = "store lines as the SPEC's POST /v1/memory/documents body has them: no observed_at, stored now"
MODES: dict[str, tuple[Retrieval, Fusion]] = {
    "default": ("hybrid", "score"),
    "keyword": ("keyword", "score"),
    "vector": ("vector", "score"),
    "rrf": ("hybrid", "rrf"),
}


class _NoAudit:
    def append(self, records: Any) -> None:
        pass


class _Clock:
    def now(self) -> datetime:
        return NOW


class Embeddings:
    """The local embedder with an on-disk cache."""

    def __init__(self) -> None:
        self.model = LocalEmbedder()
        self.path = CACHE / f"{self.model.model_id}-{self.model.variant}.pkl"
        self.vectors: dict[str, list[float]] = pickle.loads(self.path.read_bytes()) if self.path.exists() else {}

    def __call__(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        for start in range(0, len(missing), 64):
            chunk = missing[start : start + 64]
            self.vectors.update(zip(chunk, self.model.embed(chunk), strict=True))
        if missing:
            CACHE.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.vectors))
        return [self.vectors[t] for t in texts]


def load(store: EmbeddedVectorStore, data: list[Conversation], embed: Embeddings, *, observed: bool = True) -> None:
    """Every turn one memory entry; a turn longer than the embedder's chunk size is stored as the service
    stores it, in chunks linked to the first (``chunked``; none of ``bench/conversations.py``'s turns is).

    ``observed``: each turn observed at its session's time (``observed_at``, as a batch item gives it); else
    stored as the SPEC's ``POST /v1/memory/documents`` body has it, without one, one after the other at
    :data:`INGESTED` (a millisecond apart)."""
    documents = []
    for n, (conv, turn) in enumerate((c, t) for c in data for t in c.turns):
        digest = hashlib.sha256(turn.turn_id.encode() + turn.content.encode()).hexdigest()
        stored = turn.at if observed else INGESTED + timedelta(milliseconds=n)
        document = MemoryDocument(
            id=turn.turn_id,
            namespace=f"vector.user.{conv.user}.memory",
            owner_user_id=conv.user,
            content=turn.content,
            content_hash=digest,
            created_at=stored,
            updated_at=stored,
            observed_at=turn.at if observed else None,
        )
        documents += chunked(document, limit_for(embed.model.model_id))
    vectors = embed([spoken(document.content) for document in documents])  # as the service embeds; one cache write
    items = list(zip(documents, vectors, strict=True))
    for start in range(0, len(items), 1000):
        store.put(items[start : start + 1000])


def ask(ports: MemoryPorts, conv: Conversation, q: Question, vector: list[float], ranking: Ranking) -> list[Any]:
    access = ReadAccess(allowed=(f"vector.user.{conv.user}.memory",))
    return search_explained(ports, _records, access, q.question, ranking, via="bench", vector=vector).hits


def turn_ids(hits: list[Any]) -> list[str]:
    """The turns ``hits`` come from, best first, each once (a chunk counts as its turn, the first chunk's id)."""
    return list(dict.fromkeys(hit.parent_id or hit.id for hit in hits))


def shown_ids(hits: list[Any]) -> list[str]:
    """The turns auto-inject shows: each hit's (:func:`turn_ids`) and the lines shown with it."""
    return list(dict.fromkeys([*turn_ids(hits), *(line.id for hit in hits for line in hit.context)]))


def _records(*_: Any, **__: Any) -> list[Any]:
    return []


def recall(evidence: list[str], ids: list[str], k: int) -> float:
    return len(set(evidence) & set(ids[:k])) / len(evidence)


def evaluate(
    ports: MemoryPorts, data: list[Conversation], vectors: dict[str, list[float]], mode: str
) -> dict[str, Any]:
    retrieval, fusion = MODES[mode]
    open_ranking = Ranking(top_k=20, min_score=0, relative_cutoff=0, retrieval=retrieval, fusion=fusion)
    # the calibrated default floors; each chat-line hit with the lines said around it, as auto-inject shows it
    inject_ranking = Ranking(top_k=5, retrieval=retrieval, fusion=fusion, lines=True)
    search_ranking = Ranking(top_k=10, retrieval=retrieval, fusion=fusion)  # POST /v1/memory/search {query, top_k}
    scores: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    chars, stale_first, injected_chars = [], 0, []
    injected: dict[str, list[float]] = defaultdict(list)  # the evidence the block carries
    injected_hits: dict[str, list[float]] = defaultdict(list)  # the evidence its hits are, their lines aside
    injected_other: list[int] = []  # its hits that are not evidence
    searched: dict[str, list[float]] = defaultdict(list)
    silent: dict[str, list[bool]] = defaultdict(list)
    started = time.perf_counter()
    for conv in data:
        for q in conv.questions:
            vector = vectors[q.question]
            hits = ask(ports, conv, q, vector, inject_ranking)
            if not q.evidence:
                silent[q.category].append(not hits)
                continue
            shown = shown_ids(hits)
            injected[q.category].append(recall(q.evidence, shown, len(shown)))
            hit_turns = turn_ids(hits)
            injected_hits[q.category].append(recall(q.evidence, hit_turns, 5))
            injected_chars.append(sum(len(text) for h in hits for text in conversation(h)))
            injected_other.append(len([turn for turn in hit_turns if turn not in q.evidence]))
            searched[q.category].append(recall(q.evidence, turn_ids(ask(ports, conv, q, vector, search_ranking)), 10))
            ids = turn_ids(ask(ports, conv, q, vector, open_ranking))
            scores[q.category].append(
                (recall(q.evidence, ids, 5), recall(q.evidence, ids, 10), recall(q.evidence, ids, 20))
            )
            chars.append(sum(len(t.content) for t in conv.turns if t.turn_id in ids[:10]))
            if (
                q.stale
                and q.stale[0] in ids
                and (q.evidence[0] not in ids or ids.index(q.stale[0]) < ids.index(q.evidence[0]))
            ):
                stale_first += 1
    every = [s for group in scores.values() for s in group]
    return {
        "mode": mode,
        "r5": statistics.mean(s[0] for s in every),
        "r10": statistics.mean(s[1] for s in every),
        "r20": statistics.mean(s[2] for s in every),
        "categories": {c: statistics.mean(s[1] for s in group) for c, group in sorted(scores.items())},
        "by_category": {c: tuple(statistics.mean(s[i] for s in g) for i in range(3)) for c, g in scores.items()},
        "asked": {c: len(group) for c, group in scores.items()},
        "inject_by_category": {c: statistics.mean(group) for c, group in injected.items()},
        "inject_hits_by_category": {c: statistics.mean(group) for c, group in injected_hits.items()},
        "floored10": statistics.mean(x for group in searched.values() for x in group),
        "floored10_by_category": {c: statistics.mean(group) for c, group in searched.items()},
        "chars10": statistics.mean(chars),
        "stale_first": stale_first,
        "inject_recall": statistics.mean(x for group in injected.values() for x in group),
        "inject_hits_recall": statistics.mean(x for group in injected_hits.values() for x in group),
        "inject_chars": statistics.mean(injected_chars),
        "inject_other": statistics.mean(injected_other),
        "off_topic_silent": _mean_or_none([x for group in silent.values() for x in group]),
        "silent_by_kind": {kind: statistics.mean(group) for kind, group in sorted(silent.items())},
        "seconds": time.perf_counter() - started,
        "questions": len(every) + sum(len(group) for group in silent.values()),
    }


def over(figures: dict[str, Any], categories: list[str]) -> tuple[float, ...]:
    """Recall @5 / @10 / @20, @10 with the default floors and auto-inject (the block, its hits alone) over the
    questions of ``categories``
    only, each question weighing the same (as the whole run's figures): the categories' means weighted by how
    many were asked."""
    asked: dict[str, int] = {c: figures["asked"][c] for c in categories}
    total = sum(asked.values())

    def mean(by_category: dict[str, float]) -> float:
        return sum(by_category[c] * n for c, n in asked.items()) / total

    recalls = [mean({c: figures["by_category"][c][i] for c in categories}) for i in range(3)]
    injected = (mean(figures["inject_by_category"]), mean(figures["inject_hits_by_category"]))
    return (*recalls, mean(figures["floored10_by_category"]), *injected)


def _mean_or_none(values: list[bool]) -> float | None:
    """The share of ``values`` that are true; None for a dataset without off-topic questions."""
    return statistics.mean(values) if values else None


class WithoutKeywordLeg:
    """The store as the S3 Vectors adapter answers (``mneme.adapters.s3vectors``): no keyword matches and no
    statistics, no conversation windows; everything else is the embedded store's."""

    def __init__(self, store: EmbeddedVectorStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def keyword_matches(self, words: list[str], *_: Any, **__: Any) -> KeywordMatches:
        return KeywordMatches(documents=[], total_documents=0, total_chars=0, doc_freq=dict.fromkeys(words, 0))

    def adjacent(self, *_: Any, **__: Any) -> dict[str, Any]:
        return {}


def measure(
    users: int = 12,
    modes: str = "default,keyword,vector,rrf",
    *,
    keyword_leg: bool = True,
    notes: bool = False,
    own: bool = False,
    transcripts: bool = False,
    stamped: bool = False,
    observed: bool = True,
) -> dict[str, Any]:
    """Load ``users`` conversations (or memories of notes, ``bench/notes.py``, or of a user's own notes,
    ``bench/own_notes.py``, alone or with ``transcripts`` beside them), ask every question in every mode, print the
    table; the figures."""
    data = (own_notes_dataset if own else notes_dataset if notes else dataset)(users)
    if own and transcripts:
        data = beside(dataset(users), data)
    return report(dated(data) if stamped else data, modes, keyword_leg=keyword_leg, observed=observed)


def report(
    data: list[Conversation],
    modes: str = "default,keyword,vector,rrf",
    *,
    keyword_leg: bool = True,
    observed: bool = True,
) -> dict[str, Any]:
    """Load ``data`` into one store, ask every question in every mode, print the table; the figures.

    Shared by every dataset (``bench/public_conversations.py`` too): one evaluation, one table."""
    embed = Embeddings()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = EmbeddedVectorStore(Path(folder) / "memory.sqlite3")
        load(store, data, embed, observed=observed)
        questions = [q.question for conv in data for q in conv.questions]
        vectors = dict(zip(questions, embed(questions), strict=True))
        searched = store if keyword_leg else WithoutKeywordLeg(store)
        ports = MemoryPorts(store=searched, embedder=embed.model, audit=_NoAudit(), clock=_Clock())  # type: ignore[arg-type]
        turns = sum(len(c.turns) for c in data)
        print(f"{len(data)} users, {turns} turns loaded together, {len(questions)} questions, {embed.model.model_id}")
        columns = (
            "@5", "@10", "@20", "floors@10", "chars@10", "stale1st", "inject@5", "injHits", "injChars", "injOther",
            "offSilent",
        )  # fmt: skip
        print(f"{'mode':<8} " + " ".join(f"{c:>{max(6, len(c))}}" for c in columns) + "  per category @10")
        for mode in modes.split(","):
            r = evaluate(ports, data, vectors, mode)
            figures[mode] = r
            cats = " ".join(f"{c} {v:.3f}" for c, v in r["categories"].items())
            silent = "        -" if r["off_topic_silent"] is None else f"{r['off_topic_silent']:9.3f}"
            if r["silent_by_kind"]:
                cats += " | silent: " + " ".join(f"{c} {v:.2f}" for c, v in r["silent_by_kind"].items())
            print(
                f"{mode:<8} {r['r5']:6.3f} {r['r10']:6.3f} {r['r20']:6.3f} {r['floored10']:9.3f} {r['chars10']:8.0f}"
                f" {r['stale_first']:8d}"
                f" {r['inject_recall']:8.3f} {r['inject_hits_recall']:7.3f} {r['inject_chars']:8.0f}"
                f" {r['inject_other']:8.2f} {silent}  {cats}"
            )
        print("per category recall @5 / @10 / @20:")
        for category in next(iter(figures.values()))["by_category"]:
            row = "  ".join(
                f"{mode} " + "/".join(f"{v:.3f}" for v in r["by_category"][category]) for mode, r in figures.items()
            )
            print(f"  {category:<17} {row}")
        store.close()
    return figures


def bench(full: bool) -> dict[str, Any]:
    """``make bench``: every user and mode over the conversations, the notes, a user's own notes (36 small
    memories), then the conversations with each line's date in front (a minute and a half, the embeddings cached
    after the first run)."""
    return {
        "conversations": measure(12),
        "notes": measure(12, notes=True),
        "own notes": measure(36, own=True),
        "dated": measure(12, stamped=True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=12)
    parser.add_argument("--modes", "--mode", default="default,keyword,vector,rrf")
    parser.add_argument(
        "--without-keyword-leg",
        action="store_true",
        help="search the store as the S3 Vectors adapter answers: no keyword matches, no windows",
    )
    parser.add_argument("--notes", action="store_true", help="memories of notes (bench/notes.py), not transcripts")
    parser.add_argument(
        "--own-notes", action="store_true", help="a user's own notes in the first person (bench/own_notes.py)"
    )
    parser.add_argument(
        "--beside-transcripts", action="store_true", help="with --own-notes: in the memories of the transcripts"
    )
    parser.add_argument("--dated", action="store_true", help="each line's date in front: [08 May 2023] Kate: ...")
    parser.add_argument("--no-observed-at", action="store_true", help=NO_OBSERVED_AT)
    args = parser.parse_args()
    options = {
        "notes": args.notes,
        "own": args.own_notes,
        "transcripts": args.beside_transcripts,
        "stamped": args.dated,
        "observed": not args.no_observed_at,
    }
    measure(args.users, args.modes, keyword_leg=not args.without_keyword_leg, **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
