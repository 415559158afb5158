"""Measure — memory recall on the HARD conversation benchmark through the public HTTP API (issue 30.6).

    .venv/bin/python bench/memory_quality_hard.py [--users 12] [--port N]

The dataset is ``bench/conversations.py`` (generated in code, seeded; N users, each one long two-person
conversation of dated sessions, every turn one entry ``"<Speaker>: <text>"``). A local server
(``mneme_local.server``: the local MiniLM embedder, the embedded store) is started; every user's turns are
written IN CONVERSATION ORDER with ``POST /v1/memory/documents:batch`` into ``vector.user.<uid>.memory``
(``observed_at`` = the session time, ``metadata.turn_id`` to score). Then every question is asked with
``POST /v1/memory/search`` in each mode — vector, keyword (BM25), hybrid rrf, hybrid score:

* ``top_k`` 20, no floors: recall@5/@10/@20 overall and per category, characters of the top 10 per query,
  knowledge updates whose old value ranks above the current one (``stale1st``);
* ``top_k`` 10 with the server's default floors: how many off-topic questions (nothing relevant stored)
  still get at least one hit — what auto-inject would add for nothing.

The in-process twin (same dataset, same engine function, no server) is ``bench/recall_eval.py``.
Exits non-zero when a request or the load fails.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, use_repo_paths
from conversations import Conversation, dataset
from local_server import Server, free_port
from memory_quality import Client

use_repo_paths()

MODES: dict[str, dict[str, Any]] = {
    "vector": {"retrieval": "vector"},
    "keyword": {"retrieval": "keyword"},
    "hybrid rrf": {"retrieval": "hybrid", "fusion": "rrf"},
    "hybrid score": {"retrieval": "hybrid", "fusion": "score"},
}
NO_FLOORS = {"min_score": 0, "relative_cutoff": 0}
KS = (5, 10, 20)


def ingest(client: Client, conv: Conversation) -> None:
    """Every turn in order, 100 per batch request; any refused item fails the bench."""
    items = [
        {
            "namespace": f"vector.user.{conv.user}.memory",
            "content": turn.content,
            "observed_at": turn.at.isoformat(),
            "metadata": {"turn_id": turn.turn_id},
        }
        for turn in conv.turns
    ]
    for start in range(0, len(items), 100):
        _, answer = client.call(conv.user, "POST", "/v1/memory/documents:batch", {"items": items[start : start + 100]})
        refused = [r for r in answer["results"] if r["status"] != 201]
        if refused:
            raise RuntimeError(f"{conv.user}: {len(refused)} turns refused, first {refused[0]}")


def search(client: Client, conv: Conversation, query: str, top_k: int, extra: dict[str, Any]) -> list[dict[str, Any]]:
    body = {"query": query, "namespaces": [f"vector.user.{conv.user}.memory"], "top_k": top_k, **extra}
    _, answer = client.call(conv.user, "POST", "/v1/memory/search", body)
    if not isinstance(answer, dict) or "hits" not in answer:
        raise RuntimeError(f"search failed: {answer}")
    hits: list[dict[str, Any]] = answer["hits"]
    return hits


def evaluate(client: Client, data: list[Conversation], mode: dict[str, Any]) -> dict[str, Any]:
    per_category: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    chars: list[int] = []
    stale_first, off_topic, off_topic_hit = 0, 0, 0
    for conv in data:
        for q in conv.questions:
            if not q.evidence:
                off_topic += 1
                off_topic_hit += bool(search(client, conv, q.question, 10, mode))  # the default floors
                continue
            hits = search(client, conv, q.question, 20, {**mode, **NO_FLOORS})
            ids = [h["metadata"]["turn_id"] for h in hits]
            per_category[q.category].append(tuple(len(set(q.evidence) & set(ids[:k])) / len(q.evidence) for k in KS))
            chars.append(sum(len(h["content"]) for h in hits[:10]))
            current = min((ids.index(e) for e in q.evidence if e in ids), default=99)
            stale_first += min((ids.index(s) for s in q.stale if s in ids), default=99) < current
    every = [s for group in per_category.values() for s in group]
    return {
        "overall": tuple(statistics.mean(s[i] for s in every) for i in range(len(KS))),
        "categories": {
            c: tuple(statistics.mean(s[i] for s in g) for i in range(len(KS))) for c, g in sorted(per_category.items())
        },
        "chars10": statistics.mean(chars),
        "stale_first": stale_first,
        "off_topic": (off_topic_hit, off_topic),
    }


def report(results: dict[str, dict[str, Any]]) -> None:
    print(f"\n  {'mode':<14}{'r@5':>7}{'r@10':>7}{'r@20':>7}{'chars@10':>10}{'stale1st':>9}  off-topic with >=1 hit")
    for name, r in results.items():
        hit, total = r["off_topic"]
        print(
            f"  {name:<14}"
            + "".join(f"{v:>7.3f}" for v in r["overall"])
            + f"{r['chars10']:>10.0f}{r['stale_first']:>9d}  {hit}/{total}"
        )
    categories = next(iter(results.values()))["categories"]
    for category in categories:
        print(f"\n  {category} (r@5 r@10 r@20)")
        for name, r in results.items():
            print(f"    {name:<14}" + "".join(f"{v:>7.3f}" for v in r["categories"][category]))


def main(users: int = 12, port: int = 0) -> dict[str, Any]:
    data = dataset(users)
    turns, questions = sum(len(c.turns) for c in data), sum(len(c.questions) for c in data)
    header(f"hard memory recall over HTTP ({len(data)} users, {turns} turns, {questions} questions, local MiniLM)")
    server = Server("memory quality (hard)", ["-m", "mneme_local.server"], port or free_port())
    try:
        client = Client(server)
        start = time.perf_counter()
        for conv in data:
            ingest(client, conv)
        print(f"  ingested {turns} turns with POST /v1/memory/documents:batch in {time.perf_counter() - start:.1f} s")
        results = {name: evaluate(client, data, mode) for name, mode in MODES.items()}
        report(results)
    finally:
        server.stop()
    return results


def bench(full: bool) -> dict[str, Any]:
    """``make bench``: every user; fails when the default retrieval recalls less than the vector leg alone."""
    results = main()
    if results["hybrid score"]["overall"][1] < results["vector"]["overall"][1]:
        raise AssertionError("the default retrieval (hybrid score) recalls less than vector-only at 10")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=12)
    parser.add_argument("--port", type=int, default=0, help="the local server's port (default: a free one)")
    args = parser.parse_args()
    main(args.users, args.port)
