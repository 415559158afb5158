"""Shared helpers of the benchmarks: paths, statistics, a header that names the machine."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / "layers" / "mneme"
RUN_FUNCTION = ROOT / "functions" / "run"
LOCAL = ROOT / "local"
PY = sys.executable


def use_repo_paths() -> None:
    """Make ``mneme``, ``app``, ``mneme_local`` and ``tests`` importable (as pytest's pythonpath does)."""
    for path in (LAYER, RUN_FUNCTION, LOCAL, ROOT):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def time_calls(fn: Callable[[], object], iterations: int, warmup: int = 20) -> list[float]:
    """Seconds per call of ``fn``, one sample per call, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(iterations):
        start = perf_counter()
        fn()
        samples.append(perf_counter() - start)
    return samples


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"
    )


def header(title: str) -> None:
    print(f"\n=== {title} ===")
    print(f"machine: {machine()}")


def verdict(met: bool) -> str:
    return "MET" if met else "NOT MET"


class Skip(Exception):
    """A measure that cannot run on this machine: the runner prints the reason and goes on (not a failure)."""
