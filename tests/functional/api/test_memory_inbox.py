"""The memory inbox over HTTP (issue 13.6): list by recency with status and cursor, read one (with the cascade
preview), confirm / correct, namespaces with counts — owner-checked and audited."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


def _entries(world: World, count: int) -> list[str]:
    ids = []
    for i in range(count):
        ids.append(remember(world, ALICE, f"note number {i}"))
        world.clock.advance(minutes=1)
    return ids


def test_listing_is_newest_first_with_a_cursor(api: Api, world: World) -> None:
    ids = _entries(world, 3)
    first = api.get("/v1/memory/documents", query={"namespace": ALICE, "limit": "2"})
    assert first.status == 200
    assert [d["id"] for d in first.body["documents"]] == [ids[2], ids[1]]
    rest = api.get("/v1/memory/documents", query={"namespace": ALICE, "limit": "2", "cursor": first.body["cursor"]})
    assert [d["id"] for d in rest.body["documents"]] == [ids[0]] and rest.body["cursor"] is None
    shown = first.body["documents"][0]
    assert shown["status"] == "active" and shown["class"] == "semantic" and "recorded_at" in shown


def test_listing_filters_by_status(api: Api, world: World) -> None:
    ids = _entries(world, 2)
    world.memory.set_status(ids[0], ALICE, status="superseded", superseded_by=ids[1], now=world.clock.now())
    reply = api.get("/v1/memory/documents", query={"namespace": ALICE, "status": "superseded"})
    assert [d["id"] for d in reply.body["documents"]] == [ids[0]]
    assert reply.body["documents"][0]["superseded_by"] == ids[1]


def test_another_users_namespace_is_not_found_reads_nothing_and_is_audited_as_denied(api: Api, world: World) -> None:
    remember(world, "vector.user.bob.memory", "bob's secret", owner="bob")
    reply = api.get("/v1/memory/documents", query={"namespace": "vector.user.bob.memory"})
    assert reply.status == 404
    assert world.deps.audit.query("alice", action="read").records == []
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["reason"]) == ("vector.user.bob.memory", "security_filter")


def test_reading_one_entry_shows_a_superseded_entry_and_the_cascade_preview(api: Api, world: World) -> None:
    root = remember(world, ALICE, "root note")
    child = world.memory.documents[remember(world, ALICE, "child note")]
    world.memory.documents[child.id] = child.model_copy(update={"derived_from": [root]})
    world.memory.set_status(root, ALICE, status="superseded", superseded_by=None, now=world.clock.now())
    reply = api.get(f"/v1/memory/documents/{root}", query={"derived": "true"})
    assert reply.status == 200 and reply.body["status"] == "superseded" and reply.body["derived"] == [child.id]
    reads = world.deps.audit.query("alice", action="read").records
    assert [r.detail.get("id") for r in reads] == [root]


def test_another_users_entry_by_id_is_not_found(api: Api, world: World) -> None:
    theirs = remember(world, "vector.user.bob.memory", "bob's secret", owner="bob")
    assert api.get(f"/v1/memory/documents/{theirs}").status == 404
    assert api.call("PATCH", f"/v1/memory/documents/{theirs}", {"content": "mine now"}).status == 404
    assert world.memory.documents[theirs].content == "bob's secret"


def test_a_404_on_another_users_entry_id_leaves_a_denied_record(api: Api, world: World) -> None:
    theirs = remember(world, "vector.user.bob.memory", "bob's secret", owner="bob")
    assert api.get(f"/v1/memory/documents/{theirs}").status == 404
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["id"], denied.detail["via"]) == (None, theirs, "inbox")


def test_an_unknown_entry_id_is_audited_exactly_like_another_users(api: Api, world: World) -> None:
    assert api.get("/v1/memory/documents/no-such-id").status == 404
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.namespace, denied.detail["reason"]) == (None, "not_found")


def test_an_own_entry_read_leaves_no_denied_record(api: Api, world: World) -> None:
    mine = remember(world, ALICE, "my note")
    assert api.get(f"/v1/memory/documents/{mine}").status == 200
    assert world.deps.audit.query("alice", action="denied").records == []


def test_correcting_an_entry_re_embeds_it_and_marks_it_user_directed(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "Alice lives in Lisbon", "tags": ["home"]})
    assert reply.status == 200, reply.text
    assert reply.body["content"] == "Alice lives in Lisbon" and reply.body["authority"] == "user_directed"
    assert world.memory.vectors[doc_id] == world.embedder.vector("Alice lives in Lisbon")
    [update] = world.deps.audit.query("alice", action="update").records
    assert update.detail["changed"] == ["content", "tags"]


def test_superseding_by_patch_hides_the_entry_from_search(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "Alice lives in Porto")
    assert api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"status": "superseded"}).status == 200
    hits = api.post("/v1/memory/search", {"query": "Alice lives in Porto"}).body["hits"]
    assert doc_id not in [h["id"] for h in hits]


def test_an_empty_patch_is_a_400(api: Api, world: World) -> None:
    doc_id = remember(world, ALICE, "x")
    assert api.call("PATCH", f"/v1/memory/documents/{doc_id}", {}).status == 400


def test_namespaces_are_the_callers_own_with_counts(api: Api, world: World) -> None:
    ids = _entries(world, 2)
    remember(world, "vector.user.alice.prefs", "tea")
    remember(world, "vector.user.bob.memory", "bob", owner="bob")
    world.memory.soft_delete(ids[0], ALICE, now=world.clock.now())
    reply = api.get("/v1/memory/namespaces")
    assert reply.body["namespaces"] == [
        {"namespace": ALICE, "active": 1, "superseded": 0, "deleted": 1},
        {"namespace": "vector.user.alice.prefs", "active": 1, "superseded": 0, "deleted": 0},
    ]


def test_a_correction_over_the_models_input_limit_is_a_413_and_changes_nothing(api: Api, world: World) -> None:
    from mneme.memory.embedding_limits import TITAN_V2
    from tests.fakes.embedder import HashingEmbedder

    doc_id = remember(world, ALICE, "short note")
    world.deps.embedder = world.embedder = HashingEmbedder(model_id=TITAN_V2.model_id)
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "word " * 12_000})
    assert reply.status == 413 and "50,000" in reply.body["message"]
    assert world.memory.documents[doc_id].content == "short note"


def test_a_too_long_correction_says_how_to_store_the_longer_text(api: Api, world: World) -> None:
    # A POST stores the same text in chunks; a PATCH changes one stored text and says so
    from mneme.memory.embedding_limits import LOCAL_MINILM
    from tests.fakes.embedder import HashingEmbedder

    doc_id = remember(world, ALICE, "short note")
    world.deps.embedder = world.embedder = HashingEmbedder(model_id=LOCAL_MINILM.model_id)  # 2,000 characters
    reply = api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"content": "word " * 900})
    assert (reply.status, reply.body["error"], reply.body["field"]) == (413, "embedding_input_too_long", "content")
    assert "POST /v1/memory/documents" in reply.body["message"] and "chunks" in reply.body["message"]
    assert api.post("/v1/memory/documents", {"namespace": ALICE, "content": "word " * 900}).status == 201


def test_a_global_entry_is_readable_but_only_an_admin_corrects_it(api: Api, world: World) -> None:
    doc_id = remember(world, "vector.global.howto", "Restart the router first", owner="")
    assert api.get(f"/v1/memory/documents/{doc_id}").status == 200
    assert api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"tags": ["x"]}).status == 403
    [denied] = world.deps.audit.query("alice", action="denied").records
    assert denied.namespace == "vector.global.howto" and denied.detail["reason"] == "admin_required"
    assert api.call("PATCH", f"/v1/memory/documents/{doc_id}", {"tags": ["x"]}, admin=True).status == 200
