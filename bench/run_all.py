"""Every benchmark of docs/performance.md, one after the other, in one run (``make bench``).

``--quick`` (the default) keeps the whole run to a few minutes; ``--full`` adds the one-namespace vector
figures at 1,000,000 entries and more cold-start samples (``make bench BENCH=full``). Each measure prints
its own figures; a measure that cannot run here raises :class:`_common.Skip` and its reason is printed;
any other error is printed with its traceback, the remaining measures still run, and the run exits 1.
Run: ``.venv/bin/python bench/run_all.py [--quick|--full] [--only NAME ...] [--measure module:function]``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Skip, machine, use_repo_paths

Measure = Callable[[bool], object]  # full mode? -> figures


def _measure(module: str, function: str = "bench") -> Measure:
    def run(full: bool) -> object:
        use_repo_paths()
        return getattr(importlib.import_module(module), function)(full)

    return run


MEASURES: dict[str, Measure] = {
    "cold_start": _measure("cold_start"),
    "package_size": _measure("package_size"),
    "round_trips": _measure("round_trips"),
    "core_overhead": _measure("core_overhead"),
    "prompt_cache": _measure("prompt_cache"),
    "memory_search": _measure("memory_search"),
    "memory_quality": _measure("memory_quality"),
    "recall_eval": _measure("recall_eval"),
    "public_conversations": _measure("public_conversations"),
    "memory_quality_hard": _measure("memory_quality_hard"),
    "memory_ingest": _measure("memory_ingest"),
    "embedder_speed": _measure("embedder_speed"),
    "local_server": _measure("local_server"),
    "peer_strands": _measure("peer_strands"),
    "record_classes": _measure("record_classes"),
}


def run(measures: dict[str, Measure], full: bool) -> int:
    """Run each measure; 0 when none failed (skips are not failures), else 1."""
    mode = "full" if full else "quick"
    print(f"mneme benchmarks ({mode}) — {machine()} — {time.strftime('%Y-%m-%d %H:%M:%S %Z')}", flush=True)
    outcomes: list[tuple[str, str, float]] = []
    for name, measure in measures.items():
        start = time.perf_counter()
        try:
            measure(full)
            outcome = "ok"
        except Skip as skip:
            print(f"\n  {name}: SKIPPED — {skip}", flush=True)
            outcome = f"skipped: {skip}"
        except Exception:
            print(f"\n  {name}: FAILED", flush=True)
            traceback.print_exc(file=sys.stdout)
            outcome = "FAILED"
        sys.stdout.flush()
        outcomes.append((name, outcome, time.perf_counter() - start))
    print("\n=== summary ===")
    for name, outcome, seconds in outcomes:
        print(f"  {name:<16}{seconds:7.1f} s  {outcome}")
    failed = [name for name, outcome, _s in outcomes if outcome == "FAILED"]
    print(f"  {'total':<16}{sum(s for _n, _o, s in outcomes):7.1f} s  ", end="")
    print(f"{len(failed)} FAILED: {', '.join(failed)}" if failed else "every measure ran or was skipped with a reason")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the default: minutes, no 1M-vector figures")
    mode.add_argument("--full", action="store_true", help="adds the 1M-vector figures and more samples")
    parser.add_argument("--only", nargs="+", choices=sorted(MEASURES), help="run only these measures")
    parser.add_argument(
        "--measure",
        action="append",
        default=[],
        help="run module:function(full) (instead of the standard measures, unless --only names some)",
    )
    args = parser.parse_args(argv)
    measures = {name: MEASURES[name] for name in args.only} if args.only else dict(MEASURES)
    if args.measure and not args.only:
        measures = {}
    for spec in args.measure:
        module, _, function = spec.partition(":")
        measures[spec] = _measure(module, function or "bench")
    return run(measures, args.full)


if __name__ == "__main__":
    sys.exit(main())
