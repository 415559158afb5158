"""Runs over HTTP (SPEC §1, §7, §10): fast path 200, hand-off 202, reads, idempotency."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api, add_agent, stored_runs
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World
from tests.support.shapes import RUN_KEYS, USAGE_KEYS


# ------------------------------------------------------------------------------------------ POST /v1/runs
@pytest.mark.usefixtures("master")
def test_a_run_that_needs_nothing_else_answers_200_with_the_finished_run(api: Api, world: World) -> None:
    # When alice starts a plain run
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hello"})
    # Then 200 with a Run of SPEC §10, succeeded on the fast path
    assert reply.status == 200
    run = reply.body
    assert set(run) >= RUN_KEYS
    assert set(run["usage"]) == USAGE_KEYS
    assert (run["status"], run["output"], run["depth"], run["parent_run_id"]) == (
        "succeeded",
        "offline: hello",
        0,
        None,
    )
    assert run["root_run_id"] == run["run_id"]
    assert run["children"] == []
    assert world.orchestrator.started == []


@pytest.mark.usefixtures("master")
def test_the_events_route_explains_each_memory_hit_and_what_was_dropped(api: Api) -> None:
    # Given one memory of alice's in both namespaces the master reads
    for namespace in ("vector.user.alice.memory", "vector.agent.alice.memory"):
        entry = {"namespace": namespace, "content": "alice drinks green tea"}
        assert api.post("/v1/memory/documents", entry).status == 201
    # When she runs the master and reads its events over HTTP
    run = start(api, "what does alice drink? green tea?")
    (event,) = [e for e in events_of(api, run["run_id"]) if e["type"] == "memory_hits"]
    # Then the hit has its similarity and relevance, the copy is counted as a duplicate, nothing was denied
    assert set(event["hits"][0]) == {"id", "namespace", "similarity", "relevance"}
    assert event["dropped"]["duplicate"] == 1 and event["denied"] == []
    assert set(event["dropped"]) == {"unusable", "min_score", "duplicate", "relative_cutoff", "top_k"}


@pytest.mark.usefixtures("master")
def test_a_finished_run_stores_the_turn_in_its_chat(api: Api, world: World) -> None:
    run = start(api, "hello")
    chat = world.deps.chats.get_chat("alice", run["chat_id"])
    assert chat is not None
    assert [m.role for m in chat.messages] == ["user", "assistant"]


@pytest.mark.usefixtures("master")
def test_a_delegating_run_is_handed_off_with_202(api: Api, world: World) -> None:
    # When the model asks to delegate
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "/delegate helper :: summarise the news"})
    # Then 202 {run_id, status}, and the state machine was started for the run at depth 0
    assert reply.status == 202
    assert set(reply.body) == {"run_id", "status"}
    assert reply.body["status"] == "running"
    assert world.orchestrator.started == [(reply.body["run_id"], 0)]
    assert reply.body["run_id"] in stored_runs(world)


@pytest.mark.usefixtures("master")
def test_a_tool_call_in_prompt_mode_waits_for_approval_with_202(api: Api, world: World) -> None:
    # When a run in prompt mode makes a tool call
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "/search cats", "tool_approval": "prompt"})
    # Then 202 waiting_approval, the state machine holds it, and the pending call is an event
    assert reply.status == 202
    assert reply.body["status"] == "waiting_approval"
    assert world.orchestrator.started == [(reply.body["run_id"], 0)]
    requested = [e for e in events_of(api, reply.body["run_id"]) if e["type"] == "approval_requested"]
    assert len(requested) == 1
    assert requested[0]["calls"] == [
        {"call_id": requested[0]["calls"][0]["call_id"], "tool": "memory-search", "arguments": {"query": "cats"}}
    ]


@pytest.mark.usefixtures("master")
def test_a_user_id_in_the_run_body_is_ignored(api: Api, world: World) -> None:
    # When alice's body claims to be bob
    run = start(api, "hello", user_id="bob")
    # Then the run is alice's: she reads it, bob does not
    stored = world.deps.runs.get_run(run["run_id"])
    assert stored is not None and stored.user_id == "alice"
    assert api.get(f"/v1/runs/{run['run_id']}", user="bob").status == 404


def test_an_unknown_agent_is_404_and_creates_nothing(api: Api, world: World) -> None:
    reply = api.post("/v1/runs", {"agent_id": "nobody", "input": "hello"})
    assert (reply.status, reply.body["error"]) == (404, "not_found")
    assert stored_runs(world) == []
    assert world.deps.chats.list_chats("alice") == []


@pytest.mark.usefixtures("master")
def test_another_users_agent_cannot_be_run(api: Api, world: World) -> None:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, user="bob")
    assert reply.status == 404
    assert stored_runs(world) == []


def test_a_global_agent_can_be_run_by_any_user(api: Api, world: World) -> None:
    add_agent(world, "helpdesk", owner="__global__", label="Helpdesk")
    reply = api.post("/v1/runs", {"agent_id": "helpdesk", "input": "hello"}, user="bob")
    assert (reply.status, reply.body["output"]) == (200, "offline: hello")


# ------------------------------------------------------------------------------------------ idempotency
@pytest.mark.usefixtures("master")
def test_two_posts_with_one_idempotency_key_make_one_run(api: Api, world: World) -> None:
    # When the same run is posted twice with one Idempotency-Key
    first = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": "k-1"})
    second = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": "k-1"})
    # Then both answer the same run, and the store holds one run and one chat
    assert (first.status, second.status) == (200, 200)
    assert second.body["run_id"] == first.body["run_id"]
    assert stored_runs(world) == [first.body["run_id"]]
    assert len(world.deps.chats.list_chats("alice")) == 1


@pytest.mark.usefixtures("master")
def test_an_idempotent_hand_off_is_started_once(api: Api, world: World) -> None:
    body = {"agent_id": "master", "input": "/delegate helper :: go"}
    first = api.post("/v1/runs", body, headers={"Idempotency-Key": "k-2"})
    second = api.post("/v1/runs", body, headers={"Idempotency-Key": "k-2"})
    assert (first.status, second.status) == (202, 202)
    assert second.body == first.body
    assert world.orchestrator.started == [(first.body["run_id"], 0)]


@pytest.mark.usefixtures("master")
def test_an_idempotency_key_reused_with_another_body_is_409(api: Api, world: World) -> None:
    api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": "k-3"})
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "something else"}, headers={"Idempotency-Key": "k-3"})
    assert (reply.status, reply.body["error"]) == (409, "idempotency_conflict")
    assert len(stored_runs(world)) == 1


@pytest.mark.usefixtures("master")
def test_idempotency_keys_are_per_user(api: Api, world: World) -> None:
    add_agent(world, "master", owner="bob", label="Master")
    mine = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": "same"})
    theirs = api.post(
        "/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": "same"}, user="bob"
    )
    assert theirs.status == 200
    assert theirs.body["run_id"] != mine.body["run_id"]
    assert len(stored_runs(world)) == 2


@pytest.mark.usefixtures("master")
@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_idempotency_key_is_a_400_that_starts_no_run(api: Api, world: World, key: str) -> None:
    # An empty key is a client's bug: treated as no key, a retry would start a second run it meant to prevent
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, headers={"Idempotency-Key": key})
    assert (reply.status, reply.body["error"], reply.body["field"]) == (400, "invalid_input", "idempotency-key")
    assert stored_runs(world) == []


# ------------------------------------------------------------------------------------------ reads
@pytest.mark.usefixtures("master")
def test_get_run_answers_the_run(api: Api) -> None:
    run = start(api, "hello")
    reply = api.get(f"/v1/runs/{run['run_id']}")
    assert reply.status == 200
    assert set(reply.body) >= RUN_KEYS
    assert (reply.body["run_id"], reply.body["status"], reply.body["output"]) == (
        run["run_id"],
        "succeeded",
        run["output"],
    )


@pytest.mark.usefixtures("master")
def test_another_users_run_is_404_on_every_run_route(api: Api) -> None:
    run_id = start(api, "hello")["run_id"]
    for path in (f"/v1/runs/{run_id}", f"/v1/runs/{run_id}/events", f"/v1/runs/{run_id}/context"):
        reply = api.get(path, user="bob")
        assert (reply.status, reply.body["error"]) == (404, "not_found"), path


def test_an_unknown_run_is_404(api: Api) -> None:
    assert api.get("/v1/runs/does-not-exist").status == 404


@pytest.mark.usefixtures("master")
def test_run_events_are_in_order_with_their_fields(api: Api) -> None:
    run_id = start(api, "hello")["run_id"]
    events = events_of(api, run_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all({"seq", "type", "at"} <= set(e) for e in events)
    assert events[0]["type"] == "run_started"
    assert events[-1]["type"] == "completed"
    model_call = next(e for e in events if e["type"] == "model_call")
    assert set(model_call["usage"]) >= USAGE_KEYS


@pytest.mark.usefixtures("master")
def test_a_tool_call_event_has_call_id_tool_and_status(api: Api) -> None:
    run_id = start(api, "/search cats")["run_id"]
    calls = [e for e in events_of(api, run_id) if e["type"] == "tool_call"]
    assert [(e["tool"], e["status"]) for e in calls] == [("memory-search", "requested"), ("memory-search", "success")]
    assert calls[0]["call_id"] == calls[1]["call_id"]


@pytest.mark.usefixtures("master")
def test_run_context_answers_the_exact_model_requests(api: Api) -> None:
    run_id = start(api, "/search cats")["run_id"]
    reply = api.get(f"/v1/runs/{run_id}/context")
    assert reply.status == 200
    requests = reply.body["requests"]
    assert len(requests) == 2  # the tool call, then the answer
    assert {"modelId", "system", "messages"} <= set(requests[0])
    assert requests[0]["messages"][-1]["content"][0]["text"].startswith("/search cats\n")
    assert "toolConfig" in requests[1]


@pytest.mark.usefixtures("master")
def test_a_delegation_tree_is_visible_on_the_parent_and_child(api: Api) -> None:
    # Given a handed-off delegation stepped by the state machine to its end
    run_id = start(api, "/delegate helper :: summarise")["run_id"]
    child_id = step_event(api, run_id)["children"][0]["run_id"]
    step_event(api, child_id, depth=1)
    assert step_event(api, run_id)["outcome"] == "done"
    # When alice reads both runs
    parent = api.get(f"/v1/runs/{run_id}").body
    child = api.get(f"/v1/runs/{child_id}").body
    # Then the parent lists its child and the child names its parent and depth
    assert (parent["status"], parent["children"]) == ("succeeded", [child_id])
    assert "offline: summarise" in parent["output"]
    assert (child["parent_run_id"], child["root_run_id"], child["depth"]) == (run_id, run_id, 1)
    started = next(e for e in events_of(api, run_id) if e["type"] == "delegation_started")
    assert (started["child_run_id"], started["agent_id"], started["depth"]) == (child_id, "helper", 1)
