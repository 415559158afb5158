"""The memory as it was (issue 35.3): each entry's state at a moment (``history.state_at``) and the read-only
snapshot the as-of search reads (``mneme.memory.snapshot``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mneme.engine.memory_io.history import state_at
from mneme.memory.snapshot import MemorySnapshot
from mneme.models.memory import MemoryDocument
from mneme.models.revision import MemoryRevision

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ALICE = "vector.user.alice.memory"
X = [1.0, 0.0]
Y = [0.0, 1.0]


def doc(doc_id: str, content: str = "", namespace: str = ALICE, **fields: Any) -> MemoryDocument:
    return MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id="alice",
        content=content or f"content of {doc_id}",
        content_hash=f"h-{doc_id}",
        created_at=NOW,
        updated_at=NOW,
        **fields,
    )


def revision(document: MemoryDocument, minutes: int, n: int) -> MemoryRevision:
    at = NOW + timedelta(minutes=minutes)
    return MemoryRevision(
        doc_id=document.id,
        key=f"{at.isoformat()}#{n:012d}",
        change="create",
        at=at,
        by="user",
        owner_user_id="alice",
        document=document,
    )


# ------------------------------------------------------------------------------------------- state_at
def test_state_at_takes_each_entrys_last_revision_at_or_before_the_moment() -> None:
    history = [
        revision(doc("a", "first"), 0, 1),
        revision(doc("a", "second"), 10, 2),
        revision(doc("a", "third"), 20, 3),
    ]
    assert [d.content for d in state_at(history, NOW + timedelta(minutes=10))] == ["second"]
    assert [d.content for d in state_at(history, NOW + timedelta(minutes=9))] == ["first"]


def test_state_at_leaves_out_an_entry_created_after_the_moment() -> None:
    history = [revision(doc("a"), 0, 1), revision(doc("b"), 5, 2)]
    assert [d.id for d in state_at(history, NOW + timedelta(minutes=4))] == ["a"]
    assert [d.id for d in state_at(history, NOW + timedelta(minutes=5))] == ["a", "b"]


def test_state_at_orders_entries_as_they_were_created_not_by_id_nor_by_last_change() -> None:
    history = [
        revision(doc("a"), 0, 2),  # created second (same moment, later key) ...
        revision(doc("a", "edited"), 30, 9),
        revision(doc("z"), 0, 1),  # ... after z
        revision(doc("m"), 10, 3),
    ]
    assert [d.id for d in state_at(history, NOW + timedelta(hours=1))] == ["z", "a", "m"]


# ------------------------------------------------------------------------------------------- snapshot
def test_only_documents_given_a_vector_are_found_by_the_vector_search() -> None:
    snapshot = MemorySnapshot([doc("a", "ticket one"), doc("b", "ticket two")], {"a": X})
    assert [c.document.id for c in snapshot.search(X, [ALICE], 5, now=NOW)] == ["a"]


def test_a_document_without_a_vector_is_still_a_keyword_match() -> None:
    snapshot = MemorySnapshot([doc("a", "ticket one"), doc("b", "ticket two")], {"a": X})
    matches = snapshot.keyword_matches(["two"], [ALICE], 10, now=NOW)
    assert [d.id for d in matches.documents] == ["b"] and matches.total_documents == 2


def test_liveness_is_judged_at_the_moment_asked() -> None:
    expiring = doc("a", expires_at=NOW + timedelta(hours=1))
    snapshot = MemorySnapshot([expiring, doc("b", deleted=True)], {"a": X, "b": X})
    assert [c.document.id for c in snapshot.search(X, [ALICE], 5, now=NOW)] == ["a"]
    assert snapshot.search(X, [ALICE], 5, now=NOW + timedelta(hours=1)) == []


def test_the_vector_search_ranks_by_similarity_within_the_patterns_only() -> None:
    snapshot = MemorySnapshot(
        [doc("a"), doc("b"), doc("c", namespace="vector.user.alice.notes")], {"a": Y, "b": X, "c": X}
    )
    found = snapshot.search(X, [ALICE], 5, now=NOW)
    assert [(c.document.id, c.similarity) for c in found] == [("b", 1.0), ("a", 0.0)]


def test_the_conversation_around_a_turn_is_the_order_documents_were_given_in() -> None:
    turns = [doc("c"), doc("a"), doc("b", deleted=True), doc("d")]
    snapshot = MemorySnapshot(turns, dict.fromkeys("cabd", X))
    before, after = snapshot.adjacent([turns[1]], 2, now=NOW)["a"]
    assert ([d.id for d in before], [d.id for d in after]) == (["c"], ["d"])


def test_without_keyword_search_there_are_no_keyword_matches_nor_windows() -> None:
    turns = [doc("a", "ticket one"), doc("b", "ticket two")]
    plain = MemorySnapshot(turns, {"a": X, "b": X})
    vector_only = MemorySnapshot(turns, {"a": X, "b": X}, keyword_search_available=False)
    assert len(plain.keyword_matches(["ticket"], [ALICE], 10, now=NOW).documents) == 2
    assert vector_only.keyword_matches(["ticket"], [ALICE], 10, now=NOW).documents == []
    assert plain.adjacent([turns[0]], 2, now=NOW) != {}
    assert vector_only.adjacent([turns[0]], 2, now=NOW) == {}


def test_iter_owned_lists_every_status_of_the_users_entries_only() -> None:
    theirs = doc("t").model_copy(update={"owner_user_id": "bob", "namespace": "vector.user.bob.memory"})
    snapshot = MemorySnapshot([doc("b", deleted=True), doc("a"), theirs])
    assert [d.id for d in snapshot.iter_owned("alice")] == ["a", "b"]
