"""The embedded vector engines compared on one namespace of N × 384 float vectors (the choice of issue 14).

Each candidate runs in its own fresh process over the same seeded unit vectors (half of the queries near a
stored vector, half random): build time, warm search p50 / p95 for top-10, recall@10 against exact float64
search, the first search of a fresh process over what was built (where the engine persists), and the growth
of the process's resident memory while building (the data set itself is memory-mapped and excluded).
Threads: BLAS/OpenMP pinned to 1 unless ``--threads`` says otherwise (printed).

Needs the candidates' packages (``requirements/bench-vectors.txt``, installed by ``make bench-vectors``).
Run: ``make bench-vectors`` or ``.venv-bench-vectors/bin/python bench/vector_candidates.py [--n 1000000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DIM, K, QUERIES = 384, 10, 60
SKIPPED = 3  # a child's exit status: the candidate does not apply at this size (printed, not a failure)
WORK = Path("/tmp/mneme-bench-candidates")
CANDIDATES = (
    "numpy-f32",
    "faiss-flat-f32",
    "faiss-sq8+rerank",
    "usearch-exact-i8+rerank",
    "usearch-hnsw-f16",
    "sqlite-vec-f32",
    "sqlite-vec-int8+rerank",
    "lancedb-flat",
)


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def dataset(n: int) -> tuple[Any, Any, Any]:
    import numpy as np

    WORK.mkdir(parents=True, exist_ok=True)
    path, qpath, tpath = WORK / f"x-{n}.npy", WORK / f"q-{n}.npy", WORK / f"truth-{n}.npy"
    if not tpath.exists():
        rng = np.random.default_rng(14)
        x = rng.standard_normal((n, DIM), dtype=np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        q = rng.standard_normal((QUERIES, DIM), dtype=np.float32)
        q[1::2] = x[rng.integers(n, size=QUERIES // 2)] + 0.3 * q[1::2] / np.sqrt(DIM) * 8
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        truth = np.stack([np.argsort(-(x.astype(np.float64) @ qq.astype(np.float64)))[:K] for qq in q])
        np.save(path, x)
        np.save(qpath, q)
        np.save(tpath, truth)
    return np.load(path, mmap_mode="r"), np.load(qpath), np.load(tpath)


def rerank(x: Any, q: Any, candidates: Any) -> list[int]:
    import numpy as np

    cand = np.asarray(candidates, dtype=np.int64)
    cand = cand[cand >= 0]
    scores = x[np.sort(cand)] @ q
    order = np.sort(cand)[np.argsort(-scores)[:K]]
    return [int(i) for i in order]


def quantize(x: Any) -> tuple[Any, Any]:
    import numpy as np

    scale = 127.0 / np.abs(np.asarray(x[:100_000])).max(axis=0)
    codes = np.empty(x.shape, dtype=np.int8)
    for first in range(0, len(x), 100_000):
        codes[first : first + 100_000] = np.clip(np.rint(x[first : first + 100_000] * scale), -127, 127)
    return codes, scale


def int8_query(q: Any, scale: Any) -> Any:
    """The query in the codes' units (q / scale per dimension), rounded to int8 (faiss' and usearch's int8
    kernels multiply integers); the rounding is part of the error the exact re-rank absorbs."""
    import numpy as np

    folded = q / scale
    return np.clip(np.rint(folded * (127.0 / np.abs(folded).max())), -127, 127)


def build(name: str, x: Any, where: Path) -> tuple[Any, Any]:  # noqa: PLR0911, PLR0915, C901 - one branch per candidate
    """(search(q) -> ids, reopen() -> search) for one candidate."""
    import numpy as np

    n = len(x)
    if name == "numpy-f32":
        matrix = np.array(x)

        def search(q: Any) -> list[int]:
            s = matrix @ q
            top = np.argpartition(-s, K)[:K]
            return [int(i) for i in top[np.argsort(-s[top])]]

        return search, None
    if name.startswith("faiss"):
        import faiss

        if name == "faiss-flat-f32":
            index = faiss.IndexFlatIP(DIM)
            index.add(np.array(x))
            return (lambda q: [int(i) for i in index.search(q[None], K)[1][0]]), None
        codes, scale = quantize(x)
        index = faiss.IndexScalarQuantizer(DIM, faiss.ScalarQuantizer.QT_8bit_direct_signed, faiss.METRIC_INNER_PRODUCT)
        index.train(np.zeros((1, DIM), dtype=np.float32))
        for first in range(0, n, 100_000):
            index.add(codes[first : first + 100_000].astype(np.float32))
        faiss.write_index(index, str(where / "faiss.index"))

        def sq_search(q: Any, idx: Any = index) -> list[int]:
            return rerank(x, q, idx.search(int8_query(q, scale)[None].astype(np.float32), 8 * K)[1][0])

        def reopen() -> Any:
            loaded = faiss.read_index(str(where / "faiss.index"))
            return lambda q: sq_search(q, loaded)

        return sq_search, reopen
    if name.startswith("usearch"):
        from usearch.index import Index, MetricKind
        from usearch.index import search as brute

        if name == "usearch-exact-i8+rerank":
            codes, scale = quantize(x)

            def u_search(q: Any) -> list[int]:
                query = int8_query(q, scale).astype(np.int8)
                return rerank(x, q, brute(codes, query, 8 * K, MetricKind.IP, exact=True, threads=1).keys)

            return u_search, None
        if n > 200_000:
            print("skipped above 200k vectors: the HNSW build takes tens of minutes here", file=sys.stderr)
            raise SystemExit(SKIPPED)
        index = Index(ndim=DIM, metric="ip", dtype="f16")
        index.add(np.arange(n), np.array(x), threads=1)
        index.save(str(where / "usearch.index"))

        def h_search(q: Any, idx: Any = index) -> list[int]:
            return [int(i) for i in idx.search(q, K).keys]

        def h_reopen() -> Any:
            loaded = Index.restore(str(where / "usearch.index"), view=True)
            return lambda q: h_search(q, loaded)

        return h_search, h_reopen
    if name.startswith("sqlite-vec"):
        import apsw
        import sqlite_vec

        path = where / "vec.sqlite"
        db = apsw.Connection(str(path))
        db.enable_load_extension(True)
        db.load_extension(sqlite_vec.loadable_path())
        int8 = name == "sqlite-vec-int8+rerank"
        kind = "int8" if int8 else "float"
        db.execute(f"CREATE VIRTUAL TABLE v USING vec0(namespace TEXT partition key, embedding {kind}[{DIM}])")
        codes, scale = quantize(x) if int8 else (None, None)
        with db:
            for first in range(0, n, 10_000):
                rows = codes[first : first + 10_000] if int8 else np.asarray(x[first : first + 10_000])
                db.executemany(
                    f"INSERT INTO v(rowid, namespace, embedding) VALUES (?, 'ns', {'vec_int8(?)' if int8 else '?'})",
                    [(first + i, row.tobytes()) for i, row in enumerate(rows)],
                )

        def v_search(q: Any, conn: Any = db) -> list[int]:
            if int8:
                qq = int8_query(q, scale).astype(np.int8)
                sql = "SELECT rowid FROM v WHERE namespace = 'ns' AND embedding MATCH vec_int8(?) AND k = ?"
                return rerank(x, q, [r[0] for r in conn.execute(sql, (qq.tobytes(), 8 * K))])
            sql = "SELECT rowid FROM v WHERE namespace = 'ns' AND embedding MATCH ? AND k = ?"
            return [r[0] for r in conn.execute(sql, (q.astype(np.float32).tobytes(), K))]

        def v_reopen() -> Any:
            conn = apsw.Connection(str(path))
            conn.enable_load_extension(True)
            conn.load_extension(sqlite_vec.loadable_path())
            return lambda q: v_search(q, conn)

        return v_search, v_reopen
    if name == "lancedb-flat":
        import lancedb
        import pyarrow as pa

        db = lancedb.connect(str(where / "lance"))
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(np.asarray(x).reshape(-1)), DIM)
        table = pa.table({"id": pa.array(np.arange(n)), "namespace": pa.array(["ns"] * n), "vector": vectors})
        tbl = db.create_table("memory", table)

        def l_search(q: Any, t: Any = tbl) -> list[int]:
            res = t.search(q, vector_column_name="vector").metric("dot").where("namespace = 'ns'", prefilter=True)
            return [int(i) for i in res.limit(K).to_arrow()["id"].to_pylist()]

        def l_reopen() -> Any:
            t = lancedb.connect(str(where / "lance")).open_table("memory")
            return lambda q: l_search(q, t)

        return l_search, l_reopen
    raise SystemExit(f"unknown candidate {name}")


def child(name: str, n: int) -> dict[str, Any]:
    import shutil

    import numpy as np

    x, queries, truth = dataset(n)
    np.asarray(x).sum()  # the data set in the page cache before the clock starts
    where = WORK / f"{name}-{n}"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    before = rss_mib()
    start = time.perf_counter()
    search, reopen = build(name, x, where)
    built = time.perf_counter() - start
    grown = rss_mib() - before
    for q in queries[:3]:
        search(q)
    latencies, hits = [], 0
    for q, t in zip(queries, truth, strict=True):
        s = time.perf_counter()
        found = search(q)
        latencies.append(time.perf_counter() - s)
        hits += len(set(found) & {int(i) for i in t})
    first = None
    if reopen is not None:
        s = time.perf_counter()
        reopen()(queries[0])
        first = time.perf_counter() - s
    lat = sorted(latencies)
    return {
        "candidate": name,
        "build_s": built,
        "p50_ms": lat[len(lat) // 2] * 1000,
        "p95_ms": lat[int(len(lat) * 0.95)] * 1000,
        "recall": hits / (K * len(queries)),
        "reopen_first_s": first,
        "rss_growth_mib": grown,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--child")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n)))
        return 0
    env = {
        **os.environ,
        **{v: str(args.threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
    }
    print(
        f"=== embedded vector candidates: one namespace of {args.n:,} × {DIM} float32, top-{K}, {QUERIES} queries ==="
    )
    print(f"threads: OMP/OPENBLAS/MKL_NUM_THREADS={args.threads}")
    dataset(args.n)
    failed = 0
    print(f"  {'candidate':<26}{'build':>9}{'p50':>10}{'p95':>10}{'recall@10':>11}{'reopen+1st':>12}{'RSS +':>10}")
    for name in args.only or CANDIDATES:
        out = subprocess.run(
            [sys.executable, __file__, "--child", name, "--n", str(args.n)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode == SKIPPED:
            print(f"  {name:<26} skipped: {out.stderr.strip().splitlines()[-1]}")
            continue
        if out.returncode != 0:
            failed += 1
            print(
                f"  {name:<26} FAILED: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}"
            )
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        first = f"{r['reopen_first_s']:.2f} s" if r["reopen_first_s"] is not None else "(no file)"
        print(
            f"  {name:<26}{r['build_s']:>7.1f} s{r['p50_ms']:>7.1f} ms{r['p95_ms']:>7.1f} ms{r['recall']:>11.3f}"
            f"{first:>12}{r['rss_growth_mib']:>6.0f} MiB",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
