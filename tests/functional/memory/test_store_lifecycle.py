"""The lifecycle and keyword-leg part of the MemoryStore contract (issues 13.1, 13.4, 13.6), run against the
fake, the embedded store, the OpenSearch adapter on osmem-server (es and aoss modes) and the S3 Vectors adapter
on its stand-in (``keyword_leg`` tests do not apply to it: it has no keyword search, see conftest)."""

from __future__ import annotations

import pytest

from mneme.errors import InvalidInput, NotFound
from tests.functional.memory.conftest import NOW, doc, ids_of, later, unit

ALICE = "vector.user.alice.memory"


def test_lifecycle_fields_round_trip(store):
    entry = doc(
        "Alice lives in Lisbon.",
        memory_class="semantic",
        authority="extracted",
        observed_at=later(days=-3),
        parent_id="p-1",
        chunk_index=1,
        chunk_count=3,
    )
    store.put([(entry, unit(1))])
    assert store.get(entry.id, ALICE) == entry
    assert store.get(entry.id, ALICE).status == "active"


@pytest.mark.keyword_leg
def test_keyword_search_finds_a_rare_word_the_vector_does_not_rank(store):
    # Given the keyword-only match has the vector furthest from the query
    target = doc("The wifi password is zebra-4471.")
    others = [doc(f"We talked about the weather on day {i}.") for i in range(5)]
    store.put([(target, unit(-1, 1))] + [(o, unit(1, i / 10)) for i, o in enumerate(others)])
    # Then the vector leg ranks it last, the keyword leg first
    assert ids_of(store.search(unit(1), [ALICE], 6, now=NOW))[-1] == target.id
    found = store.keyword_search("what is the wifi password", [ALICE], 3, now=NOW)
    assert ids_of(found)[0] == target.id and found[0].similarity > 0


@pytest.mark.keyword_leg
def test_keyword_search_filter_is_inside_the_query(store):
    # Given better keyword matches in another user's namespace, deleted, superseded and expired entries
    mine = [doc(f"zebra note {i}") for i in range(2)]
    theirs = [doc("zebra zebra zebra", "vector.user.bob.memory") for _ in range(4)]
    gone, old, stale = doc("zebra zebra gone"), doc("zebra zebra old", superseded=True), doc("zebra z", expires_at=NOW)
    store.put([(e, unit(1)) for e in [*mine, *theirs, gone, old, stale]])
    store.soft_delete(gone.id, ALICE, now=NOW)
    # Then k=2 is filled from alice's live entries only
    assert sorted(ids_of(store.keyword_search("zebra", [ALICE], 2, now=NOW))) == sorted(e.id for e in mine)
    assert store.keyword_search("zebra", [], 2, now=NOW) == []


@pytest.mark.keyword_leg
def test_superseded_entry_leaves_both_legs_but_stays_readable_by_id(store):
    old, new = doc("Alice lives in Porto."), doc("Alice lives in Lisbon.")
    store.put([(old, unit(1)), (new, unit(1, 0.1))])
    store.set_status(old.id, ALICE, status="superseded", superseded_by=new.id, now=later(minutes=1))
    assert ids_of(store.search(unit(1), [ALICE], 5, now=NOW)) == [new.id]
    assert ids_of(store.keyword_search("Alice lives", [ALICE], 5, now=NOW)) == [new.id]
    kept = store.get(old.id, ALICE)
    assert kept is not None and kept.status == "superseded" and kept.superseded_by == new.id


def test_a_superseded_entry_can_be_restored(store):
    old = doc("Alice lives in Porto.")
    store.put([(old, unit(1))])
    store.set_status(old.id, ALICE, status="superseded", superseded_by="x", now=NOW)
    restored = store.set_status(old.id, ALICE, status="active", superseded_by=None, now=NOW, authority="user_directed")
    assert restored.status == "active" and restored.authority == "user_directed"
    assert ids_of(store.search(unit(1), [ALICE], 5, now=NOW)) == [old.id]


def test_set_status_of_an_unknown_entry_is_not_found(store):
    with pytest.raises(NotFound):
        store.set_status("nope", ALICE, status="superseded", superseded_by=None, now=NOW)


def test_refresh_keeps_the_content_and_merges_the_newer_entry(store):
    old = doc("Alice prefers tea.", tags=["a"], metadata={"source": "run_output", "run_id": "r1"})
    store.put([(old, unit(1))])
    newer = doc("Alice prefers tea!", tags=["b"], metadata={"source": "run_output", "run_id": "r2"}, at=later(days=1))
    merged = store.refresh(old.id, ALICE, newer)
    stored = store.get(old.id, ALICE)
    assert stored == merged
    assert stored.content == "Alice prefers tea." and stored.tags == ["a", "b"]
    assert stored.updated_at == later(days=1) and stored.metadata["run_id"] == "r2"
    assert [s["run_id"] for s in stored.metadata["sources"]] == ["r1", "r2"]


def test_list_documents_is_newest_first_with_a_cursor_and_a_status_filter(store):
    entries = [doc(f"entry {i}", at=later(minutes=i)) for i in range(5)]
    store.put([(e, unit(1, i / 10)) for i, e in enumerate(entries)])
    store.set_status(entries[1].id, ALICE, status="superseded", superseded_by=None, now=NOW)
    store.soft_delete(entries[0].id, ALICE, now=NOW)
    first, cursor = store.list_documents(ALICE, status=None, limit=2, cursor=None)
    assert [d.id for d in first] == [entries[4].id, entries[3].id] and cursor
    rest, end = store.list_documents(ALICE, status=None, limit=2, cursor=cursor)
    assert [d.id for d in rest] == [entries[2].id, entries[1].id] and end is None
    active, _ = store.list_documents(ALICE, status="active", limit=10, cursor=None)
    assert [d.id for d in active] == [e.id for e in entries[2:]][::-1]
    deleted, _ = store.list_documents(ALICE, status="deleted", limit=10, cursor=None)
    assert [d.id for d in deleted] == [entries[0].id]


def test_a_forged_cursor_is_invalid_input(store):
    with pytest.raises(InvalidInput):
        store.list_documents(ALICE, status=None, limit=2, cursor="not-a-cursor")


def test_namespace_counts_by_status(store):
    a, b, c = doc("a"), doc("b"), doc("c", "vector.user.alice.prefs")
    store.put([(a, unit(1)), (b, unit(2)), (c, unit(3)), (doc("d", "vector.user.bob.memory"), unit(4))])
    store.soft_delete(b.id, ALICE, now=NOW)
    assert store.namespace_counts(["vector.user.alice.*"]) == {
        ALICE: {"active": 1, "superseded": 0, "deleted": 1},
        "vector.user.alice.prefs": {"active": 1, "superseded": 0, "deleted": 0},
    }


def test_derived_ids_preview_what_a_delete_cascades_to(store):
    root = doc("root", at=NOW)
    child = doc("child", derived_from=[root.id], at=later(minutes=1))
    grandchild = doc("grandchild", derived_from=[child.id], at=later(minutes=2))
    store.put([(root, unit(1)), (child, unit(2)), (grandchild, unit(3)), (doc("other"), unit(4))])
    preview = store.derived_ids(root.id)
    assert preview == [child.id, grandchild.id]
    assert store.soft_delete(root.id, ALICE, now=NOW) == [root.id, *preview]


@pytest.mark.keyword_leg
def test_hybrid_retrieval_over_the_store_finds_the_keyword_only_match_and_keeps_the_filter(store):
    from mneme.engine.memory_io.retrieval import retrieve
    from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
    from mneme.memory.access import ReadAccess
    from mneme.models.policy import Retrieval
    from tests.fakes.clock import FixedClock

    # Given the answer far from the query vector, bob's better matches in both legs, and alice's distractors
    # (written in this order, a second apart: OpenSearch orders a namespace's writes by created_at)
    distractors = [doc(f"We talked about the weather on day {i}.", at=later(seconds=i)) for i in range(5)]
    fillers = [doc(f"Unrelated note {i}.", at=later(seconds=10 + i)) for i in range(2)]  # the target's conversation
    target = doc("The wifi password is zebra-4471.", at=later(seconds=20))
    bobs = [doc("wifi password zebra-4471 for bob", "vector.user.bob.memory") for _ in range(3)]
    store.put([(d, unit(1, i / 10)) for i, d in enumerate(distractors)] + [(f, unit(0, 1)) for f in fillers])
    store.put([(target, unit(-1, 1))])
    store.put([(b, unit(1)) for b in bobs])
    ports = MemoryPorts(store=store, embedder=None, audit=None, clock=FixedClock(NOW))  # type: ignore[arg-type]
    access = ReadAccess(allowed=(ALICE,))

    def found(retrieval: Retrieval) -> list[str]:
        ranking = Ranking(top_k=1, retrieval=retrieval)  # k = 4 candidates for the vector leg alone
        return ids_of(retrieve(ports, store, access, "wifi password", ranking, vector=unit(1), now=NOW))

    assert target.id not in found("vector")
    assert found("hybrid")[0] == target.id
    assert not {b.id for b in bobs} & set(found("hybrid"))
