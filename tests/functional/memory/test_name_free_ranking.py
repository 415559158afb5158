"""A question naming a speaker is ranked by its vector without the name, on every store with a keyword leg (issue
30): the whole question's nearest turn is one that only addresses the speaker, the name-free question's nearest
is what she said; the same core code over the fake, the embedded store and the OpenSearch adapter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mneme.engine.memory_io.retrieval import retrieve
from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
from mneme.memory import name_lift
from mneme.memory.access import ReadAccess
from tests.fakes.clock import FixedClock
from tests.functional.memory.conftest import NOW, doc, make_store, unit

ALICE = "vector.user.alice.memory"
QUESTION = "Which piece is Caroline rehearsing?"
WHOLE, NAME_FREE = unit(1, 0.1), unit(0.1, 1)


class _NameFreeEmbedder:
    """Embeds the question without the name as :data:`NAME_FREE` (the whole one is passed to the search)."""

    model_id = "hashing"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return [NAME_FREE for _ in texts]


def _ranked(store: Any) -> tuple[list[str], _NameFreeEmbedder]:
    addressed = doc("Melanie: Take care, Caroline!", doc_id="addressed")
    said = doc("Caroline: A Bach suite, for the spring recital.", doc_id="said")
    store.put([(addressed, unit(1)), (said, unit(0, 1))])
    embedder = _NameFreeEmbedder()
    ports = MemoryPorts(store=store, embedder=embedder, audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    found = retrieve(ports, store, ReadAccess(allowed=(ALICE,)), QUESTION, Ranking(top_k=5), vector=WHOLE, now=NOW)
    return [c.document.id for c in found], embedder


@pytest.mark.keyword_leg
def test_a_question_naming_a_speaker_ranks_what_she_said_first(store: Any) -> None:
    ranked, embedder = _ranked(store)
    assert ranked[0] == "said"
    assert embedder.texts == ["Which piece is rehearsing?"]


@pytest.mark.keyword_leg
def test_without_the_name_lift_the_turn_addressing_her_comes_first(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(name_lift, "named", lambda *_args: None)
    ranked, embedder = _ranked(store)
    assert ranked[0] == "addressed"
    assert embedder.texts == []


STRANGER = "What did Penelope cook for dinner?"


def _stranger_relevance(store: Any) -> float:
    store.put([(doc("Melanie: What do you cook these days?", doc_id="cooking"), unit(1))])
    ports = MemoryPorts(store=store, embedder=_NameFreeEmbedder(), audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    found = retrieve(ports, store, ReadAccess(allowed=(ALICE,)), STRANGER, Ranking(top_k=5), vector=unit(1), now=NOW)
    return found[0].similarity


def test_a_store_without_keyword_statistics_does_not_take_everyone_for_a_stranger(tmp_path: Any) -> None:
    # S3 Vectors counts no word: Penelope may be in the memory for all it knows, so the vector keeps its say
    assert _stranger_relevance(make_store("s3vectors", tmp_path, None, "names", 8)) > 0.5


def test_a_store_that_counts_words_takes_her_for_a_stranger(tmp_path: Any) -> None:
    assert _stranger_relevance(make_store("embedded", tmp_path, None, "names", 8)) < 0.01
