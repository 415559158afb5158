"""Measure 6 — memory search: the embedded vector store with ONE user's namespace holding N entries (384-d).

What is searched: alice's own namespaces (``own_namespaces("alice")``), and every one of the N rows is in
them (``vector.user.alice.memory``): a query scores all N. Sizes 10k and 100k (``--quick``), plus 1M
(``--full``). Each size is measured in a fresh process over a store file built once through the store's own
``put`` (``/tmp/mneme-bench-memory-<N>.sqlite``, reused by later runs):

* first search after a restart: open the file and answer one query (the saved index snapshot is loaded);
* warm p50 / p95 over the queries (half near a stored vector, half random), recall@10 against exact float64
  search over the same N rows computed here independently;
* a write, then the next search: the median search right after one entry was put, against the median of the
  same queries searched just before it (each query searched once untimed first: a query's own cost and its
  pages' warmth vary more than a write adds); the same after 1, 10, 100 and 1,000 rows written in one put;
* peak resident memory of that process (VmHWM);
* and, once, the first search with no snapshot (the index built from every row), for information.

Threads: faiss / OpenMP 1 (the store's setting), ``OPENBLAS_NUM_THREADS`` as printed.
Run: ``.venv/bin/python bench/memory_search.py [--full] [--queries 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median, pct, use_repo_paths, verdict

use_repo_paths()

if TYPE_CHECKING:
    from mneme.models.memory import MemoryDocument

DIM, TOP, SEED = 384, 10, 8
SETTLED = 5  # warm searches left out of the figures: the first ones touch the index's pages once more
NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
CREATED = datetime(2026, 11, 1, tzinfo=UTC)
NAMESPACE = "vector.user.alice.memory"
WORK = Path("/tmp/mneme-bench-memory")


def dataset(n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    normalized: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalized


def queries(vectors: np.ndarray, count: int) -> np.ndarray:
    rng = np.random.default_rng(SEED + 1)
    out = rng.standard_normal((count, DIM)).astype(np.float32)
    near = vectors[rng.integers(len(vectors), size=count)]
    out[1::2] = near[1::2] + 0.05 * out[1::2]  # half near a stored vector (a "similar memory"), half random
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def exact_top(vectors: np.ndarray, qs: np.ndarray) -> list[list[str]]:
    """The exact top-10 ids of each query, in float64, computed in chunks (independently of the store)."""
    q64 = qs.astype(np.float64).T
    best_ids = np.empty((len(qs), 0), dtype=np.int64)
    best_scores = np.empty((len(qs), 0))
    for first in range(0, len(vectors), 100_000):
        scores = (vectors[first : first + 100_000].astype(np.float64) @ q64).T
        ids = np.broadcast_to(np.arange(first, first + scores.shape[1]), scores.shape)
        best_scores, best_ids = np.hstack([best_scores, scores]), np.hstack([best_ids, ids])
        keep = np.argsort(-best_scores, axis=1)[:, :TOP]
        best_scores, best_ids = np.take_along_axis(best_scores, keep, 1), np.take_along_axis(best_ids, keep, 1)
    return [[f"d{i:07d}" for i in row] for row in best_ids]


def store_path(n: int) -> Path:
    return WORK / f"memory-{n}-s{SEED}.sqlite"


def entry(doc_id: str, content: str, content_hash: str) -> MemoryDocument:
    """A memory of alice's searched namespace."""
    from mneme.models.memory import MemoryDocument

    return MemoryDocument(
        id=doc_id,
        namespace=NAMESPACE,
        owner_user_id="alice",
        content=content,
        content_hash=content_hash,
        created_at=CREATED,
        updated_at=CREATED,
    )


def build(n: int, vectors: np.ndarray) -> None:
    from mneme_local.vector_store import EmbeddedVectorStore

    path = store_path(n)
    if path.exists():
        store = EmbeddedVectorStore(path)
        count = store._db.execute("SELECT COUNT(*) FROM memory WHERE deleted = 0").fetchone()[0]
        if count == n:
            store.search(vectors[0], [NAMESPACE], TOP, now=NOW)  # a store that has searched before (snapshot)
            store.close()
            print(f"  {n:>9,} entries: reusing {path}")
            return
        store.close()
    shutil.rmtree(WORK / f"{path.name}.vectors", ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    WORK.mkdir(parents=True, exist_ok=True)
    store = EmbeddedVectorStore(path)
    start = time.perf_counter()
    for first in range(0, n, 10_000):
        items = [(entry(f"d{i:07d}", f"memory {i}", f"h{i}"), vectors[i]) for i in range(first, min(n, first + 10_000))]
        store.put(items)
    store.search(vectors[0], [NAMESPACE], TOP, now=NOW)  # the first search ever builds and saves the index
    store.close()
    print(f"  {n:>9,} entries: built {path} through put() in {time.perf_counter() - start:.1f} s")


def child(n: int, query_file: Path, writes: int, rebuild: bool) -> dict[str, Any]:
    """One fresh process: the restart, warm searches, writes then searches, peak memory."""
    from mneme.memory.namespaces import own_namespaces
    from mneme_local.vector_store import EmbeddedVectorStore

    qs = np.load(query_file)
    patterns = own_namespaces("alice")
    path = store_path(n)
    if rebuild:
        shutil.rmtree(WORK / f"{path.name}.vectors", ignore_errors=True)
    start = time.perf_counter()
    store = EmbeddedVectorStore(path)
    first_ids = [c.document.id for c in store.search(qs[0], patterns, TOP, now=NOW)]
    restart = time.perf_counter() - start
    work = dict(vars(store.work))
    rows = int(store._cache.indexes[NAMESPACE].live)
    found, warm = [first_ids], []
    for q in qs[1:]:
        t = time.perf_counter()
        found.append([c.document.id for c in store.search(q, patterns, TOP, now=NOW)])
        warm.append(time.perf_counter() - t)
    after_write = [paired(store, qs, patterns, i, 1, seed=99 + i, tag="write") for i in range(writes)]
    changed = {count: changed_rows(store, qs, patterns, count) for count in CHANGED_ROWS}
    store.close()
    hwm = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines() if "VmHWM" in line)
    return {
        "restart_s": restart,
        "work_first": work,
        "warm": warm,
        "after_write": after_write,
        "after_changed": changed,
        "found": found,
        "rows_searched": rows,
        "hwm_mib": hwm / 1024,
    }


CHANGED_ROWS = (1, 10, 100, 1_000)
CHANGED_ROUNDS = 5


def changed_rows(store: Any, qs: np.ndarray, patterns: list[str], count: int) -> list[tuple[float, float, float]]:
    """``CHANGED_ROUNDS`` pairs of :func:`paired` with ``count`` rows written in one put."""
    return [
        paired(store, qs, patterns, round_, count, seed=count * 1000 + round_, tag=f"changed-{count}")
        for round_ in range(CHANGED_ROUNDS)
    ]


def paired(
    store: Any, qs: np.ndarray, patterns: list[str], index: int, count: int, seed: int, tag: str
) -> tuple[float, float, float]:
    """(seconds of a search, seconds of the same query's search right after ``count`` rows were written in one
    put, seconds of that put).

    The query is searched once untimed first, so both timed searches find its pages as warm as each other: the
    only difference between them is the write. (Comparing with the query's first search in the warm loop
    instead made a search after writes look faster than without them: 0.48x at 1M, the query's rows read from
    disk the first time.) The rows are deleted afterwards and a search absorbs the deletes, untimed."""
    rng = np.random.default_rng(seed)
    query = qs[1 + (SETTLED + index) % (len(qs) - 1)]
    store.search(query, patterns, TOP, now=NOW)
    t = time.perf_counter()
    store.search(query, patterns, TOP, now=NOW)
    before = time.perf_counter() - t
    vectors = rng.standard_normal((count, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    key = f"bench-{tag}-{os.getpid()}-{index}"
    docs = [entry(f"{key}-{i}", f"bench {tag} row {i}", f"{key}-{i}") for i in range(count)]
    t = time.perf_counter()
    store.put(list(zip(docs, vectors.tolist(), strict=True)))
    put = time.perf_counter() - t
    t = time.perf_counter()
    store.search(query, patterns, TOP, now=NOW)
    after = time.perf_counter() - t
    for doc in docs:
        store.soft_delete(doc.id, NAMESPACE, now=NOW)
    store.search(query, patterns, TOP, now=NOW)  # the deletes replayed, untimed
    return before, after, put


def ratio_text(pairs: list[tuple[float, float, float]]) -> tuple[float, str]:
    """The median search after the write(s) over the median of the same queries' searches just before them."""
    before, after = median([b for b, _a, _p in pairs]), median([a for _b, a, _p in pairs])
    own = sorted(a / b for b, a, _p in pairs)
    return after / before, (
        f"p50 {after * 1000:.2f} ms = {after / before:.2f}x the same queries just before ({before * 1000:.2f} ms;"
        f" each pair's own ratio {own[0]:.2f}-{own[-1]:.2f}, {len(pairs)} pairs); the put itself"
        f" p50 {median([p for _b, _a, p in pairs]) * 1000:.2f} ms"
    )


def run_child(n: int, query_file: Path, writes: int, rebuild: bool = False) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(n), "--query-file", str(query_file), "--writes", str(writes)]
    out = subprocess.run(cmd + (["--rebuild"] if rebuild else []), capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"memory search child failed ({out.returncode}):\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure(n: int, count: int) -> dict[str, float]:
    vectors = dataset(n)
    build(n, vectors)
    qs = queries(vectors, count)
    query_file = WORK / f"queries-{n}.npy"
    np.save(query_file, qs)
    truth = exact_top(vectors, qs)
    del vectors
    r = run_child(n, query_file, writes=20)
    recall = float(np.mean([len(set(f) & set(t)) / TOP for f, t in zip(r["found"], truth, strict=True)]))
    warm = r["warm"][SETTLED:]  # the first few touch the pages once more
    p50, p95 = median(warm), pct(warm, 95)
    write_ratio, write_text = ratio_text(r["after_write"])
    changed = {int(k): ratio_text(v) for k, v in r["after_changed"].items()}
    rebuilt = run_child(n, query_file, writes=0, rebuild=True) if n >= 100_000 else None
    print(
        f"  {n:>9,} entries, {r['rows_searched']:,} rows in alice's namespaces searched per query:\n"
        f"      first search after a restart {r['restart_s']:.2f} s (snapshots loaded "
        f"{r['work_first']['snapshots_loaded']}, vectors read {r['work_first']['rows_read']:,})\n"
        f"      warm p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, recall@{TOP} {recall:.3f} "
        f"over {len(qs)} queries (exact float64 reference)\n"
        f"      after a write: next search {write_text}\n"
        + "".join(f"      after {count:,} changed rows: next search {text}\n" for count, (_r, text) in changed.items())
        + f"      peak RSS {r['hwm_mib']:.0f} MiB"
        + (f"; first search with no snapshot (built from the rows) {rebuilt['restart_s']:.2f} s" if rebuilt else "")
    )
    if n == 1_000_000:
        print(
            f"      goals at 1M: warm p50 ≤ 100 ms → {verdict(p50 <= 0.1)}; "
            f"recall@10 = 1.0 → {verdict(recall == 1.0)}; restart ≤ 3 s → {verdict(r['restart_s'] <= 3)}; "
            f"after a write ≤ 1.2× the same queries just before → {verdict(write_ratio <= 1.2)}; "
            f"after 1 / 10 / 100 / 1,000 changed rows ≤ 1.2× → "
            f"{verdict(all(ratio <= 1.2 for ratio, _t in changed.values()))}; "
            f"memory ≤ 2 GiB → {verdict(r['hwm_mib'] <= 2048)}"
        )
    return {f"p50_ms_{n}": p50 * 1000, f"recall_{n}": recall, f"restart_s_{n}": r["restart_s"]}


def threads() -> str:
    from threadpoolctl import threadpool_info

    blas = ", ".join(f"{i['internal_api']} {i['num_threads']} thread(s)" for i in threadpool_info()) or "none loaded"
    return f"BLAS/OpenMP pools: {blas}; faiss: 1 OpenMP thread (EmbeddedVectorStore(threads=1))"


def main(full: bool = False, count: int = 200) -> dict[str, float]:
    sizes = (10_000, 100_000, 1_000_000) if full else (10_000, 100_000)
    header(f"memory search (embedded store, one user's namespace of N × {DIM}, top-{TOP})")
    import faiss  # noqa: F401 - loaded so that its OpenMP pool shows below

    print(f"  {threads()}")
    results: dict[str, float] = {}
    for n in sizes:
        results.update(measure(n, count))
    return results


def bench(full: bool) -> dict[str, float]:
    return main(full)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--child", type=int)
    parser.add_argument("--query-file", type=Path)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.query_file, args.writes, args.rebuild)))
    else:
        main(args.full, args.queries)
