"""A run runs the configuration it started with: a later step (after an approval, a child, a hand-off) is not
changed by an edit of its agent, task or skills saved meanwhile; a new run is."""

from __future__ import annotations

from typing import Any

from mneme.engine.runs import approvals
from mneme.engine.runs.service import step
from mneme.engine.runs.state import load_state
from mneme.models.precondition import etag_of
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import ALICE, add_agent, add_skill, add_task, run
from tests.support.deps import World

SEARCH = {"tool_read_namespaces": ["vector.user.${user_id}.memory"]}
WRITE = {**SEARCH, "allow_tool_write": True, "allowed_write_namespaces": ["vector.user.${user_id}.memory"]}


def _waiting(world: World) -> str:
    """A run of ``master`` (task ``default`` with its prompt, skill ``tone``) waiting for approval of a search."""
    add_skill(world, "tone", description="Original tone guide.", content="Answer in the original tone.")
    agent = add_agent(world, tools=["memory-search"], skills=["tone"], memory_policy=SEARCH, default_task_id="default")
    add_task(world, agent, context_prompt="Original task prompt.")
    waiting = run(world, "/search What do I like?", tool_approval="prompt").run
    assert waiting.status is RunStatus.WAITING_APPROVAL
    return waiting.run_id


def _edit_everything(world: World) -> None:
    """The agent gains a tool, its task's prompt and its skill's content change."""
    agent = add_agent(
        world, tools=["memory-search", "memory-write"], skills=["tone"], memory_policy=WRITE, default_task_id="default"
    )
    add_task(world, agent, context_prompt="Edited task prompt.")
    add_skill(world, "tone", description="Edited tone guide.", content="Answer in the edited tone.")


def _approve_and_step(world: World, run_id: str) -> None:
    for pending in load_state(world.deps.runs.load_checkpoint(run_id) or {}).waiting_approvals:
        approvals.decide(world.deps, ALICE, run_id, pending.call_id, "once")
    step(world.deps, run_id)


def _last_request(world: World, run_id: str) -> dict[str, Any]:
    return world.deps.runs.list_requests(run_id)[-1]


def _tool_result(world: World, run_id: str) -> Any:
    events = world.deps.runs.list_events(run_id)
    return next(e for e in events if e.type == "tool_call" and e.data["status"] != "requested")


def _text(request: dict[str, Any]) -> str:
    return repr(request.get("system")) + repr(request.get("messages"))


def _tools(request: dict[str, Any]) -> list[str]:
    return [tool["toolSpec"]["name"] for tool in request.get("toolConfig", {}).get("tools", [])]


def test_a_step_after_an_edit_runs_the_agent_task_and_skills_the_run_started_with(world) -> None:
    run_id = _waiting(world)
    started = world.deps.runs.get_run(run_id)
    _edit_everything(world)
    _approve_and_step(world, run_id)
    request = _last_request(world, run_id)
    assert len(world.deps.runs.list_requests(run_id)) == 2  # the call after the approval
    assert "Original task prompt." in _text(request) and "Edited task prompt." not in _text(request)
    assert "Original tone guide." in _text(request) and "Edited tone guide." not in _text(request)
    assert "memory-search" in _tools(request) and "memory-write" not in _tools(request)
    resumed = world.deps.runs.get_run(run_id)
    assert resumed is not None and started is not None
    assert resumed.status is RunStatus.SUCCEEDED and resumed.agent_version == started.agent_version


def test_a_new_run_after_the_edit_runs_the_edited_agent(world) -> None:
    first = _waiting(world)
    _edit_everything(world)
    later = run(world, "What do I like?").run
    request = _last_request(world, later.run_id)
    assert "Edited task prompt." in _text(request) and "Edited tone guide." in _text(request)
    assert "memory-write" in _tools(request)
    edited = world.deps.config.get_agent("alice", "master")
    assert edited is not None and later.agent_version == etag_of(edited)
    assert later.agent_version != (world.deps.runs.get_run(first) or later).agent_version


def test_the_checkpoint_keeps_the_configuration_once_the_run_waits(world) -> None:
    run_id = _waiting(world)
    pinned = load_state(world.deps.runs.load_checkpoint(run_id) or {}).config
    assert pinned is not None
    agent = world.deps.config.get_agent("alice", "master")
    assert agent is not None and pinned["agent"] == agent.model_dump(mode="json", exclude_none=True)
    assert pinned["task"]["context_prompt"] == "Original task prompt."
    assert list(pinned["skills"]) == ["tone"]


def test_a_tool_taken_off_the_agent_while_the_run_waits_is_no_longer_run(world) -> None:
    run_id = _waiting(world)
    add_agent(world, tools=[], skills=["tone"], memory_policy=SEARCH, default_task_id="default")
    _approve_and_step(world, run_id)
    result = _tool_result(world, run_id)
    assert result.data["tool"] == "memory-search" and result.data["status"] == "error"
    assert "no longer available to this agent" in result.data["error"]


def test_a_tool_kept_on_the_agent_still_runs_after_the_edit(world) -> None:
    run_id = _waiting(world)
    _edit_everything(world)  # memory-search stays
    _approve_and_step(world, run_id)
    result = _tool_result(world, run_id)
    assert result.data["tool"] == "memory-search" and result.data["status"] == "success"


def test_a_run_whose_agent_was_deleted_while_it_waited_fails_naming_it(world) -> None:
    run_id = _waiting(world)
    assert world.deps.config.delete_agent("alice", "master")
    _approve_and_step(world, run_id)
    failed = world.deps.runs.get_run(run_id)
    assert failed is not None and failed.status is RunStatus.FAILED and "master" in (failed.error or "")


def test_a_checkpoint_from_before_version_6_steps_with_the_agent_as_stored_now(world) -> None:
    run_id = _waiting(world)
    raw = world.deps.runs.load_checkpoint(run_id) or {}
    older = {**{k: v for k, v in raw.items() if k != "config"}, "checkpoint_version": 5}
    world.deps.runs.save_checkpoint(run_id, older)
    _edit_everything(world)
    _approve_and_step(world, run_id)
    request = _last_request(world, run_id)
    assert "Edited task prompt." in _text(request)


def test_a_run_finished_in_its_first_step_keeps_no_checkpoint(world) -> None:
    add_agent(world)
    done = run(world, "Hello").run
    assert done.status is RunStatus.SUCCEEDED
    assert world.deps.runs.load_checkpoint(done.run_id) is None


def test_a_child_runs_and_names_the_agent_its_first_step_loaded(world) -> None:
    add_agent(world, tools=["delegate-to-agent"], delegates=["writer"])
    add_agent(world, "writer", label="Writer")
    parent = run(world, "/delegate writer :: Draft a haiku", tool_approval="granted").run
    child_id = parent.children[0]
    created = world.deps.runs.get_run(child_id)
    edited = add_agent(world, "writer", label="Writer", tools=["memory-search"], memory_policy=SEARCH)
    assert created is not None and created.agent_version != etag_of(edited)
    step(world.deps, child_id)
    child = world.deps.runs.get_run(child_id)
    assert child is not None and child.agent_version == etag_of(edited)
    assert _tools(_last_request(world, child_id)) == ["memory-search"]


def test_a_run_whose_own_agent_was_deleted_fails_even_with_a_global_agent_of_that_id(world) -> None:
    run_id = _waiting(world)
    shared = add_agent(world, owner="__global__", tools=["memory-search"], memory_policy=SEARCH)
    add_task(world, shared, context_prompt="The global agent's task.")  # the run's task id, under the global agent
    assert world.deps.config.delete_agent("alice", "master")
    _approve_and_step(world, run_id)
    failed = world.deps.runs.get_run(run_id)
    assert failed is not None and failed.status is RunStatus.FAILED and "master" in (failed.error or "")
    assert [e for e in world.deps.runs.list_events(run_id) if e.data.get("status") == "success"] == []


def test_a_run_of_a_global_agent_fails_once_the_users_own_agent_of_that_id_hides_it(world) -> None:
    add_agent(world, owner="__global__", tools=["memory-search"], memory_policy=SEARCH)
    waiting = run(world, "/search What do I like?", tool_approval="prompt").run
    assert waiting.status is RunStatus.WAITING_APPROVAL
    add_agent(world, tools=["memory-search"], memory_policy=SEARCH)  # alice's own master
    _approve_and_step(world, waiting.run_id)
    failed = world.deps.runs.get_run(waiting.run_id)
    assert failed is not None and failed.status is RunStatus.FAILED and "hidden by your own" in (failed.error or "")


def test_a_run_of_a_global_agent_steps_on_while_the_global_agent_is_kept(world) -> None:
    add_agent(world, owner="__global__", tools=["memory-search"], memory_policy=SEARCH)
    waiting = run(world, "/search What do I like?", tool_approval="prompt").run
    _approve_and_step(world, waiting.run_id)
    resumed = world.deps.runs.get_run(waiting.run_id)
    assert resumed is not None and resumed.status is RunStatus.SUCCEEDED
