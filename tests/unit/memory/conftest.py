"""Fixtures of the memory unit tests."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from mneme.memory.content_prior import distinct_content_words


@pytest.fixture
def content_reads(monkeypatch) -> Callable[[ModuleType], list[str]]:
    """``watch(module)``: the texts ``module`` reads the content words of from now on (its
    ``distinct_content_words`` counted), its caches of them emptied first."""

    def watch(module: ModuleType) -> list[str]:
        reads: list[str] = []

        def counted(body: str) -> set[str]:
            reads.append(body)
            return distinct_content_words(body)

        monkeypatch.setattr(module, "distinct_content_words", counted)
        for cached in ("_words", "content_factor"):
            getattr(getattr(module, cached, None), "cache_clear", lambda: None)()
        return reads

    return watch
