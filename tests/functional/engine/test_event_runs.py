"""EventBridge ``mneme.RunRequested`` through ``Runtime.handle``: one run per event id however often it is
delivered, and a rejected event raises a named error (Lambda's retry and DLQ get it) instead of vanishing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mneme.engine.runs.requested_events import event_run_id
from mneme.errors import EventRejected, StoreUnavailable
from mneme.models.agent import Agent
from mneme.records import replace
from mneme.runtime import Runtime
from tests.fakes.model import ScriptedModel
from tests.functional.api.conftest import stored_runs as run_ids
from tests.support.deps import World, make_world

EVENT = json.loads((Path(__file__).resolve().parents[3] / "events" / "eventbridge-run-requested.json").read_text())


def _world(model: Any = None) -> World:
    world = make_world(model or ScriptedModel(default="the digest"))
    world.deps.config.put_agent(Agent(agent_id="researcher", owner="alice", label="Researcher"))
    return world


def _event(event_id: str = "evt-1", **detail: Any) -> dict[str, Any]:
    event = copy.deepcopy(EVENT)
    event["id"] = event_id
    event["detail"] = {"user_id": "alice", "agent_id": "researcher", "input": "Prepare my morning digest."}
    event["detail"].update(detail)
    return {k: v for k, v in event.items() if v is not None}


def _chats(world: World) -> list[Any]:
    return world.deps.chats.list_chats("alice")


def test_an_event_starts_one_run_whose_id_derives_from_the_event_id() -> None:
    world = _world()
    answer = Runtime(world.deps).handle(_event("evt-1"))
    expected = {"run_id": event_run_id("evt-1", "alice"), "status": "succeeded", "event_id": "evt-1"}
    assert answer == {**expected, "duplicate": False}
    run = world.deps.runs.get_run(answer["run_id"])
    assert run is not None and (run.user_id, run.output) == ("alice", "the digest")


def test_a_redelivered_event_starts_no_second_run() -> None:
    # Given an event that was delivered and ran
    world = _world()
    runtime = Runtime(world.deps)
    first = runtime.handle(_event("evt-1"))
    # When EventBridge (or Lambda's retry) delivers it again
    second = runtime.handle(_event("evt-1"))
    # Then the same run answers, the model ran once, one run and one chat exist
    assert (second["run_id"], second["duplicate"]) == (first["run_id"], True)
    assert world.model.calls == 1  # type: ignore[attr-defined]
    assert run_ids(world) == [first["run_id"]]
    assert len(_chats(world)) == 1


def test_a_delivery_racing_another_answers_the_run_the_other_created() -> None:
    # Given a second delivery that read "no run yet" just before the first one created it
    world = _world()
    runtime = Runtime(world.deps)
    first = runtime.handle(_event("evt-1"))
    runs = world.deps.runs
    stale = {"reads": 0}

    class StaleFirstRead:
        def __getattr__(self, name: str) -> Any:
            return getattr(runs, name)

        def get_run(self, run_id: str) -> Any:
            stale["reads"] += 1
            return None if stale["reads"] == 1 else runs.get_run(run_id)

    racing = Runtime(replace(world.deps, runs=StaleFirstRead()))
    # When it arrives
    second = racing.handle(_event("evt-1"))
    # Then the conditional create refused it before any model call and it answers the existing run
    assert (second["run_id"], second["duplicate"]) == (first["run_id"], True)
    assert world.model.calls == 1  # type: ignore[attr-defined]
    assert run_ids(world) == [first["run_id"]]


def test_two_events_are_two_runs() -> None:
    world = _world()
    runtime = Runtime(world.deps)
    a, b = runtime.handle(_event("evt-a")), runtime.handle(_event("evt-b"))
    assert a["run_id"] != b["run_id"]
    assert sorted(run_ids(world)) == sorted([a["run_id"], b["run_id"]])


@pytest.mark.parametrize(
    ("detail", "reason"),
    [
        ({"user_id": None}, "names no user (detail.user_id is missing or empty)"),
        ({"user_id": "   "}, "names no user"),
        ({"agent_id": "nobody"}, "nobody"),
        ({"input": None}, "detail.input: Field required"),
        ({"tool_approval": "always"}, "detail.tool_approval"),
        ({"input": "x" * 100_001}, "the limit is 100000"),
    ],
    ids=["no-user", "blank-user", "unknown-agent", "no-input", "bad-approval-mode", "too-large"],
)
def test_a_rejected_event_raises_a_named_error_and_starts_nothing(detail: dict[str, Any], reason: str) -> None:
    # Given an event that can never start a run
    world = _world()
    event = _event("evt-bad")
    event["detail"].update(detail)
    event["detail"] = {k: v for k, v in event["detail"].items() if v is not None}
    # When it arrives, the invocation fails with EventRejected naming the event and the reason
    with pytest.raises(EventRejected) as raised:
        Runtime(world.deps).handle(event)
    assert raised.value.message.startswith("mneme.RunRequested event evt-bad was rejected: ")
    assert reason in raised.value.message
    assert type(raised.value).__name__ == "EventRejected"  # the errorType the DLQ record carries
    # And nothing was started or written
    assert world.model.calls == 0  # type: ignore[attr-defined]
    assert run_ids(world) == []
    assert _chats(world) == []


def test_an_event_without_a_detail_object_is_rejected() -> None:
    world = _world()
    event = _event("evt-x")
    event["detail"] = "run something"
    with pytest.raises(EventRejected, match="its detail is not a JSON object"):
        Runtime(world.deps).handle(event)


def test_a_transient_failure_is_not_a_rejection_so_lambda_retries_it() -> None:
    # Given a run store that is down
    world = _world()
    runs = world.deps.runs

    class Down:
        def __getattr__(self, name: str) -> Any:
            return getattr(runs, name)

        def get_run(self, run_id: str) -> Any:
            raise StoreUnavailable("DynamoDB is unavailable")

    # Then the error propagates unchanged (the async retry may succeed), never as EventRejected
    with pytest.raises(StoreUnavailable):
        Runtime(replace(world.deps, runs=Down())).handle(_event("evt-1"))


def test_two_users_events_with_one_id_start_two_runs_each_the_users_own() -> None:
    # Given an event for alice that ran, and bob's agent of the same name
    world = _world()
    world.deps.config.put_agent(Agent(agent_id="researcher", owner="bob", label="Researcher"))
    runtime = Runtime(world.deps)
    alice = runtime.handle(_event("shared-evt"))
    # When an event with the same id names bob
    bob = runtime.handle(_event("shared-evt", user_id="bob"))
    # Then bob's run is started and is his: not a duplicate answered with alice's run
    assert (bob["duplicate"], bob["run_id"]) == (False, event_run_id("shared-evt", "bob"))
    assert bob["run_id"] != alice["run_id"]
    run = world.deps.runs.get_run(bob["run_id"])
    assert run is not None and run.user_id == "bob"
