"""The Titan Text Embeddings V2 adapter against a real bedrock-runtime client (Stubber)."""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber

from mneme.adapters.models.bedrock_embeddings import TITAN_V2_MODEL_ID, BedrockEmbedder
from mneme.errors import EmbeddingUnavailable, InvalidInput
from mneme.ports.models import Embedder
from mneme.settings import SettingsError


def body(payload: dict[str, Any]) -> StreamingBody:
    raw = json.dumps(payload).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def test_embedding_call_sends_the_exact_body_and_parses_the_vector(client: Any) -> None:
    vector = [0.5, -0.25, *([0.0] * 254)]
    expected = {
        "modelId": TITAN_V2_MODEL_ID,
        "body": json.dumps({"inputText": "hello world", "dimensions": 256, "normalize": False}),
        "contentType": "application/json",
        "accept": "application/json",
    }
    reply = {"body": body({"embedding": vector, "inputTextTokenCount": 3}), "contentType": "application/json"}
    with Stubber(client) as stub:
        stub.add_response("invoke_model", reply, expected)
        vectors = BedrockEmbedder(client, dimension=256, normalize=False).embed(["hello world"])
        stub.assert_no_pending_responses()
    assert vectors == [vector]


def test_default_body_is_1024_normalized(client: Any) -> None:
    embedder = BedrockEmbedder(client)
    assert embedder.dimension == 1024
    assert embedder.request_body("x") == {"inputText": "x", "dimensions": 1024, "normalize": True}


def test_embeddings_by_type_is_accepted(client: Any) -> None:
    vector = [0.1] * 512
    reply = {"body": body({"embeddingsByType": {"float": vector}}), "contentType": "application/json"}
    with Stubber(client) as stub:
        stub.add_response("invoke_model", reply)
        assert BedrockEmbedder(client, dimension=512).embed(["a"]) == [vector]


@pytest.mark.parametrize("code", ["ThrottlingException", "ValidationException", "ServiceUnavailableException"])
def test_service_errors_map_to_embedding_unavailable(client: Any, code: str) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("invoke_model", code, "nope", http_status_code=400)
        with pytest.raises(EmbeddingUnavailable) as caught:
            BedrockEmbedder(client, dimension=256).embed(["hello"])
    assert caught.value.details["aws_error"] == code
    assert caught.value.code == "memory_unavailable"


def test_a_wrong_dimension_in_the_reply_is_unavailable(client: Any) -> None:
    reply = {"body": body({"embedding": [0.1] * 10}), "contentType": "application/json"}
    with Stubber(client) as stub:
        stub.add_response("invoke_model", reply)
        with pytest.raises(EmbeddingUnavailable, match="10 dimensions"):
            BedrockEmbedder(client, dimension=256).embed(["hello"])


def test_empty_text_is_invalid_input_and_nothing_is_called(client: Any) -> None:
    with Stubber(client) as stub:
        with pytest.raises(InvalidInput):
            BedrockEmbedder(client, dimension=256).embed(["fine", "   "])
        stub.assert_no_pending_responses()


def test_unsupported_dimension_is_a_settings_error(client: Any) -> None:
    with pytest.raises(SettingsError):
        BedrockEmbedder(client, dimension=384)


class _ConcurrentFakeClient:
    """A bedrock-runtime stand-in that records bodies, threads and the highest concurrency seen."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.bodies: list[dict[str, Any]] = []
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()
        self._barrier = threading.Barrier(2, timeout=5)

    def invoke_model(self, **kwargs: Any) -> dict[str, Any]:
        request = json.loads(kwargs["body"])
        with self._lock:
            self.bodies.append(request)
            self.active += 1
            self.peak = max(self.peak, self.active)
            first_two = len(self.bodies) <= 2
        if first_two:
            self._barrier.wait()  # the first two calls meet: both are in flight at the same time
        with self._lock:
            self.active -= 1
        seed = float(len(request["inputText"]))
        return {"body": body({"embedding": [seed] * self.dimension})}


def test_several_texts_run_concurrently_in_order() -> None:
    fake = _ConcurrentFakeClient(256)
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vectors = BedrockEmbedder(fake, dimension=256, max_workers=2).embed(texts)  # type: ignore[arg-type]
    assert [v[0] for v in vectors] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert sorted(b["inputText"] for b in fake.bodies) == texts
    assert fake.peak == 2  # bounded by max_workers


def test_satisfies_the_port(client: Any) -> None:
    embedder: Embedder = BedrockEmbedder(client)
    assert embedder.dimension == 1024


def test_no_texts_no_calls(client: Any) -> None:
    with Stubber(client) as stub:
        assert BedrockEmbedder(client).embed([]) == []
        stub.assert_no_pending_responses()
