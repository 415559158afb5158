"""Every benchmark of docs/performance.md, one after the other, in one run (``make bench``).

Each measure prints its own figures (with the machine); this runner adds the wall time of each and a
final summary line per measure. Run: ``.venv/bin/python bench/run_all.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cold_start
import core_overhead
import memory_search
import package_size
import peer_strands
import prompt_cache
import round_trips
from _common import machine

MEASURES = (
    ("1 cold start", lambda: cold_start.main(10)),
    ("2 package size", lambda: package_size.main(10)),
    ("3 round trips", round_trips.main),
    ("4 core overhead", lambda: core_overhead.main(2000)),
    ("5 prompt cache", prompt_cache.main),
    ("6 memory search", lambda: memory_search.main(200)),
    ("7 peer comparison", peer_strands.main),
)


def main() -> None:
    print(f"mneme benchmarks — {machine()} — {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    durations = []
    for name, measure in MEASURES:
        start = time.perf_counter()
        measure()
        durations.append((name, time.perf_counter() - start))
    print("\n=== durations ===")
    for name, seconds in durations:
        print(f"  {name:<20}{seconds:7.1f} s")
    print(f"  {'total':<20}{sum(s for _n, s in durations):7.1f} s")


if __name__ == "__main__":
    main()
