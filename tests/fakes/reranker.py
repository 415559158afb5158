"""A fake of the Reranker port: scores from a table keyed by text (unknown texts score ``default``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class TableReranker:
    def __init__(
        self, scores: Mapping[str, float], *, default: float = 0.0, model_id: str = "amazon.rerank-v1:0"
    ) -> None:
        self._scores = dict(scores)
        self._default = default
        self._model_id = model_id
        self.calls: list[tuple[str, list[str]]] = []
        self.fail: Exception | None = None  # e.g. RerankUnavailable(...): every call raises it

    @property
    def model_id(self) -> str:
        return self._model_id

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append((query, list(texts)))
        if self.fail is not None:
            raise self.fail
        return [self._scores.get(text, self._default) for text in texts]
