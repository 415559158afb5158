"""A delegation finds its target by id in one read; the listing of every visible agent is read only when
the id finds no delegate (a label, an unknown name, a refusal), and then decides as before (counted)."""

from __future__ import annotations

from typing import Any

from tests.functional.engine.conftest import add_agent, add_task, run
from tests.support.deps import World


class AgentReads:
    """Counts, on the config store's table, the listings of agents (queries) and the batched reads."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.listings = 0
        self.batch_gets = 0

    def query(self, pk: str, *args: Any, sk_prefix: str | None = None, **kwargs: Any) -> Any:
        self.listings += bool(sk_prefix and sk_prefix.startswith("AGENT#"))
        return self.inner.query(pk, *args, sk_prefix=sk_prefix, **kwargs)

    def batch_get(self, keys: Any) -> Any:
        self.batch_gets += 1
        return self.inner.batch_get(keys)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _counting(world: World) -> AgentReads:
    table = AgentReads(world.deps.config._table)  # type: ignore[attr-defined]
    world.deps.config._table = table  # type: ignore[attr-defined]
    return table


def _child_agents(world: World, children: list[dict[str, Any]]) -> list[str]:
    runs = [world.deps.runs.get_run(c["run_id"]) for c in children]
    return [r.agent_id for r in runs if r is not None]


def _tool_errors(world: World, run_id: str) -> list[str]:
    return [
        str(e.data["error"])
        for e in world.deps.runs.list_events(run_id)
        if e.type == "tool_call" and e.data.get("status") == "error"
    ]


def test_a_delegate_named_by_its_id_is_found_without_listing_the_agents(world: World) -> None:
    # Given a master that may delegate to b
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    table = _counting(world)
    # When the master delegates to b by its id
    started = run(world, "/delegate b :: work")
    # Then b's child run is started, and no listing of agents was read
    assert started.outcome == "delegate" and _child_agents(world, started.children) == ["b"]
    assert table.listings == 0


def test_the_id_is_matched_ignoring_case_as_before(world: World) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    table = _counting(world)
    started = run(world, "/delegate B :: work")
    assert _child_agents(world, started.children) == ["b"] and table.listings == 0


def test_a_delegate_named_by_its_label_is_found_through_the_listing(world: World) -> None:
    # Given a delegate named in the master's list by its label
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["Helper"])
    add_agent(world, "b2", label="Helper")
    table = _counting(world)
    # When the master delegates to "Helper"
    started = run(world, "/delegate Helper :: work")
    # Then the id lookup found nothing, the listing found b2 by its label
    assert _child_agents(world, started.children) == ["b2"]
    assert table.listings > 0


def test_an_agent_found_by_id_that_is_no_delegate_is_refused_as_before(world: World) -> None:
    # Given alice's agent c, which the master may not delegate to
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    add_agent(world, "c")
    table = _counting(world)
    # When the master delegates to c
    result = run(world, "/delegate c :: work")
    # Then no child starts and the model sees the same refusal the listing gives
    assert not result.children
    assert _tool_errors(world, result.run.run_id) == [
        'Error: delegation refused: agent "c" is not one of this agent\'s delegates (allowed: b)'
    ]
    assert table.listings > 0


def test_an_own_agent_shadows_the_global_one_of_the_same_id(world: World) -> None:
    # Given a global agent b whose tools run unasked, and alice's own b whose tools are denied
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", owner="__global__", tool_approval_default="granted")
    add_agent(world, "b", tool_approval_default="denied")
    # When the master delegates to b
    started = run(world, "/delegate b :: work")
    # Then the child is alice's own b: its stricter default narrowed the child's approval mode
    child = world.deps.runs.get_run(started.children[0]["run_id"])
    assert child is not None and child.tool_approval == "denied"


def test_without_an_own_agent_the_global_one_is_the_target(world: World) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", owner="__global__", tool_approval_default="denied")
    table = _counting(world)
    started = run(world, "/delegate b :: work")
    child = world.deps.runs.get_run(started.children[0]["run_id"])
    assert child is not None and child.tool_approval == "denied" and table.listings == 0


def test_another_users_agent_of_that_id_is_never_found(world: World) -> None:
    # Given bob's agent b (and none of alice's)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", owner="bob")
    # When alice's master delegates to b
    result = run(world, "/delegate b :: work")
    # Then nothing starts: b is not available to alice
    assert not result.children
    assert _tool_errors(world, result.run.run_id) == [
        'Error: delegation refused: agent "b" is not available to you (allowed: b)'
    ]


def test_a_task_the_delegate_does_not_have_is_refused_before_a_child_starts(world: World) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    result = run(world, '/tool delegate-to-agent {"agent": "b", "input": "work", "task": "nope"}')
    assert not result.children
    assert _tool_errors(world, result.run.run_id) == ["Error: delegation refused: agent 'b' has no task 'nope'"]
    refused = world.deps.audit.query("alice", action="delegation_refused").records
    assert [r.detail["reason"] for r in refused] == ["delegation refused: agent 'b' has no task 'nope'"]


def test_a_task_the_delegate_has_starts_its_child(world: World) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_task(world, add_agent(world, "b"), "review")
    result = run(world, '/tool delegate-to-agent {"agent": "b", "input": "work", "task": "review"}')
    assert _child_agents(world, result.children) == ["b"]
