"""The two read lists are never mixed (SPEC §5.1, §5.4): auto-inject reads only ``read_namespaces``, the
``memory-search`` tool reaches only ``tool_read_namespaces`` — through runs of the engine."""

from __future__ import annotations

import json
from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.memory.access import NO_AUTHORIZED_NAMESPACE
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import injected, remember
from tests.support.deps import World, make_world

HOWTO = "vector.global.howto"
ROUTER = "To reset the router hold the reset button for ten seconds"
QUESTION = "How do I reset the router?"
OWN = ["vector.agent.alice.memory", "vector.user.alice.memory"]


def world_with(policy: dict[str, Any]) -> World:
    """An agent with ``memory-search`` and ``policy``; a global how-to entry that answers QUESTION."""
    world = make_world(OfflineModel())
    add_agent(world, tools=["memory-search"], memory_policy=policy)
    remember(world, HOWTO, ROUTER, owner="")
    return world


# --------------------------------------------------------------------------------------- auto-inject
def test_auto_inject_does_not_read_the_tool_read_namespaces() -> None:
    # Given a policy that grants the how-to namespace to the tool only
    world = world_with({"tool_read_namespaces": [HOWTO]})
    # When alice asks (no tool call)
    result = run(world, QUESTION)
    # Then only the default read namespaces were searched, and nothing reached the model
    assert [patterns for patterns, _ in world.memory.searches] == [OWN]
    assert ROUTER not in injected(world, result.run)
    assert ROUTER not in (result.run.output or "")


def test_auto_inject_reads_the_read_namespaces() -> None:
    world = world_with({"read_namespaces": [HOWTO]})
    result = run(world, QUESTION)
    assert [patterns for patterns, _ in world.memory.searches] == [[HOWTO]]
    assert ROUTER in injected(world, result.run)


# ------------------------------------------------------------------------------------ memory-search
def test_memory_search_does_not_fall_back_on_the_read_namespaces() -> None:
    # Given a policy with read_namespaces only (the tool is offered, tool_read_namespaces is unset)
    world = world_with({"read_namespaces": [HOWTO]})
    # When the model searches without naming namespaces
    result = run(world, f"/search {QUESTION}")
    # Then the tool answers that no namespace is authorized; only auto-inject searched the store
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert result.run.output == f"offline: tool results:\n- memory-search: {NO_AUTHORIZED_NAMESPACE}"
    assert [patterns for patterns, _ in world.memory.searches] == [[HOWTO]]


def test_memory_search_naming_a_read_namespace_is_denied_and_audited() -> None:
    # Given a policy with read_namespaces only
    world = world_with({"read_namespaces": [HOWTO], "auto_read_enabled": False})
    # When the model names that namespace in its search
    call = json.dumps({"query": QUESTION, "namespaces": [HOWTO]})
    result = run(world, f"/tool memory-search {call}")
    # Then it is not granted: nothing searched, the denial audited under alice
    assert result.run.output == f"offline: tool results:\n- memory-search: {NO_AUTHORIZED_NAMESPACE}"
    assert world.memory.searches == []
    denied = world.deps.audit.query("alice", action="denied").records
    assert [(r.namespace, r.detail.get("reason")) for r in denied] == [(HOWTO, "not_granted")]


def test_memory_search_reaches_the_tool_read_namespaces() -> None:
    world = world_with({"tool_read_namespaces": [HOWTO], "auto_read_enabled": False})
    result = run(world, f"/search {QUESTION}")
    assert [patterns for patterns, _ in world.memory.searches] == [[HOWTO]]
    assert ROUTER in (result.run.output or "")
