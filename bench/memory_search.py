"""Measure 6 — memory search: the embedded vector store at 10k and 100k vectors (384-d).

50 namespaces (documents spread evenly), a filter of 3 namespaces, top-5. Latency p50 / p95 over many
queries (``EmbeddedVectorStore.search``), and recall@5 against exact numpy search over the same vectors with
the same filter (computed independently here). Prints the OpenSearch request the AWS adapter sends for the
same query (``knn_query``: the filter inside the knn clause — efficient filtering).

The stores are built once into /tmp/mneme-bench-vectors-*.sqlite (through the store's own ``put``) and
reused. Run: ``.venv/bin/python bench/memory_search.py [queries]``.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median, pct, use_repo_paths, verdict

use_repo_paths()

from mneme.adapters.opensearch_queries import knn_query  # noqa: E402
from mneme.models.memory import MemoryDocument  # noqa: E402
from mneme_local.vector_store import EmbeddedVectorStore  # noqa: E402

DIM, NAMESPACES, TOP = 384, 50, 5
NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
CREATED = datetime(2026, 11, 1, tzinfo=UTC)
SEED = 8


def namespace(i: int) -> str:
    return f"vector.user.u{i % NAMESPACES:02d}.memory"


def dataset(n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    normalized: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalized


def build(n: int, vectors: np.ndarray) -> EmbeddedVectorStore:
    path = Path(f"/tmp/mneme-bench-vectors-{n}-s{SEED}.sqlite")
    store = EmbeddedVectorStore(path)
    count = store._db.execute("SELECT COUNT(*) FROM memory").fetchone()[0]
    if count == n:
        print(f"  {n:,} vectors: reusing {path}")
        return store
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    store = EmbeddedVectorStore(path)
    start = time.perf_counter()
    batch = 5000
    for first in range(0, n, batch):
        items = []
        for i in range(first, min(n, first + batch)):
            doc = MemoryDocument(
                id=f"d{i:06d}",
                namespace=namespace(i),
                owner_user_id=f"u{i % NAMESPACES:02d}",
                content=f"memory {i}",
                content_hash=f"h{i}",
                created_at=CREATED,
                updated_at=CREATED,
            )
            items.append((doc, vectors[i].tolist()))
        store.put(items)
    print(f"  {n:,} vectors: built {path} in {time.perf_counter() - start:.1f} s")
    return store


def exact(vectors: np.ndarray, mask: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    idx = np.flatnonzero(mask)
    scores = vectors[idx] @ query
    order = sorted(range(len(idx)), key=lambda j: (-float(scores[j]), idx[j]))[:k]
    return [f"d{idx[j]:06d}" for j in order]


def measure(n: int, queries: int) -> dict[str, float]:
    vectors = dataset(n)
    store = build(n, vectors)
    owners = np.arange(n) % NAMESPACES
    rng = np.random.default_rng(SEED + 1)
    by_namespace = {c: vectors[owners == c] for c in range(NAMESPACES)}  # what an in-memory cache would hold
    reference: list[float] = []
    latencies: list[float] = []
    recalls: list[float] = []
    for q in range(queries):
        chosen = sorted(rng.choice(NAMESPACES, size=3, replace=False).tolist())
        patterns = [namespace(c) for c in chosen]
        # half the queries sit near a stored vector (a realistic "similar memory"), half are random
        base = vectors[rng.integers(n)] if q % 2 else rng.standard_normal(DIM).astype(np.float32)
        query = base + 0.3 * rng.standard_normal(DIM).astype(np.float32)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        start = time.perf_counter()
        found = store.search(query.tolist(), patterns, TOP, now=NOW)
        latencies.append(time.perf_counter() - start)
        start = time.perf_counter()
        matrix = np.concatenate([by_namespace[c] for c in chosen])
        scores = matrix @ query
        np.argpartition(-scores, TOP - 1)[:TOP]
        reference.append(time.perf_counter() - start)
        truth = exact(vectors, np.isin(owners, chosen), query, TOP)
        recalls.append(len({c.document.id for c in found} & set(truth)) / TOP)
    store.close()
    p50, p95 = median(latencies[5:]), pct(latencies[5:], 95)  # the first few warm the page cache
    recall = float(np.mean(recalls))
    rows = n * 3 // NAMESPACES
    print(
        f"  {n:>7,} vectors ({rows:,} in the 3 filtered namespaces): p50 {p50 * 1000:.2f} ms, "
        f"p95 {p95 * 1000:.2f} ms, recall@5 {recall:.3f} over {queries} queries"
    )
    print(f"    goal p50 ≤ 10 ms → {verdict(p50 <= 0.010)}; recall 1.0 → {verdict(recall == 1.0)}")
    ref = median(reference[5:])
    print(
        f"    reference: numpy exact top-5 over the same rows held in memory per namespace: p50 {ref * 1000:.2f} ms "
        f"({p50 / ref:.0f}× faster than the store; the difference is reading the vector BLOBs from SQLite)"
    )
    return {f"p50_ms_{n}": p50 * 1000, f"p95_ms_{n}": p95 * 1000, f"recall_{n}": recall, f"ref_ms_{n}": ref * 1000}


def main(queries: int = 200) -> dict[str, float]:
    header(f"memory search (embedded store, {DIM}-d, {NAMESPACES} namespaces, filter of 3, top-{TOP})")
    results: dict[str, float] = {}
    for n in (10_000, 100_000):
        results.update(measure(n, queries))
    patterns = [namespace(3), namespace(17), namespace(42)]
    body = knn_query([0.0123] * 3 + [0.0] * (DIM - 3), patterns, 4 * TOP, NOW)
    vector = body["query"]["knn"]["embedding"]["vector"]
    body["query"]["knn"]["embedding"]["vector"] = f"<{len(vector)} floats>"
    print("  the OpenSearch request for the same query (k = 4 × top_k candidates, the filter inside knn):")
    print("    " + json.dumps(body, separators=(",", ":")).replace("\n", "\n    "))
    return results


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
