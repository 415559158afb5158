"""Measures for the bench runner's own tests (tests/infra/test_bench_runner.py): one fails, one skips."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
Skip = importlib.import_module("_common").Skip  # the bench runner's own exception (bench/ is no package)


def failing(full: bool) -> None:
    print("a measure that breaks")
    raise RuntimeError("the measured code crashed")


def skipping(full: bool) -> None:
    raise Skip("this machine lacks what the measure needs")


def passing(full: bool) -> None:
    print(f"a figure: 1.0 ms (full={full})")
