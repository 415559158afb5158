"""Measure — the local embedder's two builds side by side: integer matrix products (the default) vs float32.

    .venv/bin/python bench/embedder_speed.py [--rounds 7] [--texts 600]

The texts are the memory benchmark's conversation turns (bench/memory_ingest.py's ``turns``, ~100 characters,
~29 word pieces). Each round embeds them with both builds, in alternating order, and records documents per
wall-second (the embedder's own two threads) and per CPU-second (process time: what a loaded machine cannot
steal). Prints medians and spread, the ratios, and how close the vectors are (cosine, integer vs float32; and
one text alone vs in a batch). Exits non-zero if an embedding fails or the builds disagree (mean cosine < 0.98).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_repo_paths

use_repo_paths()


def _rate(embed: object, texts: list[str]) -> tuple[float, float, list[list[float]]]:
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embed(texts)  # type: ignore[operator]
    return len(texts) / (time.perf_counter() - wall), len(texts) / (time.process_time() - cpu), vectors


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):7.1f}  (min {min(values):.1f}, max {max(values):.1f})"


def measure(rounds: int, count: int) -> dict[str, float]:
    from memory_ingest import turns
    from mneme_local.embedder import LocalEmbedder

    texts = turns(count, 11)
    builds = {"int8": LocalEmbedder(), "float32": LocalEmbedder(quantized=False)}
    for embedder in builds.values():
        embedder.embed(texts[:20])  # loaded (and, the first time, the integer model derived)
    wall: dict[str, list[float]] = {name: [] for name in builds}
    cpu: dict[str, list[float]] = {name: [] for name in builds}
    vectors: dict[str, list[list[float]]] = {}
    for round_ in range(rounds):
        order = list(builds) if round_ % 2 == 0 else list(reversed(builds))
        for name in order:
            w, c, vectors[name] = _rate(builds[name].embed, texts)
            wall[name].append(w)
            cpu[name].append(c)
    pairs = zip(vectors["int8"], vectors["float32"], strict=True)
    cosines = [sum(a * b for a, b in zip(q, f, strict=True)) for q, f in pairs]
    alone = [builds["int8"].embed([text])[0] for text in texts[:50]]
    batch_vs_alone = min(
        sum(a * b for a, b in zip(x, y, strict=True)) for x, y in zip(alone, vectors["int8"][:50], strict=True)
    )
    print(f"local embedder, {count} conversation turns x {rounds} rounds, load {os.getloadavg()[0]:.1f}")
    for name in builds:
        print(f"  {name:<8} docs/wall-s {_spread(wall[name])}   docs/CPU-s {_spread(cpu[name])}")
    ratio_wall = statistics.median(w / f for w, f in zip(wall["int8"], wall["float32"], strict=True))
    ratio_cpu = statistics.median(c / f for c, f in zip(cpu["int8"], cpu["float32"], strict=True))
    print(f"  int8 / float32: {ratio_wall:.2f}x per wall-second, {ratio_cpu:.2f}x per CPU-second (median of rounds)")
    print(
        f"  cosine int8 vs float32: mean {statistics.mean(cosines):.4f}, min {min(cosines):.4f};"
        f" one text alone vs in the batch: min {batch_vs_alone:.7f}"
    )
    if statistics.mean(cosines) < 0.98:
        raise SystemExit("the integer build disagrees with the float32 one (mean cosine < 0.98)")
    return {"ratio_wall": ratio_wall, "ratio_cpu": ratio_cpu, "cosine_mean": statistics.mean(cosines)}


def bench(full: bool) -> dict[str, float]:
    """``make bench``: 7 rounds of 600 turns (3 without ``BENCH=full``)."""
    return measure(7 if full else 3, 600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--texts", type=int, default=600)
    args = parser.parse_args()
    measure(args.rounds, args.texts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
