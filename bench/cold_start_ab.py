"""The cold start of the working tree against an earlier commit, side by side (not part of ``make bench``).

A change to the cold start is smaller than what the shared host moves between two runs, so it is measured
in one run: fresh python3.13 processes alternating the plain handler with mneme's clients (``plain, botocore
OS``, the headline's baseline), mneme as of ``REF`` and mneme as it is now, N times each (wall time, and each
process's CPU time until its response, which the host's load moves less), with everything else as in
``bench/cold_start.py`` (the layer built by its Makefile, template.yaml's environment, moto and the Bedrock
stand-in). ``REF``'s ``mneme`` package and its ``functions/run/app.py`` replace the working tree's in a copy
of the layer; the third-party packages are today's (an older ``mneme`` that imports opensearch-py finds it
beside boto3, where the plain handler's is).

Run: ``.venv/bin/python bench/cold_start_ab.py REF [N]`` (N = 12 by default). Exits non-zero on any failure.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cold_start as cs
from _common import ROOT, RUN_FUNCTION, header, median
from _lambda import MNEME, PLAIN_BOTOCORE, REPORT, lambda_env, start_aws


def _checkout(ref: str, layer: Path) -> tuple[Path, Path]:
    """A copy of ``layer`` with ``ref``'s mneme package, and a folder with ``ref``'s run handler."""
    target = cs.WORK / f"layer-{ref}"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(layer, target / "python", symlinks=True, ignore=shutil.ignore_patterns("mneme"))
    paths = ["layers/mneme/mneme", "functions/run/app.py"]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *paths], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target / "src", filter="data")
    shutil.move(target / "src" / "layers" / "mneme" / "mneme", target / "python" / "mneme")
    cmd = [cs.PY313, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(target / "python")]
    subprocess.run(cmd, env=cs.python313(), check=True, capture_output=True)
    return target / "python", target / "src" / "functions" / "run"


def main(ref: str, n: int = 12) -> dict[str, float]:
    header(f"cold start: mneme as of {ref} against the working tree (fresh python3.13 processes, N={n} each)")
    layer, runtime = cs.build_code(cs.python313())
    old_layer, old_function = _checkout(ref, layer)
    moto, bedrock, urls = start_aws()
    try:
        env = lambda_env(urls, [RUN_FUNCTION, layer, runtime])
        cs.record_calls(env)
        variants = {
            cs.BASELINE: (PLAIN_BOTOCORE + REPORT, {**env, "BENCH_CALLS": str(cs.WORK / "calls.pickle")}),
            f"mneme {ref}": (MNEME + REPORT, lambda_env(urls, [old_function, old_layer, runtime])),
            "mneme now": (MNEME + REPORT, env),
        }
        walls: dict[str, list[float]] = {name: [] for name in variants}
        cpus: dict[str, list[float]] = {name: [] for name in variants}
        for round_ in range(n + 1):  # the first round is untimed: the page cache
            for name, (code, venv) in variants.items():
                try:
                    wall, report = cs.run(code, {**venv, "BENCH_KEY": str(uuid.uuid4())})
                except RuntimeError as exc:
                    raise RuntimeError(f"{name}: {exc}") from exc
                if round_:
                    walls[name].append(wall)
                    cpus[name].append(report["cpu_ready"])
        plain, plain_cpu = median(walls[cs.BASELINE]), median(cpus[cs.BASELINE])
        for name, samples in walls.items():
            print(
                f"  {name:<22}median {median(samples) * 1000:7.1f} ms  min {min(samples) * 1000:6.1f}  "
                f"max {max(samples) * 1000:6.1f}  = {median(samples) / plain:.2f}× plain;  CPU "
                f"{median(cpus[name]) * 1000:6.1f} ms = {median(cpus[name]) / plain_cpu:.2f}×"
            )
        before, now = median(walls[f"mneme {ref}"]), median(walls["mneme now"])
        cpu_before, cpu_now = median(cpus[f"mneme {ref}"]), median(cpus["mneme now"])
        print(f"  mneme now / mneme {ref}: {now / before:.3f} ({(now - before) * 1000:+.1f} ms)")
        change = (cpu_now - cpu_before) * 1000
        print(f"  CPU time until the response (user + system): {cpu_now / cpu_before:.3f} ({change:+.1f} ms)")
        return {"before_ms": before * 1000, "now_ms": now * 1000, "plain_ms": plain * 1000}
    finally:
        moto.stop()
        bedrock.shutdown()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: bench/cold_start_ab.py REF [N]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12)
