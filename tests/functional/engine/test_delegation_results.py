"""What a delegation gives back to the parent's model (SPEC §6): the sub-agent's final text as a tool result,
or a tool error with the reason — never an empty success. A sub-agent whose run ended with no text (a model
that answered nothing) gave no answer: the parent's model reads that as an error, not as a blank result."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.engine.runs.service import step
from mneme.models.run import RunStatus
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import make_world


def _delegate(child_answer: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """The tool result the master's model read after its helper answered ``child_answer``, and its events."""
    model = ScriptedModel(
        [
            tool_use_response(("delegate-to-agent", {"agent": "helper", "input": "draft it"})),
            text_response(child_answer),  # the helper
            text_response("final"),  # the master, after the helper's result
        ]
    )
    world = make_world(model)
    add_agent(world, tools=["delegate-to-agent"], delegates=["helper"])
    add_agent(world, "helper")
    started = run(world, "have the helper draft it")
    child = step(world.deps, started.children[0]["run_id"]).run
    assert child.status is RunStatus.SUCCEEDED
    master = step(world.deps, started.run.run_id).run
    assert master.status is RunStatus.SUCCEEDED
    (result,) = [b["toolResult"] for b in model.last_request["messages"][-1]["content"] if "toolResult" in b]
    events: list[tuple[str, dict[str, Any]]] = [(e.type, e.data) for e in world.deps.runs.list_events(master.run_id)]
    return result, events


@pytest.mark.parametrize("answer", ["", "  \n "])
def test_a_sub_agent_that_answered_nothing_is_a_tool_error_for_its_parent(answer: str) -> None:
    result, events = _delegate(answer)
    assert result["status"] == "error"
    assert result["content"][0]["text"].startswith("Error: the sub-agent 'helper' gave no answer")
    (finished,) = [e for e in events if e[0] == "tool_call" and e[1]["status"] != "requested"]
    assert finished[1]["status"] == "error"


def test_a_sub_agents_answer_is_its_parents_tool_result() -> None:
    result, events = _delegate("the draft")
    assert result == {"toolUseId": "call-1-delegate-to-agent", "content": [{"text": "the draft"}], "status": "success"}
    (finished,) = [e for e in events if e[0] == "tool_call" and e[1]["status"] != "requested"]
    assert finished[1]["status"] == "success"
