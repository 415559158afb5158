"""Bedrock Titan Text Embeddings V2 adapter of the Embedder port (SPEC §5.3).

Titan V2 embeds one text per ``InvokeModel`` call (no batch array), so several texts are embedded
concurrently on a small bounded thread pool (boto3 clients are thread-safe). The body is
``{"inputText", "dimensions", "normalize"}``; dimensions 256, 512 or 1024.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import EmbeddingInputTooLong, EmbeddingUnavailable, InvalidInput
from mneme.memory.embedding_limits import limit_for
from mneme.observability import traced
from mneme.settings import SettingsError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

TITAN_V2_MODEL_ID = "amazon.titan-embed-text-v2:0"
TITAN_V2_DIMENSIONS = (256, 512, 1024)
DEFAULT_MAX_WORKERS = 4


class BedrockEmbedder:
    """Embeds texts with Titan Text Embeddings V2 over an injected ``bedrock-runtime`` client."""

    def __init__(
        self,
        client: BedrockRuntimeClient,
        *,
        model_id: str = TITAN_V2_MODEL_ID,
        dimension: int = 1024,
        normalize: bool = True,
        max_workers: int = DEFAULT_MAX_WORKERS,
    ) -> None:
        if dimension not in TITAN_V2_DIMENSIONS:
            raise SettingsError(f"Titan Text Embeddings V2 supports dimensions {TITAN_V2_DIMENSIONS}, not {dimension}")
        if max_workers < 1:
            raise SettingsError("max_workers must be at least 1")
        self._client = client
        self._model_id = model_id
        self._dimension = dimension
        self._normalize = normalize
        self._max_workers = max_workers

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_id(self) -> str:
        return self._model_id

    def request_body(self, text: str) -> dict[str, Any]:
        """The exact InvokeModel body for one text."""
        return {"inputText": text, "dimensions": self._dimension, "normalize": self._normalize}

    @traced("bedrock.embed")
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        for index, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise InvalidInput(f"text {index} to embed is empty", field="text")
            limit_for(self._model_id).check(text)  # Titan would refuse it: no call, a clear 413
        if not texts:
            return []
        if len(texts) == 1:
            return [self._embed_one(texts[0])]
        workers = min(self._max_workers, len(texts))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="titan-embed") as pool:
            return list(pool.map(self._embed_one, texts))

    def _embed_one(self, text: str) -> list[float]:
        try:
            response = self._client.invoke_model(
                modelId=self._model_id,
                body=json.dumps(self.request_body(text)),
                contentType="application/json",
                accept="application/json",
            )
            payload = json.loads(response["body"].read())
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", "Unknown"))
            message = str(exc.response.get("Error", {}).get("Message", ""))
            if code == "ValidationException" and "too many input tokens" in message.lower():
                raise EmbeddingInputTooLong(
                    f"Bedrock embeddings ({self._model_id}): the text exceeds the model's 8,192-token limit",
                    details={"model_id": self._model_id, "limit_tokens": 8_192, "chars": len(text)},
                ) from exc
            raise EmbeddingUnavailable(
                f"Bedrock embeddings ({self._model_id}) failed with {code}: {exc}",
                details={"model_id": self._model_id, "aws_error": code},
            ) from exc
        except (BotoCoreError, ValueError, KeyError) as exc:
            raise EmbeddingUnavailable(
                f"Bedrock embeddings ({self._model_id}) failed: {exc}",
                details={"model_id": self._model_id, "error": type(exc).__name__},
            ) from exc
        return self._vector(payload)

    def _vector(self, payload: Any) -> list[float]:
        vector: Any = None
        if isinstance(payload, dict):
            vector = payload.get("embedding")
            if vector is None:
                vector = (payload.get("embeddingsByType") or {}).get("float")
        if not isinstance(vector, list) or not all(isinstance(x, int | float) for x in vector):
            raise EmbeddingUnavailable(f"Bedrock embeddings ({self._model_id}) returned no float vector")
        if len(vector) != self._dimension:
            raise EmbeddingUnavailable(
                f"Bedrock embeddings ({self._model_id}) returned {len(vector)} dimensions, expected {self._dimension}"
            )
        return [float(x) for x in vector]
