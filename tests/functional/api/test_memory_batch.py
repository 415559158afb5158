"""``POST /v1/memory/documents:batch`` (issue 30.5): up to 100 entries embedded together, each answered by index,
retries made no-ops by client tokens, every stored item audited and every refused namespace audited."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
PATH = "/v1/memory/documents:batch"


def _items(count: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"namespace": ALICE, "content": f"Kate: turn number {i} of our chat.", **extra} for i in range(count)]


def test_a_batch_stores_every_item_embedded_in_one_call_and_audits_each(api: Api, world: World) -> None:
    reply = api.post(PATH, {"items": _items(3)})
    assert reply.status == 207, reply.text
    results = reply.body["results"]
    assert [(r["index"], r["status"], r["namespace"]) for r in results] == [(i, 201, ALICE) for i in range(3)]
    assert [world.memory.documents[r["ids"][0]].content for r in results] == [i["content"] for i in _items(3)]
    assert world.embedder.calls == [[i["content"] for i in _items(3)]]  # one embedding call for the batch
    writes = world.deps.audit.query("alice", action="write").records
    assert [r.namespace for r in writes] == [ALICE] * 3


def test_a_retried_batch_with_client_tokens_stores_nothing_twice(api: Api, world: World) -> None:
    items = [dict(item, client_token=f"chat-7:{i}") for i, item in enumerate(_items(3))]
    first = api.post(PATH, {"items": items}).body["results"]
    stored = dict(world.memory.documents)
    again = api.post(PATH, {"items": items}).body["results"]
    assert world.memory.documents == stored
    assert [r["ids"] for r in again] == [r["ids"] for r in first]
    assert all(r["replayed"] for r in again) and not any(r.get("replayed") for r in first)
    assert len(world.deps.audit.query("alice", action="write").records) == 3  # the retry wrote nothing


def test_an_item_whose_content_is_already_stored_says_it_was_refreshed(api: Api, world: World) -> None:
    # Given an entry stored on its own (an export of it carries other ids than an import's tokens make)
    kept = api.post("/v1/memory/documents", {"namespace": ALICE, "content": "Kate: turn number 0 of our chat."})
    # When a batch holds the same content, with a token, and a new one
    items = [dict(item, client_token=f"import:{i}") for i, item in enumerate(_items(2))]
    results = api.post(PATH, {"items": items}).body["results"]
    # Then the first answers the entry already there as refreshed, the second as stored
    assert (results[0]["ids"], results[0].get("refreshed")) == (kept.body["ids"], True)
    assert "refreshed" not in results[1] and "replayed" not in results[1]
    # and so again on a second import (its token never named the refreshed entry)
    assert api.post(PATH, {"items": items[:1]}).body["results"][0].get("refreshed") is True


def test_items_without_a_token_are_stored_again_on_a_retry(api: Api, world: World) -> None:
    # The other direction: no token, no idempotency (two requests, two entries each... refreshed by content)
    api.post(PATH, {"items": [{"namespace": ALICE, "content": "one"}]})
    api.post(PATH, {"items": [{"namespace": ALICE, "content": "two"}]})
    assert len(world.memory.documents) == 2


def test_a_token_reused_with_other_content_is_a_409_for_that_item(api: Api, world: World) -> None:
    api.post(PATH, {"items": [{"namespace": ALICE, "content": "first", "client_token": "t-1"}]})
    reply = api.post(PATH, {"items": [{"namespace": ALICE, "content": "second", "client_token": "t-1"}]})
    (result,) = reply.body["results"]
    assert result["status"] == 409 and result["error"]["field"] == "client_token"


def test_a_token_whose_entry_was_deleted_is_a_409_for_that_item_not_a_replay(api: Api, world: World) -> None:
    # Given an item stored under a token, then deleted by the user
    item = {"namespace": ALICE, "content": "first", "client_token": "t-1"}
    (stored,) = api.post(PATH, {"items": [item]}).body["results"]
    assert api.delete(f"/v1/memory/documents/{stored['ids'][0]}").status == 204
    # When the batch is sent again
    (result,) = api.post(PATH, {"items": [item]}).body["results"]
    # Then that item says its entry was deleted, instead of answering ids that are a 404
    assert result["status"] == 409 and "replayed" not in result and "ids" not in result
    assert result["error"]["field"] == "client_token" and "deleted" in result["error"]["message"]


def test_a_bad_item_is_reported_by_index_and_the_others_are_stored(api: Api, world: World) -> None:
    items = _items(3)
    items[1] = {"namespace": "not a namespace!", "content": "x"}
    items.append({"namespace": ALICE, "content": ""})
    results = api.post(PATH, {"items": items}).body["results"]
    assert [r["status"] for r in results] == [201, 400, 201, 400]
    assert results[1]["error"]["code"] == "invalid_input" and results[3]["error"]["field"] == "content"
    assert len(world.memory.documents) == 2


def test_another_users_namespace_in_one_item_is_refused_and_audited(api: Api, world: World) -> None:
    items = [*_items(1), {"namespace": "vector.user.bob.memory", "content": "planted"}]
    results = api.post(PATH, {"items": items}).body["results"]
    assert [r["status"] for r in results] == [201, 403]
    assert [d.namespace for d in world.memory.documents.values()] == [ALICE]
    denied = world.deps.audit.query("alice", action="denied").records
    assert [r.namespace for r in denied] == ["vector.user.bob.memory"]


def test_more_than_100_items_is_a_400_naming_the_limit(api: Api, world: World) -> None:
    reply = api.post(PATH, {"items": _items(101)})
    assert reply.status == 400 and "100" in reply.body["message"]
    assert world.memory.documents == {}


def test_the_same_token_of_two_users_names_two_entries(api: Api, world: World) -> None:
    alice = api.post(PATH, {"items": [{"namespace": ALICE, "content": "mine", "client_token": "t"}]})
    bob_item = {"namespace": "vector.user.bob.memory", "content": "mine", "client_token": "t"}
    bob = api.post(PATH, {"items": [bob_item]}, user="bob")
    assert alice.body["results"][0]["ids"] != bob.body["results"][0]["ids"]
    assert len(world.memory.documents) == 2


def test_an_item_that_is_no_object_is_refused_alone(api: Api, world: World) -> None:
    items = [{"namespace": ALICE, "content": "kept"}, 5, None, "x"]
    reply = api.post("/v1/memory/documents:batch", {"items": items})
    assert reply.status == 207, reply.text
    assert [(r["index"], r["status"]) for r in reply.body["results"]] == [(0, 201), (1, 400), (2, 400), (3, 400)]
    assert reply.body["results"][1]["error"]["field"] == "item"
    assert [d.content for d in world.memory.documents.values()] == ["kept"]


def test_a_token_whose_entry_was_edited_since_replays_the_same_item(api: Api, world: World) -> None:
    # Given an item stored under a token, then corrected by the user
    item = {"namespace": ALICE, "content": "Kate's sister works at the bakery.", "client_token": "import:7"}
    (stored,) = api.post(PATH, {"items": [item]}).body["results"]
    edited = api.call("PATCH", f"/v1/memory/documents/{stored['ids'][0]}", {"content": "Kate's sister is a nurse."})
    assert edited.status == 200, edited.text
    writes = len(world.deps.audit.query("alice", action="write").records)
    # When the same import runs again
    (result,) = api.post(PATH, {"items": [item]}).body["results"]
    # Then it is the same request, replayed: the entry keeps the user's correction, nothing is written
    assert (result["status"], result["ids"], result.get("replayed")) == (201, stored["ids"], True)
    assert world.memory.documents[stored["ids"][0]].content == "Kate's sister is a nurse."
    assert len(world.deps.audit.query("alice", action="write").records) == writes


def test_a_token_whose_entry_was_edited_is_still_a_409_with_a_third_content(api: Api, world: World) -> None:
    item = {"namespace": ALICE, "content": "Kate's sister works at the bakery.", "client_token": "import:7"}
    (stored,) = api.post(PATH, {"items": [item]}).body["results"]
    api.call("PATCH", f"/v1/memory/documents/{stored['ids'][0]}", {"content": "Kate's sister is a nurse."})
    (result,) = api.post(PATH, {"items": [dict(item, content="Kate's sister is a pilot.")]}).body["results"]
    assert result["status"] == 409 and result["error"]["field"] == "client_token"
