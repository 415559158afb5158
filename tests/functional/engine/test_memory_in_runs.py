"""Memory auto-inject, the memory-search tool, and their audit records (SPEC §5, §9)."""

from __future__ import annotations

from mneme.adapters.offline_model import OfflineModel
from mneme.engine.memory_ops import new_document
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
