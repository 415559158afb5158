"""The loop limits of SPEC §8 as a client meets them: ``POST /v1/runs``, the run's events, and a run that
the state machine steps on after an approval (``Runtime.handle`` with HTTP and step events)."""

from __future__ import annotations

import json

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.fakes.model import ScriptedModel, tool_use_response
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.functional.engine.limits_support import LOOKUP, lookup_answer, lookup_lines, lookups_made
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP])
    return world


def test_a_run_over_the_call_budget_answers_failed_with_run_aborted(api: Api, world: World) -> None:
    # When alice starts a run whose model makes 51 tool calls
    body = start(api, lookup_lines(*range(51)))
    # Then the answer is the finished, failed run with the RunAborted reason
    assert body["status"] == "failed"
    assert body["error"].startswith("RunAborted: ")
    assert len(lookups_made(world)) == 50


def test_an_aborted_runs_events_end_with_an_error_then_completed_failed(api: Api) -> None:
    run_id = start(api, lookup_lines(7, 7, 7, 7))["run_id"]
    tail = [(e["type"], e.get("status")) for e in events_of(api, run_id)][-2:]
    messages = [e["message"] for e in events_of(api, run_id) if e["type"] == "error"]
    assert tail == [("error", None), ("completed", "failed")]
    assert len(messages) == 1 and messages[0].startswith("RunAborted: ")


def test_a_run_within_both_limits_answers_succeeded(api: Api) -> None:
    body = start(api, lookup_lines(*range(48), 7, 7))  # 50 calls, ``7`` three times
    assert body["status"] == "succeeded", body["error"]
    assert body["error"] is None


def _approval_world(turns: int) -> tuple[Api, World]:
    """A prompt-mode agent whose model asks for ``lookup {n: 7}`` in ``turns`` turns, then answers."""
    script = [tool_use_response(("lookup", {"n": 7}, f"c{i}")) for i in range(turns)]
    world = make_world(ScriptedModel([*script, "seven is seven"]), tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP], tool_approval_default="prompt")
    return Api(world), world


def _approve_always_and_step(api: Api, run_id: str) -> dict[str, object]:
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": "c0", "decision": "always"})
    assert reply.status == 200, reply.text
    step_event(api, run_id)
    run: dict[str, object] = api.get(f"/v1/runs/{run_id}").body
    return run


def test_repeats_before_an_approval_pause_still_count_after_it() -> None:
    # Given a run that waits for approval of its first lookup, and a model that repeats it three more times
    api, world = _approval_world(4)
    run_id = start(api, "look up seven")["run_id"]
    assert api.get(f"/v1/runs/{run_id}").body["status"] == "waiting_approval"
    # When alice allows the tool for good and the state machine steps the run on
    run = _approve_always_and_step(api, run_id)
    # Then the count survived the checkpoint: the fourth identical call aborted the run
    assert run["status"] == "failed"
    assert str(run["error"]).startswith("RunAborted: ")
    assert lookups_made(world) == [7, 7, 7]


def test_three_repeats_around_an_approval_pause_let_the_run_finish() -> None:
    api, world = _approval_world(3)
    run_id = start(api, "look up seven")["run_id"]
    run = _approve_always_and_step(api, run_id)
    assert (run["status"], run["output"]) == ("succeeded", "seven is seven"), json.dumps(run)
    assert lookups_made(world) == [7, 7, 7]
