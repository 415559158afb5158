"""Bedrock's Rerank API as the Reranker port (``bedrock-agent-runtime`` ``Rerank``; mneme.memory.rerank).

One call per search scores the query against every candidate's text: ``queries`` holds the query (one, at most
32,000 characters), ``sources`` the texts inline (1-1,000, each at most 32,000 characters), and the model is named
by its foundation-model ARN. The answer lists ``{index, relevanceScore}`` for the best ``numberOfResults``
sources; every source is asked for, so each candidate gets its score. Texts are clipped to the API's limit (an
entry is at most 50,000 characters); any AWS failure is a RerankUnavailable, which the search survives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import RerankUnavailable
from mneme.observability import traced

if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_TEXT_CHARS = 32_000
MAX_SOURCES = 1_000


def model_arn(model_id: str, region: str, partition: str = "aws") -> str:
    """The foundation-model ARN the API wants, from a model id (an ARN is kept as it is)."""
    if model_id.startswith("arn:"):
        return model_id
    return f"arn:{partition}:bedrock:{region}::foundation-model/{model_id}"


def _source(text: str) -> dict[str, Any]:
    return {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": text}}}


class BedrockReranker:
    """Scores texts against a query with a Bedrock reranking model over an injected client."""

    def __init__(self, client: Any, *, model_id: str, region: str) -> None:
        self._client = client
        self._model_id = model_id
        self._arn = model_arn(model_id, region)

    @property
    def model_id(self) -> str:
        return self._model_id

    def request(self, query: str, texts: Sequence[str]) -> dict[str, Any]:
        """The exact Rerank request for a query and its candidates' texts."""
        return {
            "queries": [{"type": "TEXT", "textQuery": {"text": query[:MAX_TEXT_CHARS]}}],
            "sources": [_source(text[:MAX_TEXT_CHARS]) for text in texts],
            "rerankingConfiguration": {
                "type": "BEDROCK_RERANKING_MODEL",
                "bedrockRerankingConfiguration": {
                    "numberOfResults": len(texts),
                    "modelConfiguration": {"modelArn": self._arn},
                },
            },
        }

    @traced("bedrock.rerank")
    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        if len(texts) > MAX_SOURCES:
            raise RerankUnavailable(f"at most {MAX_SOURCES} texts can be reranked in one call, not {len(texts)}")
        if not query.strip():
            raise RerankUnavailable("an empty query cannot be reranked")
        try:
            answer = self._client.rerank(**self.request(query, [t if t.strip() else "-" for t in texts]))
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "ClientError")
            raise RerankUnavailable(f"Bedrock Rerank failed: {code}") from exc
        except BotoCoreError as exc:
            raise RerankUnavailable(f"Bedrock Rerank failed: {type(exc).__name__}") from exc
        scores = [0.0] * len(texts)
        for result in answer.get("results", []):
            index = result.get("index")
            if isinstance(index, int) and 0 <= index < len(texts):
                scores[index] = float(result.get("relevanceScore", 0.0))
        return scores
