"""Explain recall over HTTP (issue 35.1): ``explain: true`` on the search, ``POST /v1/memory/explain`` for one
entry (for an agent's auto-inject and tool search), the audited 404 for an entry the caller may not read, and
the plain search's store calls unchanged."""

from __future__ import annotations

from typing import Any

from mneme.models.policy import MemoryPolicy
from tests.functional.api.conftest import Api, add_agent
from tests.functional.engine.memory_support import remember
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


class _Counting:
    """The store, counting each method called through it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return attribute(*args, **kwargs)

        return counted


def test_search_with_explain_answers_the_hits_score_parts_and_the_dropped(api: Api, world: World) -> None:
    kept = remember(world, ALICE, "alice lives in Lyon near the river")
    gone = remember(world, ALICE, "alice lives in Paris near the river")
    world.memory.soft_delete(gone, ALICE, now=world.clock.now())
    reply = api.post("/v1/memory/search", {"query": "where does alice live", "explain": True})
    assert reply.status == 200
    explanation = reply.body["explanation"]
    assert [hit["id"] for hit in reply.body["hits"]] == [hit["id"] for hit in explanation["hits"]] == [kept]
    assert {"similarity", "vector", "keyword", "rule_bonus", "recency", "relevance", "fusion"} <= set(
        explanation["hits"][0]["scores"]
    )
    assert {d["id"]: d["reason"] for d in explanation["dropped"]} == {gone: "deleted"}


def test_search_without_explain_answers_no_explanation(api: Api, world: World) -> None:
    remember(world, ALICE, "alice lives in Lyon near the river")
    reply = api.post("/v1/memory/search", {"query": "where does alice live"})
    assert reply.status == 200 and "explanation" not in reply.body


def test_the_plain_search_calls_the_store_as_before_and_never_scans(api: Api, world: World) -> None:
    remember(world, ALICE, "alice lives in Lyon near the river")
    counting = _Counting(world.memory)
    world.deps.memory = counting
    api.post("/v1/memory/search", {"query": "where does alice live"})
    assert counting.calls == {"search": 1, "keyword_matches": 1, "adjacent": 1}
    counting.calls.clear()
    api.post("/v1/memory/search", {"query": "where does alice live", "explain": True})
    assert counting.calls.get("iter_owned") == 1  # only explaining looks at the entries the filter kept out


def test_explain_on_another_users_entry_is_404_and_audited_denied(api: Api, world: World) -> None:
    theirs = remember(world, "vector.user.bob.memory", "bob lives in Oslo", owner="bob")
    reply = api.post("/v1/memory/explain", {"query": "where does bob live", "memory_id": theirs})
    assert reply.status == 404 and "Oslo" not in str(reply.body)
    (denied,) = world.deps.audit.query("alice", action="denied").records
    assert (denied.detail["id"], denied.detail["reason"]) == (theirs, "not_found")
    assert world.deps.audit.query("alice", action="read").records == []


def test_explain_on_an_own_entry_says_it_is_recalled_by_the_search(api: Api, world: World) -> None:
    mine = remember(world, ALICE, "alice lives in Lyon near the river")
    reply = api.post("/v1/memory/explain", {"query": "where does alice live", "memory_id": mine})
    assert reply.status == 200 and reply.body["search"]["recalled"] is True
    assert world.deps.audit.query("alice", action="denied").records == []


def test_explain_for_an_agent_names_the_policy_rule_that_keeps_an_entry_out(api: Api, world: World) -> None:
    policy = MemoryPolicy(
        read_namespaces=["vector.agent.${agent_id}.user.${user_id}.*"],
        tool_read_namespaces=["vector.user.${user_id}.*"],
    )
    add_agent(world, "helper", memory_policy=policy)
    mine = remember(world, ALICE, "alice lives in Lyon near the river")
    reply = api.post("/v1/memory/explain", {"query": "where does alice live", "memory_id": mine, "agent_id": "helper"})
    assert reply.status == 200
    auto, tool = reply.body["auto_inject"], reply.body["tool_search"]
    assert auto["recalled"] is False
    assert (auto["reason"]["reason"], auto["reason"]["rule"]) == ("namespace_not_granted", "policy.read_namespaces")
    assert tool["recalled"] is True


def test_explain_for_an_agent_without_auto_read_names_that_switch(api: Api, world: World) -> None:
    add_agent(world, "quiet", memory_policy=MemoryPolicy(auto_read_enabled=False))
    mine = remember(world, ALICE, "alice lives in Lyon near the river")
    reply = api.post("/v1/memory/explain", {"query": "where does alice live", "memory_id": mine, "agent_id": "quiet"})
    assert reply.body["auto_inject"]["reason"]["rule"] == "policy.auto_read_enabled"


def test_the_preview_with_explain_names_what_auto_inject_dropped(api: Api, world: World) -> None:
    add_agent(world, "master")
    kept = remember(world, ALICE, "alice likes green tea")
    gone = remember(world, ALICE, "alice likes green tea a lot")
    world.memory.soft_delete(gone, ALICE, now=world.clock.now())
    reply = api.post(
        "/v1/context/preview", {"agent_id": "master", "input": "alice likes green tea"}, query={"explain": "true"}
    )
    assert reply.status == 200, reply.text
    explanation = reply.body["memory_explanation"]
    assert [h["id"] for h in explanation["hits"]] == [h["id"] for h in reply.body["memory_hits"]] == [kept]
    assert {d["id"]: d["reason"] for d in explanation["dropped"]} == {gone: "deleted"}


def test_the_preview_without_explain_has_no_explanation(api: Api, world: World) -> None:
    add_agent(world, "master")
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": "alice likes green tea"})
    assert reply.status == 200 and "memory_explanation" not in reply.body


def test_the_api_document_describes_the_explain_and_revisions_routes(api: Api) -> None:
    document = api.get("/v1/openapi.json", user=None).body
    assert "post" in document["paths"]["/v1/memory/explain"]
    assert "get" in document["paths"]["/v1/memory/documents/{doc_id}/revisions"]
    assert {"explain", "as_of"} <= set(document["components"]["schemas"]["SearchBody"]["properties"])
    assert set(document["components"]["schemas"]["ExplainBody"]["required"]) == {"query", "memory_id"}


def _explain_as_alice(api: Api, world: World, memory_id: str) -> tuple[int, str, list[tuple[str, str]]]:
    """The status, the body with the id masked, and the audit records the request left."""
    before = len(world.deps.audit.query("alice").records)
    reply = api.post("/v1/memory/explain", {"query": "the root password", "memory_id": memory_id})
    records = world.deps.audit.query("alice").records
    left = [(str(r.action), str(r.detail.get("reason"))) for r in records[: len(records) - before]]
    return reply.status, reply.text.replace(memory_id, "ID"), left


def test_explain_on_a_global_entry_an_admin_deleted_answers_a_user_as_an_unknown_id(api: Api, world: World) -> None:
    gone = remember(world, "vector.global.howto", "Oops: the root password is hunter2.", owner="")
    world.memory.soft_delete(gone, "vector.global.howto", now=world.clock.now())
    retracted = _explain_as_alice(api, world, gone)
    assert retracted == _explain_as_alice(api, world, "0" * 32)
    assert retracted[0] == 404 and retracted[2] == [("denied", "not_found")]
    admin = api.post("/v1/memory/explain", {"query": "the root password", "memory_id": gone}, user="root", admin=True)
    assert admin.status == 200 and admin.body["namespace"] == "vector.global.howto"


def test_explain_on_a_live_global_entry_answers_a_user(api: Api, world: World) -> None:
    kept = remember(world, "vector.global.howto", "To reset the VPN, restart the client.", owner="")
    reply = api.post("/v1/memory/explain", {"query": "how do I reset the VPN", "memory_id": kept})
    assert reply.status == 200 and reply.body["namespace"] == "vector.global.howto"
