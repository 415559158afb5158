"""`make bench` fails loudly: a measure that fails makes the run exit non-zero, through the Makefile's tee."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def bench(tmp_path: Path, *measures: str) -> tuple[int, str, str]:
    log = tmp_path / "bench.txt"
    args = " ".join(f"--measure tests.support.bench_measures:{m}" for m in measures)
    out = subprocess.run(
        ["make", "--no-print-directory", "bench-run", f"BENCH_ARGS={args}", f"BENCH_LOG={log}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return out.returncode, out.stdout, log.read_text()


def test_a_failing_measure_makes_the_bench_exit_non_zero(tmp_path) -> None:
    status, stdout, log = bench(tmp_path, "failing", "passing")
    assert status != 0
    assert "FAILED" in stdout and "RuntimeError: the measured code crashed" in log
    assert "a figure: 1.0 ms" in log  # the measure after the failure still ran


def test_a_skipped_measure_prints_its_reason_and_the_bench_passes(tmp_path) -> None:
    status, stdout, log = bench(tmp_path, "skipping", "passing")
    assert status == 0, stdout
    assert "SKIPPED — this machine lacks what the measure needs" in log
    assert "every measure ran or was skipped with a reason" in log
