"""HTTP memory search of the working tree against an earlier commit, side by side (not part of ``make bench``).

A change to the search is smaller than what the shared host moves between two runs of
``bench/memory_ingest.py``, so it is measured in one run: two local servers (``mneme_local.server``: MiniLM, the
embedded store), one running ``REF``'s ``mneme`` and ``mneme_local`` packages (``git archive`` of its tree), one
the working tree's, each loaded with the same ``--users`` users of ``--per-user`` turns (batches of 100); then
``--rounds`` rounds, alternating which goes first, of the same 199 questions by the first user (``POST
/v1/memory/search``, ``top_k`` 5, one keep-alive connection each). Per round: p50, p95 and mean latency; printed:
each server's medians over the rounds and the median of the rounds' own ratios (now / REF), the figure a loaded
host moves least.

Run: ``.venv/bin/python bench/search_ab.py REF [--rounds 6] [--users 2] [--per-user 10000]``. Exits non-zero on
any failure (a request that does not answer 2xx, a server that does not start).
"""

from __future__ import annotations

import argparse
import http.client
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, header, use_repo_paths
from conversations import dataset
from local_server import Server, free_port
from memory_ingest import load_users, search_latencies

use_repo_paths()


def checkout(ref: str, folder: Path) -> list[str]:
    """``REF``'s tree in ``folder`` (its packages read files beside them: the state machine, the console), and the
    server command that runs its packages ahead of the working tree's."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    front = [str(folder / "layers" / "mneme"), str(folder / "local"), str(folder / "functions" / "run")]
    return ["-c", f"import sys\nsys.path[:0] = {front!r}\nfrom mneme_local import server\nsys.exit(server.main())"]


def one_round(server: Server, connection: http.client.HTTPConnection, questions: list[str]) -> dict[str, float]:
    latencies = search_latencies(server, connection, questions)
    return {
        "p50": latencies[len(latencies) // 2] * 1000,
        "p95": latencies[int(len(latencies) * 0.95)] * 1000,
        "mean": statistics.mean(latencies) * 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument("--per-user", type=int, default=10_000)
    args = parser.parse_args()
    header(f"memory search over HTTP, {args.ref} against the working tree ({args.rounds} alternating rounds)")
    questions = [q.question for conv in dataset(3) for q in conv.questions][:199]
    with tempfile.TemporaryDirectory(prefix="mneme-search-ab-") as folder:
        names = (args.ref, "now")
        servers = {
            names[0]: Server(f"search-{args.ref}", checkout(args.ref, Path(folder)), free_port()),
            names[1]: Server("search-now", ["-m", "mneme_local.server"], free_port()),
        }
        try:
            connections = {name: load_users(server, args.users, args.per_user) for name, server in servers.items()}
            for name, server in servers.items():  # warm: the model, the indexes, the keyword statistics
                one_round(server, connections[name], questions[:20])
            rounds: dict[str, list[dict[str, float]]] = {name: [] for name in names}
            for number in range(args.rounds):
                for name in names if number % 2 == 0 else names[::-1]:
                    rounds[name].append(one_round(servers[name], connections[name], questions))
        finally:
            for server in servers.values():
                server.stop()
    rows = args.users * args.per_user
    print(f"{len(questions)} questions by one user of {args.per_user:,} memories ({rows:,} rows, {args.users} users)")
    for figure in ("p50", "p95", "mean"):
        before, after = ([r[figure] for r in rounds[name]] for name in names)
        ratios = [a / b for a, b in zip(after, before, strict=True)]
        print(
            f"  {figure:<5} {names[0]} {statistics.median(before):6.1f} ms, now {statistics.median(after):6.1f} ms;"
            f" now / {names[0]}: median {statistics.median(ratios):.3f} of the rounds' ratios"
            f" ({min(ratios):.3f}-{max(ratios):.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
