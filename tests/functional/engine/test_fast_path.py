"""A run that needs nothing else finishes on the fast path (SPEC §1), with its side effects."""

from __future__ import annotations

from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run


def test_a_plain_run_finishes_with_the_model_answer(world) -> None:
    # Given an agent on the offline model
    add_agent(world, model={"provider": "offline", "model_id": "offline"})
    # When alice runs it
    result = run(world, "hello there")
    # Then the run succeeded on the fast path with the model's answer
    assert (result.outcome, result.run.status) == ("done", RunStatus.SUCCEEDED)
    assert result.run.output == "offline: hello there"
    assert world.orchestrator.started == []


def test_the_turn_is_stored_in_the_chat(world) -> None:
    add_agent(world)
    result = run(world, "remember this turn")
    chat = world.deps.chats.get_chat("alice", result.run.chat_id or "")
    assert chat is not None
    assert [(m.role, getattr(m, "text", "")) for m in chat.messages] == [
        ("user", "remember this turn"),
        ("assistant", "offline: remember this turn"),
    ]


def test_events_are_recorded_in_order(world) -> None:
    add_agent(world)
    result = run(world, "hi")
    types = [e.type for e in world.deps.runs.list_events(result.run.run_id)]
    assert types[0] == "run_started" and types[-1] == "completed"
    assert types.index("context_built") < types.index("model_call")


def test_the_exact_model_request_is_recorded(world) -> None:
    add_agent(world)
    result = run(world, "hi")
    requests = world.deps.runs.list_requests(result.run.run_id)
    assert len(requests) == 1
    assert requests[0]["messages"][-1]["content"][-1]["text"].startswith("hi\n")


def test_a_run_of_an_agent_with_exactly_one_task_and_no_default_uses_that_task(world) -> None:
    from tests.functional.engine.conftest import add_task

    agent = add_agent(world, "solo")
    add_task(world, agent, "only", context_prompt="You are the only task.")
    result = run(world, "hello", agent_id="solo")
    assert result.run.task_id == "only"
    assert world.deps.runs.list_requests(result.run.run_id)[0]["system"][0]["text"] == "You are the only task."
