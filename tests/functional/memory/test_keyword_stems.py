"""A question's word finds and counts the memories that hold it inflected, in every store: mneme counts words by
Porter stem (``mneme.memory.keyword_scoring``), the embedded store's FTS5 matches by stem, and the OpenSearch adapter
matches ``content.words`` (the ``english`` analyzer). With OpenSearch's standard analyzer alone, "name" neither found
nor counted "named": a memory the embedded store recalled by its words was not found on AWS."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

from mneme.adapters.opensearch.http import SignedOpenSearch
from mneme.adapters.opensearch.queries import index_body
from tests.functional.memory.conftest import NOW, doc, make_store, unit

NOTES = "vector.user.alice.notes"
SAID = {
    "beagle": "We have an old beagle named Chorizo.",
    "runner": "Tom runs along the river every morning.",
    "kate": "That is Kate's bike.",
    "other": "The office closes at seven.",
}


def _matches(store: Any, word: str) -> tuple[set[str], int]:
    store.put([(doc(text, NOTES, doc_id=key), unit(1)) for key, text in SAID.items()])
    found = store.keyword_matches([word], [NOTES], 10, now=NOW)
    return {d.id for d in found.documents}, found.doc_freq.get(word, 0)


@pytest.mark.keyword_leg
@pytest.mark.parametrize(("word", "holder"), [("name", "beagle"), ("run", "runner"), ("kate", "kate")])
def test_a_word_finds_and_counts_the_memory_that_holds_it_inflected(store: Any, word: str, holder: str) -> None:
    assert _matches(store, word) == ({holder}, 1)


@pytest.mark.keyword_leg
def test_a_word_no_memory_holds_finds_none(store: Any) -> None:
    assert _matches(store, "bicycle") == (set(), 0)


def test_an_index_from_before_the_stems_finds_its_old_documents_by_their_words_and_new_ones_by_stem(
    os_client: SignedOpenSearch, os_admin: OpenSearch, index_name: str, tmp_path: Path
) -> None:
    mapping = index_body(8)["mappings"]
    mapping["properties"]["content"] = {"type": "text"}  # as created before content.words
    os_admin.indices.create(index=index_name, body={"settings": {"index": {"knn": True}}, "mappings": mapping})
    before = make_store("opensearch-aoss", tmp_path, os_client, index_name, 8)
    before._index_ready = True  # what a store of the earlier release wrote: no put_mapping
    before.put([(doc("Kate named her cat Pixel.", NOTES, doc_id="old"), unit(1))])
    store = make_store("opensearch-aoss", tmp_path, os_client, index_name, 8)
    store.put([(doc("We have an old beagle named Chorizo.", NOTES, doc_id="new"), unit(1))])
    assert {d.id for d in store.keyword_matches(["named"], [NOTES], 10, now=NOW).documents} == {"old", "new"}
    assert {d.id for d in store.keyword_matches(["name"], [NOTES], 10, now=NOW).documents} == {"new"}
