"""The local embedder's graph, rebuilt from the packaged model's weights with fused attention.

The packaged all-MiniLM-L6-v2 file is a torch export: each layer's attention is ~30 small operators (reshapes,
transposes, slices, a mask built from ``IsNaN`` and ``Where``), which onnxruntime's transformer fusions do not
recognise. At ~25 word pieces per text the per-operator overhead rivals the arithmetic, so this module writes the
same network as a short graph: the embeddings (three gathers, a layer normalization), then per layer three
projections, one ``com.microsoft.MultiHeadAttention`` (the attention mask as its key padding mask), the output
projection, residual additions, layer normalizations and an exact (erf) ``Gelu``. Every weight is the packaged
one, unchanged; ``embedder_model`` quantizes the projections afterwards.

The input is the packaged model with its stored int8 weights folded into float32 constants (onnxruntime's basic
optimizations). Each projection is found from its bias, whose name the export keeps
(``inner.encoder.layer.{i}.attention.self.query.bias``): the ``Add`` that reads it adds a ``MatMul`` whose
second input is the weight. A model of another shape is refused (``ValueError``), not guessed at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HEADS = 12  # all-MiniLM-L6-v2: 12 heads of 32 over a hidden size of 384
HIDDEN = 384
_PREFIX = "inner."
_PROJECTIONS = (
    ("q", "attention.self.query"),
    ("k", "attention.self.key"),
    ("v", "attention.self.value"),
    ("o", "attention.output.dense"),
    ("up", "intermediate.dense"),
    ("down", "output.dense"),
)


class _Source:
    """The folded model's weights, each projection's found through its bias."""

    def __init__(self, path: Path) -> None:
        import onnx
        from onnx import numpy_helper

        model = onnx.load(str(path))
        self.ir_version = model.ir_version
        self.values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        producers = {output: node for node in model.graph.node for output in node.output}
        self.weight_of_bias: dict[str, Any] = {}
        for node in model.graph.node:
            if node.op_type != "Add" or len(node.input) != 2:
                continue
            for bias, other in (node.input, reversed(node.input)):
                source = producers.get(other)
                if bias not in self.values or source is None or source.op_type != "MatMul":
                    continue
                if source.input[1] in self.values:
                    self.weight_of_bias[bias] = self.values[source.input[1]]
        norms = [node for node in model.graph.node if node.op_type == "LayerNormalization"]
        if not norms:
            raise ValueError("the model has no LayerNormalization to take its epsilon from")
        epsilon = [a.f for a in norms[0].attribute if a.name == "epsilon"]
        self.epsilon = epsilon[0] if epsilon else 1e-5
        self.layers = 0
        while f"{_PREFIX}encoder.layer.{self.layers}.attention.self.query.bias" in self.values:
            self.layers += 1

    def tensor(self, name: str) -> Any:
        try:
            return self.values[_PREFIX + name]
        except KeyError:
            raise ValueError(f"the model has no tensor {_PREFIX + name}") from None

    def projection(self, name: str) -> tuple[Any, Any]:
        bias = _PREFIX + name + ".bias"
        if bias not in self.weight_of_bias:
            raise ValueError(f"the model has no MatMul followed by the bias {bias}")
        return self.weight_of_bias[bias], self.values[bias]


class _Graph:
    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []

    def const(self, name: str, value: Any) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str, **attributes: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output

    def ms(self, op_type: str, inputs: list[str], output: str, **attributes: Any) -> str:
        return self.op(op_type, inputs, output, domain="com.microsoft", **attributes)


def rebuild(folded: Path, target: Path) -> None:
    """Write to ``target`` the network of ``folded`` (float32 weights) as the short graph described above."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    source = _Source(folded)
    if source.layers == 0 or source.tensor("embeddings.word_embeddings.weight").shape[1] != HIDDEN:
        raise ValueError(f"not a MiniLM of hidden size {HIDDEN}: {source.layers} layers found")
    g = _Graph()
    sequence = g.op("Shape", ["input_ids"], "sequence", start=1, end=2)
    scalar = g.op("Squeeze", [sequence, g.const("axis0", np.array([0], dtype=np.int64))], "sequence_scalar")
    zero, one = g.const("zero", np.array(0, dtype=np.int64)), g.const("one", np.array(1, dtype=np.int64))
    positions = g.op("Range", [zero, scalar, one], "positions")
    embedded = [
        g.op("Gather", [g.const(f"{name}_table", source.tensor(f"embeddings.{name}.weight")), ids], f"{name}_rows")
        for name, ids in (
            ("word_embeddings", "input_ids"),
            ("token_type_embeddings", "token_type_ids"),
            ("position_embeddings", positions),
        )
    ]
    summed = g.op("Add", [g.op("Add", embedded[:2], "embedded_2"), embedded[2]], "embedded")
    hidden = _norm(g, source, "embeddings.LayerNorm", summed, "h_embeddings")
    mask = g.op("Cast", ["attention_mask"], "key_padding_mask", to=TensorProto.INT32)
    for layer in range(source.layers):
        hidden = _layer(g, source, layer, hidden, mask, "last_hidden_state" if layer == source.layers - 1 else "")
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", HIDDEN])
    graph = helper.make_graph(g.nodes, "minilm_fused_attention", inputs, [output], initializer=g.initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    )
    model.ir_version = source.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def _layer(g: _Graph, source: _Source, layer: int, hidden: str, mask: str, output: str) -> str:
    name = f"encoder.layer.{layer}."
    prefix = f"l{layer}_"

    def project(short: str, part: str, value: str) -> str:
        weight, bias = source.projection(name + part)
        product = g.op("MatMul", [value, g.const(f"{prefix}{short}_w", weight)], f"{prefix}{short}_product")
        return g.op("Add", [product, g.const(f"{prefix}{short}_b", bias)], f"{prefix}{short}")

    parts = dict(_PROJECTIONS)
    query, key, value = (project(short, parts[short], hidden) for short in ("q", "k", "v"))
    # no bias input: each projection adds its own (onnxruntime folds it into the quantized product)
    context = g.ms("MultiHeadAttention", [query, key, value, "", mask], f"{prefix}context", num_heads=HEADS)
    attended = g.op("Add", [project("o", parts["o"], context), hidden], f"{prefix}attended")
    hidden = _norm(g, source, name + "attention.output.LayerNorm", attended, f"{prefix}h_attention")
    expanded = g.ms("Gelu", [project("up", parts["up"], hidden)], f"{prefix}gelu")
    summed = g.op("Add", [project("down", parts["down"], expanded), hidden], f"{prefix}summed")
    return _norm(g, source, name + "output.LayerNorm", summed, output or f"{prefix}h_output")


def _norm(g: _Graph, source: _Source, name: str, value: str, output: str) -> str:
    gamma = g.const(f"{output}_gamma", source.tensor(name + ".weight"))
    beta = g.const(f"{output}_beta", source.tensor(name + ".bias"))
    return g.op("LayerNormalization", [value, gamma, beta], output, axis=-1, epsilon=source.epsilon)
