"""The batch ingest of the working tree against an earlier commit, side by side (not part of ``make bench``).

Two local servers (``mneme_local.server``, each on its own data folder): one runs ``REF``'s tree (``git
archive``), the other the working tree's. They ingest the same rounds of turns (bench/memory_ingest.py's) as
``POST /v1/memory/documents:batch`` of 100 from one client, alternating which goes first. Printed per server:
the median documents per second and server CPU milliseconds per document, and the median of the rounds' ratios
(now / REF).

``--stub``: both servers' embedder is replaced by a stand-in that hashes each text to a vector (~10 µs a text),
so the figures are the route's own cost — parsing, validation, planning, the store, revisions and the audit —
without the model's ~3 ms a text, which otherwise hides a change of the route in the rounds' noise.

Run: ``.venv/bin/python bench/ingest_ab.py REF [--rounds 8] [--stub]``. Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, header, use_repo_paths
from local_server import Server, free_port
from memory_ingest import cpu_seconds, ingest, turns

use_repo_paths()

STUB = (  # bench-only: an embedder answering at once, so that the route's own cost shows
    "import hashlib\nimport numpy as np\nfrom mneme_local import embedder\n"
    "def embed(self, texts):\n"
    "    digests = (np.frombuffer(hashlib.sha512(t.encode()).digest() * 6, dtype=np.uint8) for t in texts)\n"
    "    vectors = (d[:384].astype(np.float32) - 127.5 for d in digests)\n"
    "    return [(v / np.linalg.norm(v)).tolist() for v in vectors]\n"
    "embedder.LocalEmbedder.embed = embed\n"
)


def _checkout(ref: str, into: Path) -> Path:
    """``ref``'s tree under ``into`` (the server reads the state machine, the console and the template too)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def _server(name: str, root: Path, port: int, *, stub: bool) -> Server:
    paths = [str(root / "layers" / "mneme"), str(root / "local"), str(root / "functions" / "run")]
    code = f"import sys\nsys.path[:0] = {paths!r}\n" + (STUB if stub else "")
    return Server(name, ["-c", code + "from mneme_local import server\nsys.exit(server.main())\n"], port)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--stub", action="store_true", help="a stand-in embedder: the route's own cost")
    args = parser.parse_args()
    size = 2_000 if args.stub else 1_000
    header(f"batch ingest: {args.ref} against the working tree ({args.rounds} rounds of {size:,} turns each)")
    with tempfile.TemporaryDirectory(prefix="mneme-ingest-ab-") as folder:
        servers = {
            args.ref: _server("ingest-ref", _checkout(args.ref, Path(folder)), free_port(), stub=args.stub),
            "now": _server("ingest-now", ROOT, free_port(), stub=args.stub),
        }
        try:
            for server in servers.values():  # the model loaded, the caches warm
                ingest(server, server.token, "vector.user.alice.warmup", turns(300, 99), batch=True)
            rates: dict[str, list[float]] = {name: [] for name in servers}
            cpu: dict[str, list[float]] = {name: [] for name in servers}
            for round_ in range(args.rounds):
                order = list(servers.items())
                for name, server in order if round_ % 2 == 0 else reversed(order):
                    texts = turns(size, 700 + round_)
                    before = cpu_seconds(server)
                    seconds = ingest(server, server.token, f"vector.user.alice.r{round_}", texts, batch=True)
                    rates[name].append(size / seconds)
                    cpu[name].append((cpu_seconds(server) - before) * 1000 / size)
        finally:
            for server in servers.values():
                server.stop()
    for name in servers:
        print(
            f"  {name:<12} median {statistics.median(rates[name]):8.1f} documents/s (min {min(rates[name]):.1f},"
            f" max {max(rates[name]):.1f});  server CPU {statistics.median(cpu[name]):.3f} ms a document"
        )
    ratios = [now / ref for now, ref in zip(rates["now"], rates[args.ref], strict=True)]
    cpu_ratios = [now / ref for now, ref in zip(cpu["now"], cpu[args.ref], strict=True)]
    print(
        f"  now / {args.ref}: documents/s {statistics.median(ratios):.3f} (rounds {min(ratios):.3f}-{max(ratios):.3f}),"
    )
    print(
        f"    server CPU a document {statistics.median(cpu_ratios):.3f} ({min(cpu_ratios):.3f}-{max(cpu_ratios):.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
