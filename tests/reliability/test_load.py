"""Load (issue 7 §5): a bounded load test against the local server on loopback — 200 concurrent runs of
20 users, every 4th delegating through the state machine. Checks: 0 errors, every run audited, no
cross-user data. Prints throughput and p95 latency (local figures, noisy machine).

It takes about 25 s here, so it runs in ``make test`` too (and in ``make reliability``).
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mneme_local.token import issue
from tests.functional.local.support import LocalServer
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER

pytestmark = [pytest.mark.slow]
USERS = 20
RUNS_PER_USER = 10
WORKERS = USERS  # one client per user, each starting its 10 runs back to back
AGENTS = {
    "echo": {"label": "Echo", "model": {"provider": "offline", "model_id": "offline"}},
    "boss": {
        "label": "Boss",
        "model": {"provider": "offline", "model_id": "offline"},
        "tools": ["delegate-to-agent"],
        "delegates": ["echo"],
    },
}


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[94] if len(values) > 1 else values[0]


def test_200_concurrent_runs_of_20_users_on_the_local_server(tmp_path: Path, figures: Figures) -> None:
    server = LocalServer(LEDGER.data_dir("load server", tmp_path / "data")).start()
    try:
        tokens = {f"user{u:02d}": issue(server.data_dir, f"user{u:02d}") for u in range(USERS)}
        for token in tokens.values():
            for agent_id, body in AGENTS.items():
                assert server.request("PUT", f"/v1/agents/{agent_id}", body, token=token).status == 200

        def one(job: tuple[str, int]) -> dict[str, Any]:
            user, n = job
            marker = f"marker-{user}-{n}"
            text = f"/delegate echo :: {marker}" if n % 4 == 0 else marker
            agent = "boss" if n % 4 == 0 else "echo"
            started = time.monotonic()
            try:
                reply = server.request("POST", "/v1/runs", {"agent_id": agent, "input": text}, token=tokens[user])
            except OSError as exc:  # e.g. a connection reset by the server's listen backlog
                return {"user": user, "marker": marker, "status": repr(exc), "run": {}, "answered": 0.0,
                        "finished": 0.0, "delegating": agent == "boss"}  # fmt: skip
            answered = time.monotonic() - started
            body = reply.json() or {}
            run: dict[str, Any] = body
            while reply.status == 202 and run.get("status") not in ("succeeded", "failed", "cancelled"):
                time.sleep(0.1)
                if time.monotonic() - started > 120:
                    break
                run = server.request("GET", f"/v1/runs/{body['run_id']}", token=tokens[user]).json()
            return {
                "user": user,
                "marker": marker,
                "status": reply.status,
                "run": run,
                "answered": answered,
                "finished": time.monotonic() - started,
                "delegating": agent == "boss",
            }

        # When 200 runs of 20 users hit the server, WORKERS at a time
        jobs = [(user, n) for n in range(RUNS_PER_USER) for user in tokens]
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            results = list(pool.map(one, jobs))
        elapsed = time.monotonic() - began

        # Then: no errors, each run is its user's own and carries its own input, and each run is audited
        errors = [r for r in results if r["status"] not in (200, 202) or r["run"].get("status") != "succeeded"]
        cross = []
        unaudited = []
        for r in results:
            run_id = r["run"].get("run_id")
            if not run_id:
                continue
            own = server.request("GET", f"/v1/runs/{run_id}", token=tokens[r["user"]])
            if own.status != 200 or r["marker"] not in (own.json().get("output") or ""):
                cross.append((r["user"], run_id, own.status))
            records = server.request("GET", f"/v1/audit?run_id={run_id}", token=tokens[r["user"]])
            if records.status != 200 or not records.json()["records"]:
                unaudited.append(run_id)
        figures.add("load runs", len(results))
        figures.add("load delegating runs", sum(r["delegating"] for r in results))
        figures.add("load errors", len(errors))
        figures.add("load cross-user runs", len(cross))
        figures.add("load runs without audit", len(unaudited))
        latencies = [r["answered"] for r in results]
        finished = [r["finished"] for r in results]
        figures.set("load wall time", f"{elapsed:.1f} s")
        figures.set("load throughput", f"{len(results) / elapsed:.1f} runs/s (finished runs, {WORKERS} clients)")
        figures.set(
            "load p95 POST latency",
            f"{_p95(latencies) * 1000:.0f} ms (median {statistics.median(latencies) * 1000:.0f} ms)",
        )
        figures.set("load p95 time to finished", f"{_p95(finished) * 1000:.0f} ms")
        assert not errors, errors[:5]
        assert not cross, cross[:5]
        assert not unaudited, unaudited[:5]
    finally:
        server.stop()
