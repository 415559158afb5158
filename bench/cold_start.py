"""Measure 1 — cold start: wall time and peak RSS of fresh interpreters, measured alternately.

Variants (each a fresh ``python`` process; N runs each, interleaved A, B, C, … A, B, C, …):

* ``baseline``        import boto3, create a bedrock-runtime and a dynamodb client (the issue's baseline)
* ``baseline+call``   the same plus one DynamoDB GetItem against the local moto server (a minimal handler
                      that does one call, to compare with a first real request)
* ``import app``      ``import app`` (functions/run + layers/mneme on the path): the run handler module
* ``init``            ``import app`` + the per-container runtime (settings, every boto3 client created, no call)
* ``first request``   ``import app`` + a first ``/v1/health`` + a first real ``POST /v1/runs`` through
                      ``lambda_handler`` (offline model provider; DynamoDB calls go to a moto server)

Plus ``python -X importtime`` of the ``first request`` path: the top 10 imports by cumulative and by self
time. Run: ``.venv/bin/python bench/cold_start.py [N]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import LAYER, PY, ROOT, RUN_FUNCTION, header, median, use_repo_paths, verdict

BASELINE = (
    "import boto3\n"
    "boto3.client('bedrock-runtime', region_name='us-east-1')\n"
    "boto3.client('dynamodb', region_name='us-east-1')\n"
)
BASELINE_CALL = (
    BASELINE.replace("boto3.client('dynamodb'", "d = boto3.client('dynamodb'")
    + "d.get_item(TableName=__import__('os').environ['MNEME_TABLE'], Key={'PK': {'S': 'x'}, 'SK': {'S': 'y'}})\n"
)
IMPORT_APP = "import app\n"
INIT = "import app\napp._get_runtime()\n"
FIRST_REQUEST = (
    "import json, os, app\n"
    "r = app.lambda_handler({'rawPath': '/v1/health', 'requestContext': {'http': {'method': 'GET'}}}, None)\n"
    "assert r['statusCode'] == 200, r\n"
    "r = app.lambda_handler(json.loads(os.environ['BENCH_EVENT']), None)\n"
    "assert r['statusCode'] == 200, r\n"
)
VARIANTS = {
    "baseline": BASELINE,
    "baseline+call": BASELINE_CALL,
    "import app": IMPORT_APP,
    "init": INIT,
    "first request": FIRST_REQUEST,
}
TABLES = {"MainTable": "mneme-bench", "AuditTable": "mneme-bench-audit"}


def _event() -> dict[str, Any]:
    event: dict[str, Any] = json.loads((ROOT / "events" / "http-post-run.json").read_text())
    event["headers"].pop("idempotency-key", None)
    event["body"] = json.dumps({"agent_id": "bench", "input": "What do you know about green tea?"})
    return event


def start_moto() -> tuple[Any, str]:
    """A moto server with the template's tables and one agent (offline model) for alice."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1")
    use_repo_paths()
    import boto3
    from tests.support.sam_template import create_tables

    from mneme.adapters.config_store import ItemConfigStore
    from mneme.adapters.dynamo_items import DynamoItemTable
    from mneme.adapters.items import MAIN_SCHEMA
    from mneme.models.agent import Agent

    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    create_tables(client, TABLES)
    config = ItemConfigStore(DynamoItemTable(client, TABLES["MainTable"], MAIN_SCHEMA))
    config.put_agent(Agent(agent_id="bench", owner="alice", label="Bench", model={"provider": "offline"}))
    return server, endpoint


def child_env(endpoint: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MNEME_", "AWS_"))}
    env.update(
        PYTHONPATH=f"{RUN_FUNCTION}{os.pathsep}{LAYER}",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_REGION="us-east-1",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=endpoint,
        MNEME_MODE="aws",
        MNEME_TABLE=TABLES["MainTable"],
        MNEME_AUDIT_TABLE=TABLES["AuditTable"],
        MNEME_MODEL_PROVIDER="offline",
        POWERTOOLS_METRICS_NAMESPACE="mneme",
        BENCH_EVENT=json.dumps(_event()),
    )
    return env


_HWM = "\nfor _l in open('/proc/self/status'):\n    if _l.startswith('VmHWM:'):\n        print(_l.split()[1])\n"


def measure(code: str, env: dict[str, str], python: str = PY) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one fresh interpreter running ``code``."""
    # The peak RSS is the child's own VmHWM (ru_maxrss of a forked child counts the parent's pages too);
    # reading /proc adds well under a millisecond after the measured work.
    start = time.perf_counter()
    out = subprocess.run([python, "-c", code + _HWM], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child failed ({out.returncode}):\n{code}\n{out.stderr[-3000:]}")
    hwm_kib = int(out.stdout.strip().splitlines()[-1])
    return wall, hwm_kib / 1024


def importtime(code: str, env: dict[str, str], top: int = 10) -> None:
    out = subprocess.run([PY, "-X", "importtime", "-c", code], env=env, capture_output=True, text=True, check=True)
    rows: list[tuple[int, int, str]] = []
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = (part.strip() for part in line[len("import time:") :].split("|"))
        rows.append((int(self_us), int(cumulative_us), name.strip()))
    total = sum(r[0] for r in rows)
    print(f"  python -X importtime of the first-request path: {len(rows)} modules, {total / 1000:.1f} ms self total")
    print("  top 10 by cumulative time (ms, module):")
    for row in sorted(rows, key=lambda r: -r[1])[:top]:
        print(f"    {row[1] / 1000:8.1f}  {row[2]}")
    print("  top 10 by self time (ms, module):")
    for row in sorted(rows, key=lambda r: -r[0])[:top]:
        print(f"    {row[0] / 1000:8.1f}  {row[2]}")
    groups: dict[str, int] = {}
    for row in rows:
        top_pkg = row[2].split(".")[0]
        groups[top_pkg] = groups.get(top_pkg, 0) + row[0]
    print("  self time by top-level package (ms), top 10:")
    for pkg, us in sorted(groups.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {us / 1000:8.1f}  {pkg}")


def main(n: int = 10) -> dict[str, Any]:
    header(f"cold start (fresh interpreters, alternating, N={n} each)")
    server, endpoint = start_moto()
    try:
        env = child_env(endpoint)
        for code in VARIANTS.values():  # warm the OS page cache and the .pyc files once, untimed
            measure(code, env)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
        for _ in range(n):
            for name, code in VARIANTS.items():
                samples[name].append(measure(code, env))
        base_wall = median([s[0] for s in samples["baseline"]])
        base_rss = median([s[1] for s in samples["baseline"]])
        print(f"  {'variant':<16}{'wall median':>13}{'min':>10}{'max':>10}{'× base':>9}{'peak RSS':>12}{'× base':>9}")
        result: dict[str, Any] = {}
        for name, rows in samples.items():
            walls, rss = [s[0] for s in rows], [s[1] for s in rows]
            w, r = median(walls), median(rss)
            result[name] = {"wall_ms": w * 1000, "rss_mib": r}
            print(
                f"  {name:<16}{w * 1000:>10.1f} ms{min(walls) * 1000:>7.0f} ms{max(walls) * 1000:>7.0f} ms"
                f"{w / base_wall:>8.2f}×{r:>8.1f} MiB{r / base_rss:>8.2f}×"
            )
        for name in ("import app", "init", "first request"):
            ratio = result[name]["wall_ms"] / result["baseline"]["wall_ms"]
            print(f"  goal ≤ 1.3× baseline wall time — {name}: {ratio:.2f}× → {verdict(ratio <= 1.3)}")
        ratio = result["first request"]["wall_ms"] / result["baseline+call"]["wall_ms"]
        print(f"  first request vs baseline+call (both make real calls): {ratio:.2f}×")
        importtime(FIRST_REQUEST, env)
        return result
    finally:
        server.stop()


def bench(full: bool) -> dict[str, Any]:
    """``make bench``: N = 10 alternating runs per variant (20 with ``--full``)."""
    return main(20 if full else 10)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
