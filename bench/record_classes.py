"""What defining a record class costs: ``@dataclass(frozen=True)`` against ``mneme.records.Record``, side by side.

A cold start defines every record class of the modules it imports (54 on the run function's path when this
was written). This defines that many classes of five fields, a default and a factory each way, alternately,
in fresh interpreters (python3.13, the Lambda runtime, when installed, and this one), and prints the medians,
the spread and the ratio. ``tests/unit/test_records.py`` pins that a record compiles no code at all.

Run: ``.venv/bin/python bench/record_classes.py [ROUNDS]``. Exits non-zero on any failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cold_start
from _common import LAYER, PY, Skip, header, median, pct

CLASSES = 54
CHILD = """
import dataclasses, json, sys, time
from mneme.records import Record, field

FIELDS = {"a": "int", "b": "str", "c": "float", "d": "int", "e": "list[str]"}

def with_dataclass(i):
    ns = {"__annotations__": dict(FIELDS), "__module__": __name__, "d": 0, "e": dataclasses.field(default_factory=list)}
    return dataclasses.dataclass(frozen=True)(type(f"D{i}", (), ns))

def with_record(i):
    ns = {"__annotations__": dict(FIELDS), "__module__": __name__, "d": 0, "e": field(default_factory=list)}
    return type(f"R{i}", (Record,), ns)

rounds, classes = int(sys.argv[1]), int(sys.argv[2])
samples = {"dataclass": [], "record": []}
for _ in range(rounds + 1):  # the first round is untimed
    for name, make in (("dataclass", with_dataclass), ("record", with_record)):
        start = time.perf_counter()
        made = [make(i) for i in range(classes)]
        samples[name].append(time.perf_counter() - start)
        assert made[-1](1, "x", 2.0).d == 0
print(json.dumps({name: values[1:] for name, values in samples.items()}))
"""


def _measure(python: str, env: dict[str, str] | None, rounds: int) -> dict[str, list[float]]:
    out = subprocess.run(
        [python, "-c", CHILD, str(rounds), str(CLASSES)],
        env={**(env or {}), "PYTHONPATH": str(LAYER)},
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, list[float]] = json.loads(out.stdout)
    return result


def main(rounds: int = 30) -> dict[str, float]:
    header(f"defining {CLASSES} record classes: @dataclass(frozen=True) vs mneme.records.Record ({rounds} rounds)")
    interpreters: list[tuple[str, str, dict[str, str] | None]] = [("this python", PY, None)]
    try:
        env313 = cold_start.python313()  # resolves cold_start.PY313 to the real binary
        interpreters.insert(0, ("python3.13", cold_start.PY313, env313))
    except Skip as skip:
        print(f"  python3.13: skipped — {skip}")
    figures: dict[str, float] = {}
    for label, python, env in interpreters:
        samples = _measure(python, env, rounds)
        dc, rec = median(samples["dataclass"]), median(samples["record"])
        for name, values in samples.items():
            print(
                f"  {label:<12}{name:<10} median {median(values) * 1000:7.2f} ms  "
                f"p10 {pct(values, 10) * 1000:7.2f}  p90 {pct(values, 90) * 1000:7.2f}"
            )
        print(f"  {label:<12}dataclass / record = {dc / rec:.1f}×  ({(dc - rec) * 1000:.1f} ms for {CLASSES} classes)")
        figures[f"{label} dataclass ms"], figures[f"{label} record ms"] = dc * 1000, rec * 1000
    return figures


def bench(full: bool) -> dict[str, float]:
    return main(30)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
