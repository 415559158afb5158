"""What a sub-agent sees (SPEC §6): its own task context, identity, memory and tools — none of the master's."""

from __future__ import annotations

from mneme.engine.memory_io.ops import new_document
from tests.functional.engine.conftest import add_agent, add_task, run


def _remember(world, namespace: str, content: str) -> None:
    doc = new_document(world.deps.ids(), namespace, "alice", content, clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([content])[0])])


def _delegated(machine):
    world = machine.world
    master = add_agent(
        world,
        "master",
        tools=["delegate-to-agent", "memory-search"],
        delegates=["scribe"],
        default_task_id="lead",
        memory_policy={"read_namespaces": ["vector.user.${user_id}.memory"]},
    )
    add_task(world, master, "lead", context_prompt="MASTER-CONTEXT: you lead the team.")
    scribe = add_agent(
        world,
        "scribe",
        label="Scribe",
        default_task_id="write",
        memory_policy={"read_namespaces": ["vector.agent.${user_id}.memory"], "allow_write": True},
    )
    add_task(world, scribe, "write", context_prompt="SCRIBE-CONTEXT: you write minutes.")
    _remember(world, "vector.user.alice.memory", "MASTER-HIT: the team lead prefers short updates")
    _remember(world, "vector.agent.alice.memory", "SCRIBE-HIT: minutes are written in bullet points")
    text = "/delegate scribe :: Write the minutes of the weekly planning meeting about minutes format in bullet points"
    root = machine.wait(run(world, "What are our team updates like? " + "\n" + text).run.run_id)
    child = world.deps.runs.get_run(root.children[0])
    return world, root, child, world.deps.runs.list_requests(child.run_id)[0]


def test_the_sub_agent_request_has_its_own_task_context_and_identity_notice(machine) -> None:
    _, _, _, request = _delegated(machine)
    system = "\n".join(block.get("text", "") for block in request["system"])
    assert "SCRIBE-CONTEXT" in system and "Scribe" in system
    assert "MASTER-CONTEXT" not in system


def test_the_sub_agent_sees_none_of_the_masters_hits_or_tools(machine) -> None:
    _, _, _, request = _delegated(machine)
    last = request["messages"][-1]["content"][-1]["text"]
    assert "SCRIBE-HIT" in last and "MASTER-HIT" not in last
    offered = [
        tool["toolSpec"]["name"]
        for tool in request.get("toolConfig", {}).get("tools", [])
        if "toolSpec" in tool and not tool["toolSpec"]["description"].startswith("Not available")
    ]
    assert "memory-search" not in offered and "delegate-to-agent" not in offered


def test_the_sub_agent_searched_memory_with_the_delegation_input(machine) -> None:
    world, _, child, _ = _delegated(machine)
    reads = [r for r in world.deps.audit.query("alice", action="read", run_id=child.run_id).records]
    assert [r.namespace for r in reads] == ["vector.agent.alice.memory"]
    embedded = world.embedder.calls
    assert any(text.startswith("Write the minutes") for batch in embedded for text in batch)


def test_the_sub_agent_auto_writes_by_its_own_policy(machine) -> None:
    world, root, child, _ = _delegated(machine)
    by_run: dict[str, list[str]] = {}
    for job in world.queue.jobs:
        by_run.setdefault(job.metadata["run_id"], []).append(job.metadata["source"])
    assert by_run == {child.run_id: ["run_input", "run_output"]}
    assert root.run_id not in by_run
