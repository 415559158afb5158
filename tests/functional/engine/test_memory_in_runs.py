"""Memory auto-inject, the memory-search tool, and their audit records (SPEC §5, §9)."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.memory import hybrid
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world


def remember(world: World, namespace: str, content: str, owner: str = "alice") -> str:
    doc = new_document(world.deps.ids(), namespace, owner, content, clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([content])[0])])
    return doc.id


class AuditCheckingModel(OfflineModel):
    """Records, at each model call, which audit records already exist."""

    def __init__(self, world_ref: list[World]) -> None:
        self.world_ref = world_ref
        self.reads_seen: list[int] = []

    def converse(self, request, **options):
        page = self.world_ref[0].deps.audit.query("alice", action="read")
        self.reads_seen.append(len(page.records))
        return super().converse(request, **options)


def test_hits_land_in_the_last_user_message_between_the_text_and_the_date_line() -> None:
    # Given a memory in alice's agent namespace that matches her question
    world = make_world(OfflineModel())
    add_agent(world)
    remember(world, "vector.agent.alice.memory", "Alice prefers green tea in the morning")
    # When she asks about it
    result = run(world, "Which tea does Alice prefer in the morning?")
    # Then the recorded request carries the memory block after her text and before the date line
    text = world.deps.runs.list_requests(result.run.run_id)[0]["messages"][-1]["content"][-1]["text"]
    user_at, memory_at = text.index("Which tea"), text.index("RELEVANT CONTEXT FROM LONG-TERM MEMORY:")
    date_at = text.index("[Context — current date/time:")
    assert user_at < memory_at < date_at
    assert "Alice prefers green tea" in text[memory_at:date_at]


def test_one_read_record_per_namespace_is_written_before_the_model_call() -> None:
    # Given a model that looks at the audit log when it is called
    holder: list[World] = []
    model = AuditCheckingModel(holder)
    world = make_world(model)
    holder.append(world)
    add_agent(world)
    remember(world, "vector.agent.alice.memory", "Alice likes long walks by the river")
    # When alice runs the agent (default read namespaces: agent + user)
    result = run(world, "What does Alice like to do outside?")
    # Then both reads were audited under her key before the model saw anything
    reads = world.deps.audit.query("alice", action="read").records
    assert sorted(r.namespace or "" for r in reads) == ["vector.agent.alice.memory", "vector.user.alice.memory"]
    assert all(r.user_id == "alice" and r.run_id == result.run.run_id for r in reads)
    assert model.reads_seen == [2]


def test_memory_search_without_namespaces_searches_exactly_the_tool_read_namespaces(world) -> None:
    # Given an agent whose tool may read one global namespace, and no auto-inject
    add_agent(
        world,
        tools=["memory-search"],
        memory_policy={"auto_read_enabled": False, "tool_read_namespaces": ["vector.global.howto"]},
    )
    remember(world, "vector.global.howto", "To reset the router hold the button for ten seconds", owner="")
    # When the model searches without namespaces
    result = run(world, "/search How do I reset the router?")
    # Then exactly the tool namespace was searched and the hit came back to the model
    assert [patterns for patterns, _ in world.memory.searches] == [["vector.global.howto"]]
    assert "hold the button" in (result.run.output or "")


def test_memory_search_with_another_users_namespace_stays_clean_and_audits_the_denial(world) -> None:
    # Given bob's secret and an agent allowed to search alice's and bob's user namespaces
    remember(world, "vector.user.bob.memory", "Bob's bank PIN is 4321", owner="bob")
    add_agent(
        world,
        tools=["memory-search"],
        memory_policy={
            "auto_read_enabled": False,
            "tool_read_namespaces": ["vector.user.${user_id}.memory", "vector.user.bob.memory"],
        },
    )
    # When alice's model asks for bob's namespace by name
    call = '{"query": "What is the bank PIN?", "namespaces": ["vector.user.bob.memory"]}'
    result = run(world, f"/tool memory-search {call}")
    # Then nothing of bob's reaches the model, and the denial is audited under alice
    assert "4321" not in (result.run.output or "")
    denied = world.deps.audit.query("alice", action="denied").records
    assert [r.namespace for r in denied] == ["vector.user.bob.memory"]
    assert world.deps.audit.query("bob").records == []


def test_with_auto_read_disabled_nothing_is_injected_but_the_tool_still_works(world) -> None:
    add_agent(
        world,
        tools=["memory-search"],
        memory_policy={"auto_read_enabled": False, "tool_read_namespaces": ["vector.agent.${user_id}.memory"]},
    )
    remember(world, "vector.agent.alice.memory", "Alice's favourite colour is teal")
    result = run(world, "/search What is Alice's favourite colour?")
    first = world.deps.runs.list_requests(result.run.run_id)[0]["messages"][-1]["content"][-1]["text"]
    assert "RELEVANT CONTEXT FROM LONG-TERM MEMORY" not in first
    assert "teal" in (result.run.output or "")


def test_memory_down_means_the_run_continues_without_memory_and_warns(world) -> None:
    add_agent(world)
    world.memory.unavailable = True
    result = run(world, "Tell me what you remember")
    assert result.run.status.value == "succeeded"
    warnings = [e for e in world.deps.runs.list_events(result.run.run_id) if e.type == "warning"]
    assert any("memory unavailable" in e.data["message"] for e in warnings)


def test_a_run_with_memory_disabled_embeds_nothing(world) -> None:
    add_agent(world)
    run(world, "no memory for this one", memory={"enabled": False})
    assert world.embedder.calls == [] and world.memory.searches == []


# ------------------------------------------------------------------ the memory_hits event explains the ranking
def _hits_events(world: World, run_id: str) -> list[dict[str, Any]]:
    return [e.data for e in world.deps.runs.list_events(run_id) if e.type == "memory_hits"]


def test_the_auto_inject_event_gives_each_hits_similarity_and_relevance(world) -> None:
    # Given a memory matching alice's question, vector retrieval with explicit floors
    add_agent(world, memory_policy={"retrieval": "vector", "min_score": 0.4, "relative_cutoff": 0.7})
    doc_id = remember(world, "vector.user.alice.memory", "Alice prefers green tea in the morning")
    # When she asks about it
    result = run(world, "Which tea does Alice prefer in the morning?")
    # Then the event names the hit with both scores, rounded, relevance ≥ similarity (recency bonus)
    (event,) = _hits_events(world, result.run.run_id)
    (hit,) = event["hits"]
    assert hit["id"] == doc_id and hit["namespace"] == "vector.user.alice.memory"
    assert 0 < hit["similarity"] <= hit["relevance"] and round(hit["similarity"], 4) == hit["similarity"]
    assert event["thresholds"] == {"top_k": 5, "min_score": 0.4, "relative_cutoff": 0.7, "retrieval": "vector"}
    assert event["k"] == 20 and event["denied"] == []


def test_the_auto_inject_event_counts_duplicates_and_entries_below_min_score(world) -> None:
    # Given the same fact in both default namespaces and one unrelated entry (vector retrieval, floor 0.4)
    add_agent(world, memory_policy={"retrieval": "vector", "min_score": 0.4})
    remember(world, "vector.agent.alice.memory", "Alice prefers green tea in the morning")
    remember(world, "vector.user.alice.memory", "Alice prefers green tea in the morning")
    remember(world, "vector.user.alice.memory", "Quarterly invoices are archived in folder nine")
    # When she asks about tea
    result = run(world, "Which tea does Alice prefer in the morning?")
    # Then one hit, one duplicate, one below the floor, and the counts add up to the candidates
    (event,) = _hits_events(world, result.run.run_id)
    assert event["count"] == 1
    assert (event["dropped"]["duplicate"], event["dropped"]["min_score"]) == (1, 1)
    assert event["candidates"] == 3 == event["count"] + sum(event["dropped"].values())


def test_the_auto_inject_event_lists_the_namespaces_the_security_filter_denied(world) -> None:
    # Given a policy that also names bob's namespace
    add_agent(world, memory_policy={"read_namespaces": ["vector.user.${user_id}.memory", "vector.user.bob.memory"]})
    # When alice runs it
    result = run(world, "What do I like?")
    # Then the event tells that bob's namespace was denied, and why, and searched only hers
    (event,) = _hits_events(world, result.run.run_id)
    assert event["denied"] == [{"namespace": "vector.user.bob.memory", "reason": "security_filter"}]
    assert event["namespaces"] == ["vector.user.alice.memory"]


def test_the_memory_search_tool_event_explains_its_hits_too(world) -> None:
    # Given a tool-only agent, two matching entries and a top_k of 1
    add_agent(
        world,
        tools=["memory-search"],
        memory_policy={"auto_read_enabled": False, "tool_read_namespaces": ["vector.user.${user_id}.*"]},
    )
    remember(world, "vector.user.alice.memory", "Alice prefers green tea in the morning")
    remember(world, "vector.user.alice.notes", "Alice prefers green tea with honey in the morning")
    # When the model searches for one entry
    result = run(world, '/tool memory-search {"query": "Which tea does Alice prefer?", "top_k": 1}')
    # Then the tool's event has the hit's scores and counts the other under top_k
    (event,) = _hits_events(world, result.run.run_id)
    assert event["via"] == "tool" and event["k"] == hybrid.DEPTH and event["count"] == 1  # depth: not 4 × top_k
    assert set(event["hits"][0]) == {"id", "namespace", "similarity", "relevance"}
    assert event["dropped"]["top_k"] + event["dropped"]["relative_cutoff"] == 1


def test_a_tool_search_with_only_denied_namespaces_still_records_why_nothing_was_found(world) -> None:
    # Given an agent that may search alice's and bob's user namespaces
    add_agent(
        world,
        tools=["memory-search"],
        memory_policy={"auto_read_enabled": False, "tool_read_namespaces": ["vector.user.bob.memory"]},
    )
    # When the model searches
    result = run(world, "/search What is the bank PIN?")
    # Then the event has no hits and names the denial
    (event,) = _hits_events(world, result.run.run_id)
    assert event["count"] == 0 and event["candidates"] == 0 and event["namespaces"] == []
    assert event["denied"] == [{"namespace": "vector.user.bob.memory", "reason": "security_filter"}]


def test_the_auto_inject_event_gives_what_vouched_for_the_question(world) -> None:
    # Given a memory matching alice's question, the default (hybrid) retrieval
    add_agent(world)
    remember(world, "vector.user.alice.memory", "Alice prefers green tea in the morning")
    # When she asks about it
    result = run(world, "Which tea does Alice prefer in the morning?")
    # Then the event gives the question's confidence, its best cosine and the keyword coverage behind it
    (event,) = _hits_events(world, result.run.run_id)
    assert set(event["confidence"]) == {"value", "vector_cosine", "vector_evidence", "keyword_coverage"}
    assert event["hits"][0]["similarity"] <= event["confidence"]["value"]
