"""The loop limits of SPEC §8 / §12 through the engine: 50 tool calls per run; the same call repeated more
than 3 times aborts the loop. An aborted run ends ``failed`` with a ``RunAborted`` reason and an ``error``
event, and the call over the limit is never executed."""

from __future__ import annotations

from mneme.adapters.models.offline import OfflineModel
from mneme.models.run import RunStatus
from tests.fakes.model import ScriptedModel, ScriptItem, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.limits_support import (
    LOOKUP,
    completed_statuses,
    error_messages,
    lookup_answer,
    lookup_lines,
    lookups_made,
)
from tests.support.deps import World, make_world


def offline_world() -> World:
    world = make_world(OfflineModel(), tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP])
    return world


def scripted_world(*turns: ScriptItem) -> World:
    world = make_world(ScriptedModel(turns), tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP])
    return world


# ----------------------------------------------------------------------------------- 50 calls per run
def test_fifty_distinct_tool_calls_in_one_run_succeed() -> None:
    # Given an agent with one external tool
    world = offline_world()
    # When the model makes 50 distinct calls in one turn
    result = run(world, lookup_lines(*range(50)))
    # Then all 50 ran and the run succeeded with their results
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert lookups_made(world) == list(range(50))
    assert "found 49" in (result.run.output or "")


def test_the_fifty_first_tool_call_aborts_the_run() -> None:
    # Given an agent with one external tool
    world = offline_world()
    # When the model makes 51 distinct calls in one turn
    result = run(world, lookup_lines(*range(51)))
    # Then the run failed with RunAborted, the 51st call never ran, and the failure is an error event
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("RunAborted: ")
    assert "50 tool calls" in (result.run.error or "")
    assert lookups_made(world) == list(range(50))
    assert error_messages(world, result.run) == [result.run.error]
    assert completed_statuses(world, result.run) == ["failed"]


def test_the_fifty_call_budget_counts_every_turn_of_the_run() -> None:
    # Given a model that makes 30 distinct calls, then 21 more in a second turn
    first = tool_use_response(*[("lookup", {"n": n}, f"a{n}") for n in range(30)])
    second = tool_use_response(*[("lookup", {"n": n}, f"b{n}") for n in range(30, 51)])
    world = scripted_world(first, second, "done")
    # When the run goes through both turns
    result = run(world, "look up fifty-one numbers")
    # Then the budget is per run, not per turn: the 51st call aborts
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("RunAborted: ")
    assert lookups_made(world) == list(range(50))


def test_fifty_calls_spread_over_turns_stay_within_the_budget() -> None:
    first = tool_use_response(*[("lookup", {"n": n}, f"a{n}") for n in range(30)])
    second = tool_use_response(*[("lookup", {"n": n}, f"b{n}") for n in range(30, 50)])
    world = scripted_world(first, second, "done")
    result = run(world, "look up fifty numbers")
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert result.run.output == "done"
    assert len(lookups_made(world)) == 50


# ----------------------------------------------------------------------------- identical repeated calls
def test_the_same_call_three_times_is_fine() -> None:
    world = offline_world()
    result = run(world, lookup_lines(7, 7, 7))
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert lookups_made(world) == [7, 7, 7]


def test_the_same_call_a_fourth_time_aborts_the_loop() -> None:
    # Given an agent with one external tool
    world = offline_world()
    # When the model makes the identical call four times
    result = run(world, lookup_lines(7, 7, 7, 7))
    # Then the fourth aborts the run (RunAborted, an error event) before it is executed
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("RunAborted: ")
    assert "lookup" in (result.run.error or "") and "more than 3 times" in (result.run.error or "")
    assert lookups_made(world) == [7, 7, 7]
    assert error_messages(world, result.run) == [result.run.error]


def test_only_identical_calls_count_towards_the_repeat_limit() -> None:
    # Given four calls of one tool whose arguments differ once
    world = offline_world()
    result = run(world, lookup_lines(7, 7, 7, 8))
    # Then no call was repeated more than 3 times: the run succeeds
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert lookups_made(world) == [7, 7, 7, 8]


def test_a_call_repeated_in_four_model_turns_aborts_the_loop() -> None:
    # Given a model that keeps asking for the same lookup, one turn after another
    turns = [tool_use_response(("lookup", {"n": 7}, f"c{i}")) for i in range(4)]
    world = scripted_world(*turns, "never reached")
    # When the run loops
    result = run(world, "look up seven")
    # Then the fourth identical call stops the loop: the model is not called again
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("RunAborted: ")
    assert lookups_made(world) == [7, 7, 7]
    assert isinstance(world.model, ScriptedModel) and world.model.calls == 4


def test_a_call_repeated_in_three_model_turns_lets_the_model_answer() -> None:
    turns = [tool_use_response(("lookup", {"n": 7}, f"c{i}")) for i in range(3)]
    world = scripted_world(*turns, "seven is seven")
    result = run(world, "look up seven")
    assert result.run.status is RunStatus.SUCCEEDED, result.run.error
    assert result.run.output == "seven is seven"


def test_argument_order_does_not_make_a_repeated_call_new() -> None:
    # Given the same arguments written in another key order each time
    schema_tool = LOOKUP.model_copy(
        update={"input_schema": {"type": "object", "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}}}
    )
    calls = [{"n": 1, "m": 2}, {"m": 2, "n": 1}, {"n": 1, "m": 2}, {"m": 2, "n": 1}]
    turns = [tool_use_response(("lookup", args, f"c{i}")) for i, args in enumerate(calls)]
    world = make_world(ScriptedModel([*turns, "never reached"]), tools=lookup_answer)
    add_agent(world, external_tools=[schema_tool])
    # When the model makes them in four turns
    result = run(world, "look up one and two")
    # Then they are one call repeated four times
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("RunAborted: ")
