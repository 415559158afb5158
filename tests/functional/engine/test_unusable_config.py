"""Configuration that can do nothing says so: an agent saved with a default task that does not exist is warned at
its save and each run it starts without a task warns; a memory-write refused because every allowed write pattern
was unusable in the run names why, instead of "allowed write namespaces (none)"."""

from __future__ import annotations

from mneme.engine.configuration import put_agent
from mneme.models.requests import AgentBody
from tests.functional.engine.conftest import ALICE, add_agent, add_task, run
from tests.support.deps import World


def _warnings(world: World, run_id: str) -> list[str]:
    return [e.data["message"] for e in world.deps.runs.list_events(run_id) if e.type == "warning"]


def test_saving_an_agent_whose_default_task_does_not_exist_warns(world) -> None:
    saved = put_agent(world.deps, ALICE, "master", AgentBody(label="Master", default_task_id="weekly"))
    assert any("default task 'weekly' does not exist yet" in w for w in saved.warnings)


def test_saving_an_agent_whose_default_task_exists_does_not_warn(world) -> None:
    add_task(world, add_agent(world), "weekly")
    saved = put_agent(world.deps, ALICE, "master", AgentBody(label="Master", default_task_id="weekly"))
    assert not any("default task" in w for w in saved.warnings)


def test_a_run_whose_default_task_is_missing_warns_and_has_no_task(world) -> None:
    add_agent(world, default_task_id="weekly")
    result = run(world, "Hello")
    assert result.run.task_id is None
    warned = _warnings(world, result.run.run_id)
    assert "the agent's default task 'weekly' does not exist: the run has no task" in warned


def test_a_run_of_the_default_task_does_not_warn(world) -> None:
    add_task(world, add_agent(world, default_task_id="weekly"), "weekly")
    result = run(world, "Hello")
    assert result.run.task_id == "weekly" and _warnings(world, result.run.run_id) == []


def test_a_write_refused_as_no_allowed_pattern_was_usable_names_why(world) -> None:
    policy = {"allow_tool_write": True, "allowed_write_namespaces": ["vector.user.${user_id}.${project_id}"]}
    add_agent(world, tools=["memory-write"], memory_policy=policy)
    result = run(world, "/write vector.user.alice.notes :: Tea at four.")
    events = world.deps.runs.list_events(result.run.run_id)
    errors = [e.data["error"] for e in events if e.type == "tool_call" and e.data["status"] == "error"]
    assert len(errors) == 1 and "not in the allowed write namespaces (none; memory namespace" in errors[0]
    assert "${project_id}" in errors[0]
