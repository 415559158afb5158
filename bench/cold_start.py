"""Measure 1 — cold start as Lambda sees it: a fresh Python 3.13 process answering ``events/http-post-run.json``.

The variants run in fresh ``python3.13`` processes (pyenv ``3.13.0``), interleaved: N rounds of one run of
each, every other round in reverse order, with what Lambda gives them:

* code: the layer built by ``layers/mneme/Makefile`` (the same recipe ``sam build`` runs: pinned wheels, Babel
  pruned, unchecked-hash python3.13 bytecode), for ``manylinux2014_x86_64`` so that it loads on this machine;
  boto3/botocore (the runtime's, ``requirements/dev.txt``'s pin) installed beside it and precompiled, as the
  Lambda runtime ships them; the function's ``app.py`` as deployed (no bytecode: ``/var/task`` is read-only,
  ``PYTHONDONTWRITEBYTECODE=1``);
* environment: template.yaml's (``Globals`` + ``RunFunction``: tables, queue URL, state machine ARN,
  OpenSearch endpoint and service, embedding model, Powertools names) plus the Lambda runtime's
  (``AWS_LAMBDA_FUNCTION_NAME``, ``_X_AMZN_TRACE_ID`` — tracing active —, ``AWS_XRAY_DAEMON_ADDRESS``, …);
* AWS: a moto server (DynamoDB tables from template.yaml, the SQS queue) and a Bedrock stand-in answering
  ``InvokeModel`` with a Titan-shaped embedding; ``AWS_ENDPOINT_URL*`` point at them.

Variants:

* ``plain, botocore OS``: the baseline of the headline ratio: ``import boto3``, create the same clients
  (dynamodb, bedrock-runtime, and the OpenSearch client mneme uses: botocore's ``SigV4Auth`` and
  ``URLLib3Session``), then make the same AWS calls the mneme handler made for this event (recorded from one
  untimed mneme run, replayed in order, one after the other) — the same calls with the same clients, so
  that the ratio shows what mneme itself costs;
* ``plain boto3 handler``: the same with opensearch-py's SigV4 client (``AWSV4SignerAuth``, ``requests``),
  a heavier import mneme does not make: shown, not the headline;
* ``framework floor``: that plain handler plus the stack mneme mandates (pydantic, Powertools' Logger, Metrics,
  Tracer and its validating HTTP resolver with one route and one body model), the same calls inside the route,
  each in an X-Ray subsegment of a Tracer that patches nothing (as mneme's): what a handler on this stack
  pays with the libraries imported as their packages say — mneme defers the re-exports of three packages'
  ``__init__`` (``mneme.lazy_packages``), so it can cost less than this "floor";
* ``mneme handler``: ``import app``; ``app.lambda_handler(event)`` — the event's body as shipped, a fresh
  idempotency key per process (so every run is a first request, never a replay).

The measured agent (``researcher``, offline model provider: Bedrock Converse has no stand-in) has memory
auto-read off, since no k-NN server can run here (docs/performance.md); the OpenSearch client is still created.
Printed: wall time (fork to exit) median / min / max, peak RSS, the host's load average during the rounds
(a shared host: the variants are interleaved so that each round's ratio shares its moment's load), the ratio
of the medians and the median of each round's own ratio with its quartiles and range (mneme / ``plain,
botocore OS``; the goal ≤ 1.3× counts as met only when both are), where mneme's time goes (import, runtime
build, the request) and ``python -X importtime``'s largest imports.
Run: ``.venv/bin/python bench/cold_start.py [N]``.
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import LAYER, PY, ROOT, RUN_FUNCTION, Skip, header, median, verdict
from _lambda import FRAMEWORK, MNEME, PLAIN, PLAIN_BOTOCORE, RECORD, REPORT, lambda_env, start_aws

WORK = Path(os.environ.get("MNEME_BENCH_DIR") or "/tmp/mneme-bench-cold")  # a shared host: one folder each
PY313 = "python3.13"
BASELINE = "plain, botocore OS"  # the headline's denominator: the same AWS calls with the same clients
LAMBDA_CPU_FACTOR = 1769 / 1024  # template MemorySize 1024: an invocation gets 0.58 vCPU, the init phase a full one


def python313() -> dict[str, str]:
    """The real python3.13 binary (a pyenv shim would add its own start-up to every sample)."""
    global PY313  # noqa: PLW0603 - resolved once per run
    env = {**os.environ, "PYENV_VERSION": "3.13.0"}
    probe = "import sys; print(sys.version); print(sys.executable)"
    try:
        out = subprocess.run([PY313, "-c", probe], env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise Skip("python3.13 is not installed (pyenv 3.13.0, see shared/reference/local-testing.md)") from None
    if out.returncode != 0 or not out.stdout.startswith("3.13"):
        raise Skip(f"python3.13 does not start here: {out.stderr.strip()[-300:]}")
    PY313 = out.stdout.splitlines()[1]
    return env


def build_code(env313: dict[str, str]) -> tuple[Path, Path]:
    """The layer (layers/mneme/Makefile, x86_64 wheels) and the runtime's boto3, both with 3.13 bytecode."""
    layer = WORK / "layer"
    shutil.rmtree(layer, ignore_errors=True)
    make_env = {**env313, "PYENV_VERSION": "3.11.7:3.13.0"}
    cmd = ["make", "-s", "-C", str(LAYER), "build-MnemeLayer", f"ARTIFACTS_DIR={layer}"]
    cmd += [f"PYTHON={PY}", "PLATFORM=manylinux2014_x86_64"]
    built = subprocess.run(cmd, env=make_env, capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise RuntimeError(f"the layer build failed:\n{built.stdout[-2000:]}\n{built.stderr[-2000:]}")
    runtime = WORK / "runtime"
    pins = [line for line in (ROOT / "requirements" / "dev.txt").read_text().splitlines()]
    wanted = [p for p in pins if p.split("==")[0].lower() in ("boto3", "botocore", "s3transfer", "jmespath")]
    wanted += [p for p in pins if p.split("==")[0].lower() in ("python-dateutil", "six", "urllib3")]
    # the plain handler's (and the floor's) OpenSearch client; the layer has none (mneme signs through botocore)
    wanted += [p for p in pins if p.split("==")[0].lower() in ("opensearch-py", "events")]
    stamp = runtime / ".pins"
    if not stamp.exists() or stamp.read_text() != "\n".join(wanted):
        shutil.rmtree(runtime, ignore_errors=True)
        subprocess.run(
            [PY, "-m", "pip", "install", "-qq", "--no-deps", "--no-compile", "--target", str(runtime), *wanted],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [PY313, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(runtime)],
            env=env313,
            check=True,
            capture_output=True,
        )
        stamp.write_text("\n".join(wanted))
    return layer / "python", runtime


def run(code: str, env: dict[str, str], *args: str) -> tuple[float, dict[str, Any]]:
    """(seconds from spawning the process to the response being ready, the child's report).

    ``-S``: no site module — this machine's interpreter carries a ``.pth`` that imports certifi at start-up,
    which Lambda's does not. The process's own exit (module teardown) is not part of a cold start."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    spawned = time.time()
    out = subprocess.run([PY313, "-S", *args, "-c", code], env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"a cold-start child failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    report: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    # CPU seconds of the whole process (exit included): far less sensitive than wall time to a loaded machine
    report["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if "init_done" in report:  # the two Lambda phases: spawn → handler module imported; → response ready
        report["init_phase"] = report["init_done"] - spawned
        report["invoke_phase"] = report["ready"] - report["init_done"]
    return float(report.get("ready", time.time())) - spawned, report


def record_calls(env: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    path = WORK / "calls.pickle"
    dump = "\nwith open(os.environ['BENCH_CALLS'], 'wb') as f:\n    pickle.dump(calls, f)\n"
    run(RECORD + MNEME + dump, {**env, "BENCH_CALLS": str(path), "BENCH_KEY": str(uuid.uuid4())})
    with path.open("rb") as file:
        calls: list[tuple[str, str, dict[str, Any]]] = pickle.load(file)
    return calls


def importtime(env: dict[str, str], top: int = 12) -> None:
    out = subprocess.run(
        [PY313, "-S", "-X", "importtime", "-c", MNEME],
        env={**env, "BENCH_KEY": str(uuid.uuid4())},
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, int, str]] = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, cumulative_us, name = (part.strip() for part in line[len("import time:") :].split("|"))
            rows.append((int(self_us), int(cumulative_us), name.strip()))
    print(f"  python -X importtime (mneme): {len(rows)} modules, {sum(r[0] for r in rows) / 1000:.1f} ms self time")
    groups: dict[str, int] = {}
    for self_us, _c, name in rows:
        groups[name.split(".")[0]] = groups.get(name.split(".")[0], 0) + self_us
    print("    self time by top-level package: " + ", ".join(
        f"{pkg} {us / 1000:.1f}" for pkg, us in sorted(groups.items(), key=lambda kv: -kv[1])[:top]
    ) + " (ms)")  # fmt: skip
    print("    largest cumulative: " + ", ".join(
        f"{name} {c / 1000:.1f}" for _s, c, name in sorted(rows, key=lambda r: -r[1])[:top]
    ) + " (ms)")  # fmt: skip


def cpu_time(samples: dict[str, list[tuple[float, dict[str, Any]]]], key: str, what: str) -> dict[str, float]:
    """Print and return each variant's median CPU seconds (``key`` of the children's reports)."""
    medians = {name: median([r[key] for _w, r in rows]) for name, rows in samples.items()}
    print(
        f"    CPU time {what}: "
        + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in medians.items())
        + f" → mneme / {BASELINE} {medians['mneme handler'] / medians[BASELINE]:.2f}×"
    )
    return medians


def main(n: int = 10) -> dict[str, float]:
    header(f"cold start as Lambda sees it (fresh python3.13 processes, alternating, N={n} each)")
    env313 = python313()
    WORK.mkdir(parents=True, exist_ok=True)
    layer, runtime = build_code(env313)
    moto, bedrock, urls = start_aws()
    try:
        env = lambda_env(urls, [RUN_FUNCTION, layer, runtime])
        calls = record_calls(env)
        counts: dict[str, int] = {}
        for service, operation, _params in calls:
            counts[f"{service}:{operation}"] = counts.get(f"{service}:{operation}", 0) + 1
        print(f"  the mneme handler's AWS calls for this event (replayed by the plain handler): {counts}")
        replay = {**env, "BENCH_CALLS": str(WORK / "calls.pickle")}
        variants = {  # mneme beside its baseline; every other round in reverse order, so neither is always first
            BASELINE: (PLAIN_BOTOCORE + REPORT, replay),
            "mneme handler": (MNEME + REPORT, env),
            "plain boto3 handler": (PLAIN + REPORT, replay),
            "framework floor": (FRAMEWORK + REPORT, replay),
        }
        for code, venv in variants.values():  # once each, untimed: the page cache
            run(code, {**venv, "BENCH_KEY": str(uuid.uuid4())})
        samples: dict[str, list[tuple[float, dict[str, Any]]]] = {name: [] for name in variants}
        load: list[float] = []  # the 1-minute load average at each round's start
        for index in range(n):
            load.append(os.getloadavg()[0])
            for name, (code, venv) in list(variants.items())[:: -1 if index % 2 else 1]:
                samples[name].append(run(code, {**venv, "BENCH_KEY": str(uuid.uuid4())}))
        print(
            f"  {'variant':<22}{'cold median':>12}{'min':>9}{'max':>9}{'init ph.':>10}{'invoke ph.':>11}"
            f"{'Lambda est.':>12}{'RSS':>8}"
        )
        medians: dict[str, float] = {}
        estimates: dict[str, float] = {}
        for name, rows in samples.items():
            walls = [w for w, _r in rows]
            init_phase = median([r["init_phase"] for _w, r in rows])
            invoke_phase = median([r["invoke_phase"] for _w, r in rows])
            medians[name] = median(walls)
            estimates[name] = init_phase + invoke_phase * LAMBDA_CPU_FACTOR
            print(
                f"  {name:<22}{median(walls) * 1000:>9.1f} ms{min(walls) * 1000:>6.0f} ms{max(walls) * 1000:>6.0f} ms"
                f"{init_phase * 1000:>7.0f} ms{invoke_phase * 1000:>8.0f} ms{estimates[name] * 1000:>9.0f} ms"
                f"{median([r['hwm_kib'] for _w, r in rows]) / 1024:>5.0f} MiB"
            )
        for name, rows in samples.items():
            parts = {key: median([r[key] for _w, r in rows]) * 1000 for key in ("import", "init", "request")}
            print(
                f"    {name}: imports {parts['import']:.0f} ms, settings + clients {parts['init']:.0f} ms, "
                f"the request {parts['request']:.0f} ms (inside the process)"
            )
        ready_cpu = cpu_time(samples, "cpu_ready", "until the response (user + system, every thread)")
        cpu = cpu_time(samples, "cpu", "per process (user + system, exit included)")
        print("  cold = spawn → response ready (interpreter start included, exit excluded); init phase = spawn →")
        print("  handler module imported (the plain handler creates its clients at module level, as usual);")
        print(f"  Lambda est. = init + invoke × {LAMBDA_CPU_FACTOR:.2f} (1,024 MB = 0.58 vCPU per invoke, init full)")
        print(
            f"  host load (1-min average at each round's start, {os.cpu_count()} cores): median "
            f"{median(load):.1f}, {min(load):.1f}–{max(load):.1f}"
        )
        figures = ratios(samples, medians, estimates, ready_cpu["mneme handler"] / ready_cpu[BASELINE])
        importtime(env)
        return {
            **figures,
            "cpu_ratio": cpu["mneme handler"] / cpu[BASELINE],
            "cpu_ready_ratio": ready_cpu["mneme handler"] / ready_cpu[BASELINE],
            "load": median(load),
            **{f"{k}_ms": v * 1000 for k, v in medians.items()},
        }
    finally:
        moto.stop()
        bedrock.shutdown()


def ratios(
    samples: dict[str, list[tuple[float, dict[str, Any]]]], medians: dict[str, float], estimates: dict[str, float],
    cpu_ratio: float,
) -> dict[str, float]:  # fmt: skip
    """Print and return the ratios; the headline is mneme over the plain handler with the same clients."""
    ratio = medians["mneme handler"] / medians[BASELINE]
    # each round ran the variants one after the other, seconds apart: a round's ratio shares the host's
    # load of that moment, which the ratio of two medians (of samples minutes apart) does not
    pairs = zip(samples["mneme handler"], samples[BASELINE], strict=True)
    rounds = sorted(m / p for (m, _r), (p, _q) in pairs)
    paired = median(rounds)
    quartiles = (rounds[len(rounds) // 4], rounds[(3 * len(rounds)) // 4])
    print(
        f"  HEADLINE mneme / {BASELINE} (same AWS calls, same clients): {ratio:.2f}× the medians "
        f"({medians['mneme handler'] * 1000:.1f} vs {medians[BASELINE] * 1000:.1f} ms); the rounds' own ratios: "
        f"median {paired:.2f}×, quartiles {quartiles[0]:.2f}–{quartiles[1]:.2f}, range {rounds[0]:.2f}–{rounds[-1]:.2f}"
    )
    met = verdict(ratio <= 1.3 and paired <= 1.3)  # beside it the CPU time, which a loaded host moves less
    print(f"    → goal ≤ 1.3× (both): {met} (CPU until the response: {cpu_ratio:.2f}×)")
    lambda_ratio = estimates["mneme handler"] / estimates[BASELINE]
    print(f"  the same with Lambda's CPU split (estimate, not measured on Lambda): {lambda_ratio:.2f}×")
    heavier = medians["mneme handler"] / medians["plain boto3 handler"]
    print(f"  mneme / the plain handler with opensearch-py (a heavier client than mneme's): {heavier:.2f}×")
    floor = medians["framework floor"] / medians[BASELINE]
    own = medians["mneme handler"] / medians["framework floor"]
    print(f"  the stack alone (framework floor / {BASELINE}): {floor:.2f}×; mneme / floor: {own:.2f}×")
    return {
        "ratio": ratio,
        "paired_ratio": paired,
        "lambda_ratio": lambda_ratio,
        "opensearch_py_ratio": heavier,
        "floor_ratio": floor,
        "over_floor_ratio": own,
    }


def bench(full: bool) -> dict[str, float]:
    """``make bench``: N = 10 alternating runs per variant (30 with ``--full``)."""
    return main(30 if full else 10)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
