"""A deterministic fake of the Embedder port: hashed bag of words (+ character trigrams), normalized.

Texts that share words get close vectors, unrelated texts nearly orthogonal ones; no model, no network.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from mneme.errors import InvalidInput
from mneme.memory.embedding_limits import limit_for

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    def __init__(self, dimension: int = 256, *, trigram_weight: float = 0.3, model_id: str = "hashing") -> None:
        """``model_id`` picks the input limit it enforces (e.g. Titan V2's 50,000 characters)."""
        self._model_id = model_id
        self._dimension = dimension
        self._trigram_weight = trigram_weight
        self.calls: list[list[str]] = []
        self.fail: Exception | None = None  # e.g. EmbeddingUnavailable(...): every call raises it

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_id(self) -> str:
        return self._model_id

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        if self.fail is not None:
            raise self.fail
        for index, text in enumerate(texts):
            if not text.strip():
                raise InvalidInput(f"text {index} to embed is empty", field="text")
            limit_for(self._model_id).check(text)  # raises above the limit, like Titan would
        return [self.vector(text) for text in texts]

    def vector(self, text: str) -> list[float]:
        values = [0.0] * self._dimension
        for word in _WORD.findall(text.lower()):
            stem = word[:-1] if len(word) > 3 and word.endswith("s") else word
            self._add(values, "w:" + stem, 1.0)
            padded = f"#{stem}#"
            for i in range(len(padded) - 2):
                self._add(values, "t:" + padded[i : i + 3], self._trigram_weight)
        norm = math.sqrt(sum(v * v for v in values))
        if norm == 0:  # no letters or digits at all: a fixed unit vector
            values[0] = 1.0
            return values
        return [v / norm for v in values]

    def _add(self, values: list[float], feature: str, weight: float) -> None:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "big") % self._dimension
        sign = 1.0 if digest[4] & 1 else -1.0
        values[index] += sign * weight
