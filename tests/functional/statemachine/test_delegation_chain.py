"""Delegation through the real agent-run state machine (SPEC §1, §6): nested executions of one machine."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.errors import ModelRequestRejected
from mneme.models.run import RunStatus
from mneme_local import sfn_emulation
from tests.functional.engine.conftest import add_agent, run
from tests.functional.statemachine.conftest import start_machine


def test_master_delegates_to_b_which_delegates_to_c(machine) -> None:
    # Given master → b → c, each allowed to delegate to the next
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", tools=["delegate-to-agent"], delegates=["c"])
    add_agent(world, "c")
    # When the master's model delegates and b's model delegates on
    result = run(world, "/delegate b :: /delegate c :: say hello")
    # Then the API answered 202-style and the machine finishes the whole tree
    assert result.outcome == "delegate"
    master = machine.wait(result.run.run_id)
    b = world.deps.runs.get_run(master.children[0])
    assert b is not None
    c = world.deps.runs.get_run(b.children[0])
    assert c is not None
    assert [r.status for r in (master, b, c)] == [RunStatus.SUCCEEDED] * 3
    assert [r.depth for r in (master, b, c)] == [0, 1, 2]
    assert "offline: say hello" in (c.output or "")
    assert "offline: say hello" in (master.output or "")
    assert len(machine.executions()) == 3


def _chain(world, length: int) -> str:
    """Agents a0 … a<length>, each allowed to delegate to the next; the input that walks the whole chain."""
    for i in range(length + 1):
        add_agent(world, f"a{i}", tools=["delegate-to-agent"], delegates=[f"a{i + 1}"] if i < length else [])
    return "".join(f"/delegate a{i} :: " for i in range(1, length + 1)) + "hi"


def _tree(world, root_id: str) -> list[Any]:
    runs, frontier = [], [root_id]
    while frontier:
        current = world.deps.runs.get_run(frontier.pop())
        runs.append(current)
        frontier += current.children
    return runs


def test_each_delegation_has_an_audit_record(machine) -> None:
    world = machine.world
    text = _chain(world, 2)
    master = machine.wait(run(world, text, agent_id="a0").run.run_id)
    records = world.deps.audit.by_root_run(master.run_id)
    started = [r for r in records if r.action == "delegation" and r.detail.get("outcome") == "started"]
    finished = [r for r in records if r.action == "delegation" and r.detail.get("outcome") == "succeeded"]
    assert sorted(r.detail["depth"] for r in started) == [1, 2] and len(finished) == 2


def test_a_chain_that_would_reach_depth_6_is_refused_by_the_function_at_depth_5(machine, monkeypatch) -> None:
    # Given a chain of seven agents and a model that is offered delegation even at depth 5
    from mneme.engine.runs import loop

    monkeypatch.setattr(loop, "can_offer_delegation", lambda agent, depth: bool(agent.delegates))
    world = machine.world
    text = _chain(world, 6)
    # When the master starts the chain
    master = machine.wait(run(world, text, agent_id="a0").run.run_id)
    # Then it stops at depth 5: the run function refused, no depth-6 run exists, six executions ran
    tree = _tree(world, master.run_id)
    assert sorted(r.depth for r in tree) == [0, 1, 2, 3, 4, 5]
    deepest = next(r for r in tree if r.depth == 5)
    assert "maximum delegation depth is 5" in (deepest.output or "")
    assert all(r.status is RunStatus.SUCCEEDED for r in tree)
    assert len(world.deps.audit.query("alice", action="delegation_refused").records) == 1
    assert len(machine.executions()) == 6


def test_with_the_function_guard_off_the_state_machine_refuses_depth_6(machine, monkeypatch) -> None:
    # Given the run function's depth guard switched off
    from mneme import delegation_rules as delegation
    from mneme.engine.runs import loop

    monkeypatch.setattr(loop, "can_offer_delegation", lambda agent, depth: bool(agent.delegates))
    monkeypatch.setattr(delegation, "check_depth", lambda depth: None)
    world = machine.world
    text = _chain(world, 6)
    # When the chain runs
    master = machine.wait(run(world, text, agent_id="a0").run.run_id)
    # Then the state machine's Choice refused before starting a depth-6 child: no seventh execution
    tree = _tree(world, master.run_id)
    depth6 = [r for r in tree if r.depth == 6]
    assert len(depth6) == 1 and depth6[0].status is RunStatus.CANCELLED
    deepest = next(r for r in tree if r.depth == 5)
    assert "depth limit (5) was reached" in (deepest.output or "")
    assert len(machine.executions()) == 6


def _entered(machine, execution: dict[str, Any]) -> list[str]:
    events = machine.sfn.get_execution_history(executionArn=execution["executionArn"], maxResults=1000)["events"]
    return [e["stateEnteredEventDetails"]["name"] for e in events if e["type"].endswith("StateEntered")]


def _root_execution(machine, run_id: str) -> dict[str, Any]:
    return next(e for e in machine.executions() if e["name"] == f"run-{run_id}")


def test_two_delegations_in_one_turn_run_as_two_parallel_children(machine) -> None:
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b", "c"])
    add_agent(world, "b")
    add_agent(world, "c")
    master = machine.wait(run(world, "/delegate b :: first job\n/delegate c :: second job").run.run_id)
    assert len(master.children) == 2
    children = [world.deps.runs.get_run(child) for child in master.children]
    assert [c.depth for c in children] == [1, 1]
    assert "first job" in (master.output or "") and "second job" in (master.output or "")
    assert len(machine.executions()) == 3
    entered = _entered(machine, _root_execution(machine, master.run_id))  # two children: through the Map
    assert "DelegateOne" not in entered
    assert entered.count("Delegate") == 1 and entered.count("RunChild") == 2


def test_one_delegation_is_one_nested_execution_started_without_a_map(machine) -> None:
    # Given a master delegating once to b
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    # When the run finishes
    master = machine.wait(run(world, "/delegate b :: work").run.run_id)
    # Then the parent entered six states — one transition less per hop than through a Map — and b ran once
    assert master.status is RunStatus.SUCCEEDED and "work" in (master.output or "")
    assert _entered(machine, _root_execution(machine, master.run_id)) == [
        "Step",
        "Route",
        "DelegateOne",
        "Step",
        "Route",
        "Done",
    ]
    assert len(machine.executions()) == 2


class _BrokenFor(OfflineModel):
    """The offline model, except for requests to one model id, which it rejects."""

    def converse(self, request, **options):
        if request["modelId"] == "broken-model":
            raise ModelRequestRejected("the model refused the request")
        return super().converse(request, **options)


def test_a_failing_child_comes_back_to_the_parent_as_a_tool_error() -> None:
    # Given a child agent whose model rejects every request
    for machine in start_machine(_BrokenFor()):
        world = machine.world
        add_agent(world, "master", tools=["delegate-to-agent"], delegates=["broken"])
        add_agent(world, "broken", model={"provider": "bedrock", "model_id": "broken-model"})
        # When the master delegates to it
        master = machine.wait(run(world, "/delegate broken :: try").run.run_id)
        # Then the child failed with the reason and the parent's model saw it as a tool error
        child = world.deps.runs.get_run(master.children[0])
        assert child is not None
        assert child.status is RunStatus.FAILED and "refused the request" in (child.error or "")
        assert master.status is RunStatus.SUCCEEDED
        assert "Error: the sub-agent 'broken' failed" in (master.output or "")


def test_a_crashing_step_is_caught_by_the_machine_and_the_parent_sees_the_reason(machine) -> None:
    # Given a run function that crashes on the child's step (a Lambda task failure)
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    original = sfn_emulation.HANDLERS[machine.function]

    def crash_for_b(event, ctx):
        run_ = world.deps.runs.get_run(str(event.get("run_id")))
        if event.get("action") == "step" and run_ is not None and run_.agent_id == "b":
            raise RuntimeError("disk on fire")
        return original(event, ctx)

    sfn_emulation.HANDLERS[machine.function] = crash_for_b
    # When the master delegates
    master = machine.wait(run(world, "/delegate b :: work").run.run_id)
    # Then the Catch marked the child failed with the reason, and the parent got a tool error
    child = world.deps.runs.get_run(master.children[0])
    assert child.status is RunStatus.FAILED and "disk on fire" in (child.error or "")
    assert "disk on fire" in (master.output or "")


def _child_execution_fails_unrecorded(machine, agent_id: str) -> None:
    """The run function crashes on every call for ``agent_id``'s runs — its step and the Catch's ``fail``
    alike — so the child's execution fails without its run ever being marked (as when its execution cannot
    even be started: the run stays queued)."""
    world = machine.world
    original = sfn_emulation.HANDLERS[machine.function]

    def crash_for(event, ctx):
        run_ = world.deps.runs.get_run(str(event.get("run_id")))
        if event.get("action") in ("step", "fail") and run_ is not None and run_.agent_id == agent_id:
            raise RuntimeError("the run store is unreachable from here")
        return original(event, ctx)

    sfn_emulation.HANDLERS[machine.function] = crash_for


def test_a_child_whose_execution_ended_unrecorded_is_a_tool_error_not_a_restarted_child(machine) -> None:
    # Given a child whose execution fails without its run being marked failed
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    _child_execution_fails_unrecorded(machine, "b")
    # When the master delegates once
    master = machine.wait(run(world, "/delegate b :: work").run.run_id, timeout=15)
    # Then the parent's next step saw the child's execution end: the child is failed, the parent's model got a
    # tool error, and the child was started once (not again and again until the parent's history is full)
    child = world.deps.runs.get_run(master.children[0])
    assert child is not None and child.status is RunStatus.FAILED
    assert master.status is RunStatus.SUCCEEDED
    assert "Error: the sub-agent 'b' failed" in (master.output or "")
    assert len(machine.executions()) == 2


def test_children_of_a_map_whose_executions_ended_unrecorded_are_tool_errors(machine) -> None:
    # Given two children in one turn, one of whose executions fails without its run being marked
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b", "c"])
    add_agent(world, "b")
    add_agent(world, "c")
    _child_execution_fails_unrecorded(machine, "b")
    # When both run through the Map
    master = machine.wait(run(world, "/delegate b :: first job\n/delegate c :: second job").run.run_id, timeout=15)
    # Then c's answer and b's failure both came back, in one round of children
    b, c = (world.deps.runs.get_run(child) for child in master.children)
    assert b is not None and b.status is RunStatus.FAILED
    assert c is not None and c.status is RunStatus.SUCCEEDED
    assert "Error: the sub-agent 'b' failed" in (master.output or "") and "second job" in (master.output or "")
    assert len(machine.executions()) == 3


def test_a_store_blip_while_a_run_is_marked_failed_is_retried(machine) -> None:
    # Given a child whose step crashes, and the store failing once as the Catch marks it failed
    world = machine.world
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    original = sfn_emulation.HANDLERS[machine.function]
    seen: list[str] = []

    def crash_then_blip(event, ctx):
        from mneme.errors import StoreUnavailable

        run_ = world.deps.runs.get_run(str(event.get("run_id")))
        if run_ is None or run_.agent_id != "b" or event.get("action") not in ("step", "fail"):
            return original(event, ctx)
        if event["action"] == "step":
            raise RuntimeError("disk on fire")
        if not seen:
            seen.append("fail")
            raise StoreUnavailable("DynamoDB is briefly unavailable")
        return original(event, ctx)

    sfn_emulation.HANDLERS[machine.function] = crash_then_blip
    # When the master delegates
    master = machine.wait(run(world, "/delegate b :: work").run.run_id, timeout=20)
    # Then the retried Catch recorded the child's own reason, which the parent's model saw
    child = world.deps.runs.get_run(master.children[0])
    assert seen == ["fail"]
    assert child.status is RunStatus.FAILED and "disk on fire" in (child.error or "")
    assert "disk on fire" in (master.output or "")
