"""Measure 7 — local server latency: ``make run``'s server over real HTTP/1.1 keep-alive connections.

Two servers, each a fresh ``python -m mneme_local.server`` on its own data folder, measured alternately in
rounds over one keep-alive connection each (as a browser, curl --next or an SDK reuses its connection):

* ``as shipped``: the server as it is;
* ``before the fix``: the same server with Nagle's algorithm on and unbuffered writes (status line and
  headers in one write, the body in a second), i.e. issue 14's ~40 ms delayed-ACK stall, for comparison.

Requests: ``GET /v1/health`` (no token), and a fast-path ``POST /v1/runs`` with memory off (offline model,
an agent created first). p50 / p95 per request. Port: ``MNEME_BENCH_PORT`` (and the next one), else free ports.
Run: ``.venv/bin/python bench/local_server.py [requests per round]``.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import LAYER, LOCAL, ROOT, RUN_FUNCTION, header, median, pct, use_repo_paths, verdict

ROUNDS = 5
BEFORE_FIX = (  # bench-only: restores the old socket behaviour, then runs the real server
    "import sys\nfrom mneme_local import server\n"
    "server.LocalHandler.disable_nagle_algorithm = False\nserver.LocalHandler.wbufsize = 0\n"
    "sys.exit(server.main())\n"
)
AGENT = {"label": "Echo", "description": "answers", "model": {"provider": "offline", "model_id": "offline"}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed_call(
    connection: http.client.HTTPConnection, token: str, method: str, path: str, body: Any = None, *, label: str = ""
) -> tuple[float, bytes]:
    """One JSON request on a keep-alive connection: (seconds to the whole answer, its body); a status of 300
    or more raises, so a benchmark that meets an error fails instead of timing it."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    start = time.perf_counter()
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - start
    if response.status >= 300:
        raise RuntimeError(f"{label}{method} {path} answered {response.status}: {data[:300]!r}")
    return elapsed, data


class Server:
    def __init__(self, name: str, code: list[str], port: int) -> None:
        self.name, self.port = name, port
        self.data = Path(tempfile.mkdtemp(prefix=f"mneme-bench-server-{name.replace(' ', '-')}-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
        env.update(
            PYTHONPATH=os.pathsep.join(map(str, (LAYER, LOCAL, RUN_FUNCTION))),
            MNEME_DATA_DIR=str(self.data),
            MNEME_PORT=str(port),
            MNEME_QUIET="1",
            # the benches start hundreds of runs a minute as one user: the per-user limit (60 a minute by
            # default, a 429 after it) is what they would measure otherwise
            MNEME_RUNS_PER_USER_PER_MINUTE="0",
            POWERTOOLS_LOG_LEVEL="WARNING",
            POWERTOOLS_METRICS_DISABLED="true",
        )
        self.log = (self.data / "server.log").open("wb")
        self.process = subprocess.Popen([sys.executable, *code], cwd=ROOT, env=env, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{name} server exited: {(self.data / 'server.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        use_repo_paths()
        from mneme_local.token import issue

        self.token = issue(self.data, "alice")
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.call("PUT", "/v1/agents/echo", AGENT)

    def call(self, method: str, path: str, body: Any = None) -> float:
        elapsed, _data = timed_call(self.connection, self.token, method, path, body, label=f"{self.name}: ")
        return elapsed

    def stop(self) -> None:
        self.connection.close()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


def main(per_round: int = 100) -> dict[str, float]:
    header(f"local server latency (keep-alive, {ROUNDS} alternating rounds × {per_round} requests per kind)")
    base = int(os.environ.get("MNEME_BENCH_PORT") or 0)
    ports = (base, base + 1) if base else (free_port(), free_port())
    servers = [
        Server("as shipped", ["-m", "mneme_local.server"], ports[0]),
        Server("before the fix", ["-c", BEFORE_FIX], ports[1]),
    ]
    run = {"agent_id": "echo", "input": "hello", "memory": {"enabled": False}}
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        for server in servers:  # warm: imports, first requests, caches
            for _ in range(10):
                server.call("GET", "/v1/health")
                server.call("POST", "/v1/runs", run)
        for _ in range(ROUNDS):
            for server in servers:
                for kind, method, path, body in (
                    ("GET /v1/health", "GET", "/v1/health", None),
                    ("POST /v1/runs (memory off)", "POST", "/v1/runs", run),
                ):
                    n = per_round if kind.startswith("GET") else per_round // 2
                    samples.setdefault((server.name, kind), []).extend(
                        server.call(method, path, body) for _ in range(n)
                    )
    finally:
        for server in servers:
            server.stop()
    result: dict[str, float] = {}
    print(f"  {'server':<16}{'request':<30}{'p50':>10}{'p95':>10}{'n':>6}")
    for (name, kind), values in samples.items():
        p50 = median(values)
        result[f"{name}:{kind}"] = p50 * 1000
        print(f"  {name:<16}{kind:<30}{p50 * 1000:>7.2f} ms{pct(values, 95) * 1000:>7.2f} ms{len(values):>6}")
    for kind in ("GET /v1/health", "POST /v1/runs (memory off)"):
        p50 = result[f"as shipped:{kind}"]
        print(f"  goal p50 ≤ 10 ms — {kind}: {p50:.2f} ms → {verdict(p50 <= 10)}")
    return result


def bench(full: bool) -> dict[str, float]:
    return main(200 if full else 100)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
