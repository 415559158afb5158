"""Standing memories over HTTP: an agent saved with ``standing_namespaces``, its runs' model shown those entries
whatever the question, the preview showing them, explain saying why, a wildcard refused with a clear 400."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from mneme.engine.memory_io.standing import MAX_ENTRIES
from tests.functional.api.conftest import Api
from tests.functional.engine.memory_support import remember, remember_at
from tests.support.deps import World

PREFS = "vector.user.alice.preferences"
BULLETS = "I prefer answers in bullet points."
QUESTION = "Suggest a dinner recipe for tonight."
STANDING = {"standing_namespaces": ["vector.user.${user_id}.preferences"]}


def _agent(api: Api, policy: Mapping[str, object]) -> None:
    body = {"label": "Helper", "model": {"provider": "offline", "model_id": "offline"}, "memory_policy": policy}
    reply = api.put("/v1/agents/helper", body)
    assert reply.status == 200, reply.text


def test_a_run_of_an_agent_with_standing_namespaces_shows_their_entries(api: Api, world: World) -> None:
    _agent(api, STANDING)
    remember(world, PREFS, BULLETS)
    reply = api.post("/v1/runs", {"agent_id": "helper", "input": QUESTION})
    assert reply.status == 200, reply.text
    context = api.get(f"/v1/runs/{reply.body['run_id']}/context")
    assert BULLETS in context.text


def test_the_preview_shows_the_standing_entries_marked_as_such(api: Api, world: World) -> None:
    _agent(api, STANDING)
    entry = remember(world, PREFS, BULLETS)
    reply = api.post("/v1/context/preview", {"agent_id": "helper", "input": QUESTION})
    assert reply.status == 200, reply.text
    assert [(h["id"], h.get("standing")) for h in reply.body["memory_hits"]] == [(entry, True)]
    reads = world.deps.audit.query("alice", action="preview").records
    assert [(r.namespace, r.detail.get("standing")) for r in reads if r.namespace == PREFS] == [(PREFS, True)]


def test_explain_says_a_standing_entry_is_injected_whatever_the_question(api: Api, world: World) -> None:
    _agent(api, STANDING)
    entry = remember(world, PREFS, BULLETS)
    body = {"query": QUESTION, "memory_id": entry, "agent_id": "helper"}
    auto = api.post("/v1/memory/explain", body).body["auto_inject"]
    assert (auto["recalled"], auto["standing"], auto["rule"]) == (True, True, "policy.standing_namespaces")


def test_explain_of_the_same_entry_without_standing_namespaces_says_it_is_not_recalled(api: Api, world: World) -> None:
    _agent(api, {})
    entry = remember(world, PREFS, BULLETS)
    body = {"query": QUESTION, "memory_id": entry, "agent_id": "helper"}
    auto = api.post("/v1/memory/explain", body).body["auto_inject"]
    assert auto["recalled"] is False and "standing" not in auto


def test_a_wildcard_standing_namespace_is_a_400_naming_it(api: Api) -> None:
    body = {
        "label": "Helper",
        "model": {"provider": "offline", "model_id": "offline"},
        "memory_policy": {"standing_namespaces": ["vector.user.${user_id}.*"]},
    }
    reply = api.put("/v1/agents/helper", body)
    assert reply.status == 400
    assert "standing namespace" in reply.body["message"] and "wildcard" in reply.body["message"]


def test_explain_says_a_standing_entry_left_out_by_the_budget_is_not_shown_and_why(api: Api, world: World) -> None:
    _agent(api, STANDING)
    oldest = remember_at(world, PREFS, "The oldest preference.", query=QUESTION, similarity=0.0, age=timedelta(days=1))
    for n in range(MAX_ENTRIES):
        remember(world, PREFS, f"A newer preference, number {n}.")
    body = {"query": QUESTION, "memory_id": oldest, "agent_id": "helper"}
    auto = api.post("/v1/memory/explain", body).body["auto_inject"]
    assert auto["standing"] == {"shown": False, "reason": "budget"}
    assert auto["recalled"] is False
