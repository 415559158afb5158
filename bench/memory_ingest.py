"""Measure — memory ingest over HTTP, and search at 10k memories per user (issue 30.5, 30.7).

    .venv/bin/python bench/memory_ingest.py [--rounds 5] [--users 3] [--per-user 10000] [--previous]

Against a local server (``mneme_local.server``: the local MiniLM embedder, the embedded store) on a free port
(``MNEME_BENCH_PORT`` pins it), from one client on one keep-alive connection:

* **ingest**: rounds of 1,000 conversational turns (~100 characters, bench/conversations.py's style), as
  ``POST /v1/memory/documents:batch`` of 100 items and, side by side, as single ``POST /v1/memory/documents``;
  documents per second per round, median and spread. Goal: batch ≥ 500 documents/s. Beside each round, the
  server's embedding model alone (``LocalEmbedder`` as ``mneme_local.compose`` builds it, in this process, the
  same 1,000 texts in the same batches of 100): its documents per second on this host at this moment are the
  ceiling of the ingest, and HTTP batch / model alone (the rounds' median ratio) is what the service adds to
  it — the figure that holds from host to host, where documents per second do not. With ``--previous``, a
  second server whose embedder runs the previous model derivation (bench/embedder_speed.py's
  ``PreviousBuild``; the next port) ingests the same rounds, alternating with the first, for a side-by-side
  figure on the same machine load.
* **search**: ``--users`` users each loaded with ``--per-user`` turns (by batches), then ``POST
  /v1/memory/search`` p50 / p95 over HTTP for real questions (query embedding included: what a user meets),
  searching the caller's ``--per-user`` rows among all users' rows. Goal: p50 ≤ 30 ms at 10k per user.

Exits non-zero if a request fails (a goal missed is printed as such, not hidden).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_repo_paths
from conversations import CLOSERS, OPENERS, SMALL_TALK, dataset
from local_server import Server, free_port, timed_call

use_repo_paths()


def turns(count: int, seed: int) -> list[str]:
    """``count`` distinct turns in the benchmark's style (its sentences recombined, numbered)."""
    rng = random.Random(seed)
    base = [turn.content for conv in dataset(2) for turn in conv.turns]
    out = []
    for i in range(count):
        text = rng.choice(base)
        if rng.random() < 0.5:
            text = f"{text} {rng.choice(CLOSERS)}"
        if rng.random() < 0.3:
            text = f"{text} {rng.choice(OPENERS)} {rng.choice(SMALL_TALK).format(o='you')}"
        out.append(f"{text} (#{seed}-{i})")
    return out


def cpu_seconds(server: Server) -> float:
    """The server process's CPU time so far (user + system, Linux's /proc; 0 elsewhere)."""
    stat = Path(f"/proc/{server.process.pid}/stat")
    if not stat.exists():
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ingest(server: Server, token: str, namespace: str, texts: list[str], *, batch: bool) -> float:
    """Seconds to store ``texts`` (batches of 100 or one request each)."""
    start = time.perf_counter()
    if batch:
        for at in range(0, len(texts), 100):
            items = [{"namespace": namespace, "content": t} for t in texts[at : at + 100]]
            _, data = timed_call(server.connection, token, "POST", "/v1/memory/documents:batch", {"items": items})
            if any(r["status"] != 201 for r in json.loads(data)["results"]):
                raise RuntimeError(f"a batch item was refused: {data[:300]!r}")
    else:
        for text in texts:
            timed_call(
                server.connection, token, "POST", "/v1/memory/documents", {"namespace": namespace, "content": text}
            )
    return time.perf_counter() - start


PREVIOUS_EMBEDDER = (  # bench-only: the real server, its embedder on the previous model derivation
    "import sys\nsys.path.insert(0, 'bench')\nfrom embedder_speed import PreviousBuild\n"
    "from mneme_local import embedder, server\n"
    "embedder.LocalEmbedder._model_file = PreviousBuild._model_file\nsys.exit(server.main())\n"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--users", type=int, default=3)
    parser.add_argument("--per-user", type=int, default=10_000)
    parser.add_argument("--previous", action="store_true", help="also ingest with the previous embedder build")
    args = parser.parse_args()
    measure(args.rounds, args.users, args.per_user, previous=args.previous)
    return 0


def bench(full: bool) -> None:
    """``make bench``: 5 rounds and 3 users of 10k with ``BENCH=full``, else 3 rounds and 2 users."""
    measure(5, 3, 10_000) if full else measure(3, 2, 10_000)


def model_alone(embedder: Any, texts: list[str]) -> float:
    """Documents per second of ``embedder`` alone over ``texts``, in batches of 100 as the batch route embeds them."""
    start = time.perf_counter()
    for at in range(0, len(texts), 100):
        embedder.embed(texts[at : at + 100])
    return len(texts) / (time.perf_counter() - start)


def ingest_rounds(servers: dict[str, Server], rounds: int) -> None:
    """The ingest rounds, each server in turn (alternating order), the model alone beside them, and their figures."""
    from mneme_local.embedder import LocalEmbedder

    embedder = LocalEmbedder()  # the server's own (mneme_local.compose): both cores, the int8 build
    model_alone(embedder, turns(200, 98))  # loaded, warm
    for each in servers.values():  # model loaded, caches warm
        ingest(each, each.token, "vector.user.alice.warmup", turns(200, 99), batch=True)
    rates: dict[str, list[float]] = {f"{name}{kind}": [] for name in servers for kind in ("batch", "single")}
    alone: list[float] = []
    shares: list[float] = []  # each round's HTTP batch rate (the first server's) over the model alone's
    cpu: dict[str, list[float]] = {f"{name}batch": [] for name in servers}  # server CPU ms per document
    for round_ in range(rounds):
        for name, each in servers.items() if round_ % 2 == 0 else reversed(servers.items()):
            for kind in ("batch", "single"):
                texts = turns(1_000 if kind == "batch" else 300, 1_000 * round_ + (kind == "batch"))
                before = cpu_seconds(each)
                seconds = ingest(each, each.token, f"vector.user.alice.r{round_}", texts, batch=kind == "batch")
                rates[f"{name}{kind}"].append(len(texts) / seconds)
                if kind == "batch":
                    cpu[f"{name}batch"].append((cpu_seconds(each) - before) * 1000 / len(texts))
        alone.append(model_alone(embedder, turns(1_000, 1_000 * round_ + 1)))  # the batch round's texts
        shares.append(rates["batch"][-1] / alone[-1])
    print(f"ingest over HTTP, one client, {rounds} rounds side by side (1,000 turns per batch round, 300 single)")
    for kind, values in rates.items():
        print(
            f"  {kind:<25} median {statistics.median(values):7.1f} documents/s"
            f"  (min {min(values):.1f}, max {max(values):.1f})"
        )
    for kind, values in cpu.items():  # what a loaded machine cannot steal: the server's own CPU time
        print(
            f"  {kind:<25} server CPU {statistics.median(values):.2f} ms per document"
            f" (min {min(values):.2f}, max {max(values):.2f})"
        )
    print(
        f"  {'the model alone':<25} median {statistics.median(alone):7.1f} documents/s  (min {min(alone):.1f},"
        f" max {max(alone):.1f}; the same texts, in this process): the ceiling on this host now"
    )
    print(
        f"  HTTP batch / model alone: median {statistics.median(shares):.2f} of the rounds' ratios"
        f" ({min(shares):.2f}-{max(shares):.2f})"
    )
    goal = statistics.median(rates["batch"]) >= 500
    print(f"  → goal batch ≥ 500 documents/s: {'MET' if goal else 'NOT MET'} (load {os.getloadavg()[0]:.1f})")


def load_users(server: Server, users: int, per_user: int) -> http.client.HTTPConnection:
    """``users`` users (``bench0``, ``bench1`` …) of ``per_user`` turns each, stored by batches of 100; the
    keep-alive connection it used."""
    from mneme_local.token import issue

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    for user in range(users):
        token = issue(server.data, f"bench{user}")
        texts = turns(per_user, 10_000 + user)
        for at in range(0, len(texts), 100):
            items = [{"namespace": f"vector.user.bench{user}.memory", "content": t} for t in texts[at : at + 100]]
            timed_call(connection, token, "POST", "/v1/memory/documents:batch", {"items": items})
    return connection


def search_latencies(server: Server, connection: http.client.HTTPConnection, questions: list[str]) -> list[float]:
    """Seconds of ``POST /v1/memory/search`` (``top_k`` 5) for each question by ``bench0``, shortest first."""
    from mneme_local.token import issue

    token = issue(server.data, "bench0")
    return sorted(
        timed_call(connection, token, "POST", "/v1/memory/search", {"query": q, "top_k": 5})[0] for q in questions
    )


def measure(rounds: int, user_count: int, per_user: int, *, previous: bool = False) -> None:
    port = int(os.environ.get("MNEME_BENCH_PORT") or 0) or free_port()
    server = Server("ingest", ["-m", "mneme_local.server"], port)
    servers = {"": server}
    try:
        if previous:
            servers["previous embedder "] = Server("ingest-previous", ["-c", PREVIOUS_EMBEDDER], port + 1)
        ingest_rounds(servers, rounds)
        for name in [name for name in servers if name]:  # idle servers still poll: only one is left running
            servers.pop(name).stop()

        started = time.perf_counter()
        connection = load_users(server, user_count, per_user)
        load = time.perf_counter() - started
        questions = [q.question for conv in dataset(3) for q in conv.questions][:200]
        search_latencies(server, connection, questions[:20])  # warm
        latencies = search_latencies(server, connection, questions)
        p50, p95 = latencies[len(latencies) // 2] * 1000, latencies[int(len(latencies) * 0.95)] * 1000
        rows = per_user * user_count
        print(
            f"search over HTTP: {len(latencies)} questions by one user with {per_user:,} memories"
            f" ({rows:,} rows of {user_count} users loaded in {load:.0f} s): p50 {p50:.1f} ms, p95 {p95:.1f} ms"
        )
        print(f"  → goal p50 ≤ 30 ms at {per_user:,} per user: {'MET' if p50 <= 30 else 'NOT MET'}")
    finally:
        for each in servers.values():
            each.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
