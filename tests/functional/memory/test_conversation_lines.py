"""The lines shown with a recalled chat line come from the hit's own namespace on every store that reads
conversations (issue 30, :mod:`mneme.memory.conversation`): another user's memory written in between is never one,
nor one deleted since; a store that reads no conversation (S3 Vectors) shows none."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.engine.memory_io.ops import MemoryPorts, Ranking, search_explained
from mneme.memory.access import ReadAccess
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, later, make_store, unit

ALICE, BOB = "vector.user.alice.memory", "vector.user.bob.memory"
QUESTION = "What genre is the first screenplay?"


class _Embedder:
    model_id = "hashing"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [unit(1) for _ in texts]


def _shown(store: Any, retrieval: str = "hybrid") -> dict[str, list[str]]:
    ports = MemoryPorts(store=store, embedder=_Embedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    ranking = Ranking(top_k=1, min_score=0, relative_cutoff=0, retrieval=retrieval, lines=True)  # type: ignore[arg-type]
    ranked = search_explained(ports, lambda *_a, **_k: [], ReadAccess(allowed=(ALICE,)), QUESTION, ranking, via="t")
    return {hit.id: [line.content for line in hit.context] for hit in ranked.hits}


def _conversation(store: Any) -> None:
    store.put([(doc("Joanna: I finished my first screenplay!", doc_id="hit"), unit(1))])
    store.put([(doc("Bob: My PIN is 4321.", BOB, doc_id="bob", at=later(seconds=1)), unit(1))])
    store.put([(doc("Joanna: A mix of drama and romance.", doc_id="answer", at=later(seconds=2)), unit(0, 1))])


@pytest.mark.keyword_leg
@pytest.mark.parametrize("retrieval", ["hybrid", "vector"])
def test_the_line_after_a_hit_is_the_next_of_its_own_namespace(store: Any, retrieval: str) -> None:
    _conversation(store)
    assert _shown(store, retrieval) == {"hit": ["Joanna: A mix of drama and romance."]}


@pytest.mark.keyword_leg
def test_a_line_deleted_since_is_not_shown(store: Any) -> None:
    _conversation(store)
    store.soft_delete("answer", ALICE, now=NOW)
    assert _shown(store) == {"hit": []}


def test_a_store_that_reads_no_conversation_shows_no_line(tmp_path: Any) -> None:
    store = make_store("s3vectors", tmp_path, None, "lines", 8)
    _conversation(store)
    assert _shown(store) == {"hit": []}
