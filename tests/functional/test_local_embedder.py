"""The local embedding model (all-MiniLM-L6-v2 int8 ONNX): offline, 384-d, normalized, meaningful."""

from __future__ import annotations

import importlib.util
import math
import socket
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


def test_batches_equal_single_calls(embedder: LocalEmbedder) -> None:
    texts = ["first text", "a second, noticeably longer text that needs more padding in a batch"]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        assert cosine(embedder.embed([text])[0], vector) > 0.9999


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
