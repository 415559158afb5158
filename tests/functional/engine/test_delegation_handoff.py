"""Delegation in the run engine (SPEC §6): the hand-off to the orchestrator and the guards."""

from __future__ import annotations

import json
from typing import Any

from mneme.engine.runs.state import LoopState
from mneme.models.chat import SystemMessage, TextMessage
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run


def _setup(world) -> None:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer", label="Writer")


def test_a_delegation_checkpoints_the_run_and_hands_it_to_the_orchestrator(world) -> None:
    # Given a master that may delegate to the writer
    _setup(world)
    # When its model asks to delegate
    result = run(world, "/delegate writer :: Draft a haiku about tea", tool_approval="granted", session_id="s9")
    # Then the run waits for its child and the state machine got it
    assert result.outcome == "delegate" and result.run.status is RunStatus.RUNNING
    assert world.orchestrator.started == [(result.run.run_id, 0)]
    assert world.deps.runs.load_checkpoint(result.run.run_id) is not None
    assert result.children == [{"run_id": result.run.children[0], "depth": 1}]


def test_the_child_run_carries_ids_approval_mode_input_and_depth(world) -> None:
    _setup(world)
    result = run(world, "/delegate writer :: Draft a haiku about tea", tool_approval="granted", session_id="s9")
    child = world.deps.runs.get_run(result.run.children[0])
    assert child is not None
    assert (child.user_id, child.agent_id, child.depth) == ("alice", "writer", 1)
    assert (child.chat_id, child.session_id, child.tool_approval) == (result.run.chat_id, "s9", "granted")
    assert (child.parent_run_id, child.root_run_id) == (result.run.run_id, result.run.run_id)
    assert child.input == "Draft a haiku about tea"


def test_the_child_inherits_the_history_without_system_messages(world) -> None:
    # Given a chat whose history holds a system message
    _setup(world)
    first = run(world, "hello")
    chat_id = first.run.chat_id or ""
    world.deps.chats.append_messages("alice", chat_id, [SystemMessage(text="internal note")], expected_count=2)
    # When the master delegates in that chat
    result = run(world, "/delegate writer :: Draft a haiku", chat_id=chat_id)
    # Then the child's starting history is the conversation without the system message
    state = LoopState.model_validate(world.deps.runs.load_checkpoint(result.run.children[0]))
    assert all(not isinstance(m, SystemMessage) for m in state.history)
    texts = [m.text for m in state.history if isinstance(m, TextMessage)]
    assert texts == ["hello", "offline: hello", "/delegate writer :: Draft a haiku"]
    assert state.user_text == "Draft a haiku"


def test_a_self_delegation_is_a_tool_error_and_the_run_completes(world) -> None:
    # Given a master that lists itself as a delegate
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["master", "writer"])
    add_agent(world, "writer")
    # When its model tries to delegate to itself
    result = run(world, "/delegate Master :: do it yourself")
    # Then the model saw an error, the run completed, and nothing was handed off
    assert result.run.status is RunStatus.SUCCEEDED
    assert "Error:" in (result.run.output or "") and world.orchestrator.started == []
    refused = world.deps.audit.query("alice", action="delegation_refused").records
    assert len(refused) == 1


def test_a_delegation_is_audited(world) -> None:
    _setup(world)
    result = run(world, "/delegate writer :: Draft a haiku")
    records = world.deps.audit.query("alice", action="delegation").records
    assert [r.detail["child_run_id"] for r in records] == result.run.children


def test_a_child_delegated_without_a_task_records_its_agents_default_task(world) -> None:
    from mneme.engine.runs.service import step
    from tests.functional.engine.conftest import add_task

    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    writer = add_agent(world, "writer", default_task_id="draft")
    add_task(world, writer, "draft", context_prompt="You draft texts.")
    result = run(world, "/delegate writer :: Draft a haiku")
    child = step(world.deps, result.run.children[0]).run
    assert child.task_id == "draft"


def test_a_sub_agents_auto_write_is_audited_in_its_delegation_tree(world) -> None:
    from mneme.adapters.aws.sqs_queue import job_body
    from mneme.engine.memory_io.writer import WriterPorts, write_batch
    from mneme.engine.runs.service import step

    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer", memory_policy={"allow_write": True})
    root = run(world, "/delegate writer :: Draft a haiku").run
    step(world.deps, root.children[0])
    records = [{"messageId": "m1", "body": job_body(job), "eventSource": "aws:sqs"} for job in world.queue.jobs]
    write_batch(WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock), records)
    writes = [r for r in world.deps.audit.by_root_run(root.run_id) if r.action == "write"]
    assert [(r.run_id, r.depth) for r in writes] == [(root.children[0], 1)]


def test_a_child_delegated_to_an_agent_with_exactly_one_task_runs_that_task(world) -> None:
    # Given a writer that names no default task but has exactly one
    from mneme.engine.runs.service import step
    from tests.functional.engine.conftest import add_task

    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    writer = add_agent(world, "writer")
    add_task(world, writer, "draft", context_prompt="You draft texts.")
    # When the master delegates to it without naming a task
    result = run(world, "/delegate writer :: Draft a haiku")
    child = step(world.deps, result.run.children[0]).run
    # Then the child runs the only task, and its task context reached the model
    assert child.task_id == "draft"
    first_request = world.deps.runs.list_requests(child.run_id)[0]
    assert first_request["system"][0]["text"].startswith("You draft texts.")


def test_a_child_of_an_agent_with_two_tasks_and_no_default_runs_without_a_task(world) -> None:
    from mneme.engine.runs.service import step
    from tests.functional.engine.conftest import add_task

    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["writer"])
    writer = add_agent(world, "writer")
    add_task(world, writer, "draft", context_prompt="You draft texts.")
    add_task(world, writer, "edit", context_prompt="You edit texts.")
    result = run(world, "/delegate writer :: Draft a haiku")
    child = step(world.deps, result.run.children[0]).run
    assert child.task_id is None
    first_request = world.deps.runs.list_requests(child.run_id)[0]
    assert "You draft texts." not in json.dumps(first_request) and "You edit texts." not in json.dumps(first_request)


def _forged_step(world, run_id: str, **forged) -> dict[str, Any]:
    """A state machine step whose state was crafted: the depth it carries is not the run's."""
    from mneme.runtime import Runtime

    event = {"action": "step", "run_id": run_id, "delegation_refused": False, "execution_id": "x", **forged}
    answer: dict[str, Any] = Runtime(world.deps).handle(event)
    return answer


def test_the_depth_a_step_runs_at_is_the_stored_one_whatever_the_state_carries(world) -> None:
    # Given a child at depth 1 that may delegate on, and forged depths in its step's state
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b", tools=["delegate-to-agent"], delegates=["c"])
    add_agent(world, "c")
    for forged in ({"depth": 6}, {"depth": -1}, {"depth": "0"}, {}):
        world.orchestrator.started.clear()
        child_id = run(world, "/delegate b :: /delegate c :: hi").run.children[0]
        # When the child steps with the forged state
        answer = _forged_step(world, child_id, **forged)
        # Then it delegated at its own depth: the machine's guard and the grandchild see depth 1 and 2
        assert answer["outcome"] == "delegate" and answer["depth"] == 1, forged
        grandchild = world.deps.runs.get_run(answer["child_run_id"])
        assert grandchild is not None and grandchild.depth == 2


def test_a_run_at_depth_5_cannot_delegate_whatever_depth_its_state_carries(world) -> None:
    # Given a stored run at depth 5 whose step's state says depth 0
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    child_id = run(world, "/delegate b :: hi").run.children[0]
    deep = world.deps.runs.get_run(child_id)
    world.deps.runs.update_run(deep.model_copy(update={"depth": 5, "agent_id": "master", "input": "/delegate b :: x"}))
    world.deps.runs.save_checkpoint(child_id, LoopState(user_text="/delegate b :: x").model_dump(mode="json"))
    # When it steps with the forged depth
    answer = _forged_step(world, child_id, depth=0)
    # Then it ran at its stored depth: delegate-to-agent is not offered there, no child was created
    stored = world.deps.runs.get_run(child_id)
    assert answer["outcome"] == "done" and answer["depth"] == 5 and stored.children == []
    assert "'delegate-to-agent' is not available" in (stored.output or "")
