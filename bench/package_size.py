"""Measure 2 — package size: the ``sam build`` artifacts (function + layer), unzipped, and bytecode.

* Builds with ``sam build`` into /tmp/mneme-build (``PYENV_VERSION=3.11.7:3.12.1:3.13.0``) unless
  ``.aws-sam/build`` exists; if the build fails, the layer alone is installed with ``pip install --target``
  (manylinux2014_aarch64, Python 3.13, binary wheels only) plus the ``mneme`` package.
* Sizes: everything as built, and without the packages the Lambda Python runtime already provides
  (boto3, botocore, s3transfer, jmespath, python-dateutil, six, urllib3) — the goal counts the latter.
* Bytecode: the size after ``python3.13 -m compileall`` (unchecked-hash .pyc) and the cold import of the
  run function's first-request path under Python 3.13 with and without the shipped .pyc, measured
  alternately (an x86_64 twin of the layer is installed for this, since the arm64 wheels do not load here).

Run: ``.venv/bin/python bench/package_size.py [N]``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import LAYER, PY, ROOT, RUN_FUNCTION, header, median, verdict

BUILD_DIR = Path("/tmp/mneme-build")
TWIN_DIR = Path("/tmp/mneme-bench-x86")
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "python_dateutil", "six", "urllib3")
PY313_ENV = {**os.environ, "PYENV_VERSION": "3.13.0"}
MIB = 1024 * 1024


def du(path: Path, *, skip_runtime: bool = False, suffix: str | None = None) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        rel = Path(root).relative_to(path).parts
        if skip_runtime and rel and _runtime_provided(rel[0] if rel[0] != "python" or len(rel) < 2 else rel[1]):
            continue
        for name in files:
            if skip_runtime and not rel and _runtime_provided(name):
                continue
            if suffix is None or name.endswith(suffix):
                total += (Path(root) / name).stat().st_size
    return total


def _runtime_provided(entry: str) -> bool:
    base = entry.split("-", maxsplit=1)[0].split(".", maxsplit=1)[0].lower()
    return base in RUNTIME_PROVIDED


def top_entries(path: Path, n: int = 10) -> list[tuple[int, str]]:
    sizes = [(du(entry) if entry.is_dir() else entry.stat().st_size, entry.name) for entry in path.iterdir()]
    return sorted(sizes, reverse=True)[:n]


def sam_build() -> Path | None:
    existing = ROOT / ".aws-sam" / "build"
    if existing.is_dir():
        print(f"  using the existing {existing}")
        return Path(existing)
    sam = ROOT / ".venv-sam" / "bin" / "sam"
    cmd = [str(sam), "build", "--build-dir", str(BUILD_DIR), "--cache-dir", "/tmp/mneme-build-cache"]
    env = {**os.environ, "PYENV_VERSION": "3.11.7:3.12.1:3.13.0", "SAM_CLI_TELEMETRY": "0"}
    print(f"  $ PYENV_VERSION=3.11.7:3.12.1:3.13.0 {' '.join(cmd[0:1])[len(str(ROOT)) + 1 :]} {' '.join(cmd[1:])}")
    had_aws_sam = (ROOT / ".aws-sam").exists()
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if not had_aws_sam:  # sam leaves a .aws-sam/deps cache in the work tree: not ours to keep
        shutil.rmtree(ROOT / ".aws-sam", ignore_errors=True)
    if out.returncode != 0:
        print(f"  sam build FAILED ({out.returncode}); last lines:\n" + "\n".join(out.stdout.splitlines()[-8:]))
        return None
    print(f"  sam build succeeded in {time.perf_counter() - start:.1f} s")
    return BUILD_DIR


def pip_layer(target: Path, platform: str) -> None:
    if target.exists():
        shutil.rmtree(target)
    cmd = [
        PY, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target),
        "--platform", platform, "--python-version", "3.13", "--only-binary=:all:",
        "-r", str(LAYER / "requirements.txt"),
    ]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True)
    shutil.copytree(LAYER / "mneme", target / "mneme", ignore=shutil.ignore_patterns("__pycache__"))


def compile313(path: Path) -> None:
    subprocess.run(
        ["python3.13", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(path)],
        env=PY313_ENV,
        check=False,  # a few vendored test files may not compile; compileall still writes the rest
        capture_output=True,
    )


def strip_pyc(path: Path) -> None:
    for cache in list(path.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


COLD = (
    "import json, app\n"
    "r = app.lambda_handler({'rawPath': '/v1/health', 'requestContext': {'http': {'method': 'GET'}}}, None)\n"
    "app._get_runtime()\n"
    "import mneme.api.entry, mneme.engine.runs.service\n"
)


def cold_import(n: int) -> dict[str, float]:
    """Python 3.13 cold init (import app + runtime with clients + the API/engine modules), with and
    without the layer's .pyc; boto3 (the runtime's) is precompiled in both cases."""
    boto_dir = TWIN_DIR / "runtime"
    layer_pyc, layer_src = TWIN_DIR / "layer-pyc", TWIN_DIR / "layer-src"
    if not (boto_dir / "boto3").is_dir():
        subprocess.run(
            [PY, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(boto_dir), "boto3==1.44.8"],
            check=True,
            capture_output=True,
        )
        compile313(boto_dir)
    pip_layer(layer_src, "manylinux2014_x86_64")
    strip_pyc(layer_src)
    if layer_pyc.exists():
        shutil.rmtree(layer_pyc)
    shutil.copytree(layer_src, layer_pyc)
    compile313(layer_pyc)
    fn_src, fn_pyc = TWIN_DIR / "fn-src", TWIN_DIR / "fn-pyc"
    for target in (fn_src, fn_pyc):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(RUN_FUNCTION, target, ignore=shutil.ignore_patterns("__pycache__"))
    compile313(fn_pyc)
    base_env = {k: v for k, v in PY313_ENV.items() if not k.startswith(("PYTHON", "MNEME_", "AWS_"))}
    base_env.update(
        AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1",
        MNEME_MODEL_PROVIDER="offline",
    )  # fmt: skip
    envs = {
        "with .pyc": {**base_env, "PYTHONPATH": os.pathsep.join(map(str, (fn_pyc, layer_pyc, boto_dir)))},
        # Lambda's /opt is read-only: without shipped .pyc every cold start compiles the sources again
        "without .pyc": {
            **base_env,
            "PYTHONPATH": os.pathsep.join(map(str, (fn_src, layer_src, boto_dir))),
            "PYTHONDONTWRITEBYTECODE": "1",
        },
    }
    samples: dict[str, list[float]] = {name: [] for name in envs}
    for env in envs.values():
        subprocess.run(["python3.13", "-c", COLD], env=env, check=True, capture_output=True)
    for _ in range(n):
        for name, env in envs.items():
            start = time.perf_counter()
            subprocess.run(["python3.13", "-c", COLD], env=env, check=True, capture_output=True)
            samples[name].append(time.perf_counter() - start)
    return {name: median(values) for name, values in samples.items()}


def main(n: int = 10) -> dict[str, float]:
    header("package size (sam build artifacts, unzipped)")
    build = sam_build()
    if build is not None:
        artifacts = {p.name: p for p in sorted(build.iterdir()) if p.is_dir()}
        print("  source: sam build")
    else:
        fallback = Path(tempfile.mkdtemp(prefix="mneme-layer-"))
        pip_layer(fallback / "python", "manylinux2014_aarch64")
        artifacts = {"MnemeLayer (pip --target fallback)": fallback}
        print("  source: pip install --target (manylinux2014_aarch64, py3.13) — the template did not build")
    total = shipped = 0
    print(f"  {'artifact':<28}{'as built':>12}{'without boto3 family':>24}")
    for name, path in artifacts.items():
        size, net = du(path), du(path, skip_runtime=True)
        total, shipped = total + size, shipped + net
        print(f"  {name:<28}{size / MIB:>9.1f} MiB{net / MIB:>21.1f} MiB")
    print(f"  {'total':<28}{total / MIB:>9.1f} MiB{shipped / MIB:>21.1f} MiB")
    layer = next((p for n_, p in artifacts.items() if n_.startswith("MnemeLayer")), None)
    if layer is not None:
        root = layer / "python" if (layer / "python").is_dir() else layer
        print("  largest entries of the layer:")
        for size, entry in top_entries(root):
            mark = "  (runtime provides it: shipped for nothing)" if _runtime_provided(entry) else ""
            print(f"    {size / MIB:7.1f} MiB  {entry}{mark}")
        babel_data = root / "babel" / "locale-data"
        if babel_data.is_dir():
            files = list(babel_data.iterdir())
            print(f"    babel/locale-data: {du(babel_data) / MIB:.1f} MiB in {len(files)} locale files")
        copy = Path(tempfile.mkdtemp(prefix="mneme-pyc-")) / "layer"
        shutil.copytree(layer, copy)
        compile313(copy)
        pyc = du(copy, suffix=".pyc")
        with_pyc = du(copy, skip_runtime=True)
        print(
            f"  layer with python3.13 .pyc: +{pyc / MIB:.1f} MiB of .pyc (all packages); "
            f"shipped without boto3 family: {with_pyc / MIB:.1f} MiB"
        )
        shutil.rmtree(copy.parent, ignore_errors=True)
        shipped_pyc = shipped - du(layer, skip_runtime=True) + with_pyc
        print(f"  total shipped with .pyc: {shipped_pyc / MIB:.1f} MiB")
    print(f"  goal ≤ 30 MB unzipped (boto3 family excluded): {shipped / MIB:.1f} MiB → {verdict(shipped <= 30 * MIB)}")
    print(f"\n  cold init under Python 3.13 (x86_64 twin of the layer), alternating, N={n} each:")
    cold = cold_import(n)
    for name, value in cold.items():
        print(f"    {name:<14}{value * 1000:8.1f} ms")
    ratio = cold["without .pyc"] / cold["with .pyc"]
    print(f"    without/with .pyc: {ratio:.2f}× → ship .pyc: {'yes' if ratio > 1.05 else 'no measurable gain'}")
    return {"total_mib": total / MIB, "shipped_mib": shipped / MIB, **{k: v * 1000 for k, v in cold.items()}}


def bench(full: bool) -> dict[str, float]:
    return main(10)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
