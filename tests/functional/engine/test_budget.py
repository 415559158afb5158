"""The budget of a run tree (issue 15.4): resolved per request, checked before every model call, reserved
before every sub-run, shown on the run."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs import service
from mneme.engine.runs.state import load_state
from mneme.models.budget import Budget, TreeUsage
from mneme.models.run import RunStatus, Usage
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world


class CountingLedger:
    """Counts the calls of the tree ledger (the run tree's counters)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return attribute(*args, **kwargs)

        return call


def _fan_out(world: World, children: int) -> str:
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    return "\n".join(f"/delegate b :: job {i}" for i in range(children))


def _results(world: World, run_id: str) -> list[str]:
    state = load_state(world.deps.runs.load_checkpoint(run_id) or {})
    return [result.content for result in state.ready.values()]


def test_max_runs_3_with_five_parallel_delegations_starts_two_children_and_tells_the_model_why(world) -> None:
    # Given a master whose model delegates five jobs in one turn, under a budget of 3 runs in all
    text = _fan_out(world, 5)
    # When it runs
    result = run(world, text, budget=Budget(max_runs=3))
    # Then two children exist (3 runs with the root) and the three other calls are tool errors naming max_runs
    master = world.deps.runs.get_run(result.run.run_id)
    assert master is not None and len(master.children) == 2
    refused = [r for r in _results(world, master.run_id) if r.startswith("Error:")]
    assert len(refused) == 3
    assert all("budget_exceeded: max_runs" in r and "at most 3 agents" in r for r in refused)
    assert len(world.deps.audit.query("alice", action="delegation_refused").records) == 3


def test_without_a_budget_the_deployment_default_of_50_runs_allows_the_five(world) -> None:
    text = _fan_out(world, 5)
    result = run(world, text)
    assert result.run.budget is not None and result.run.budget.max_runs == 50
    master = world.deps.runs.get_run(result.run.run_id)
    assert master is not None and len(master.children) == 5


def test_the_request_overrides_the_agent_which_overrides_the_deployment_field_by_field() -> None:
    world = make_world(OfflineModel(), MNEME_BUDGET_MAX_TOKENS="777", MNEME_BUDGET_MAX_SECONDS="99")
    add_agent(world, "master", budget=Budget(max_runs=7, max_seconds=60))
    result = run(world, "hello", budget=Budget(max_runs=4))
    limits = result.run.budget
    assert limits is not None
    assert (limits.max_runs, limits.max_seconds, limits.max_tokens, limits.max_model_calls) == (4, 60, 777, 500)


def test_a_budget_never_raises_a_limit_above_the_deployments() -> None:
    world = make_world(OfflineModel(), MNEME_BUDGET_MAX_RUNS="5")
    add_agent(world, "master", budget=Budget(max_runs=40, max_tokens=10))
    limits = run(world, "hello", budget=Budget(max_runs=500)).run.budget
    assert limits is not None and (limits.max_runs, limits.max_tokens) == (5, 10)


def test_a_root_that_does_not_delegate_checks_its_budget_without_reading_the_ledger(world) -> None:
    # Given a counting ledger
    ledger = CountingLedger(world.deps.ledger)
    world.deps.ledger = ledger
    add_agent(world, "master")
    # When a plain run answers on the fast path
    result = run(world, "hello")
    # Then it succeeded and the tree's counters were never touched (the run itself is the whole tree)
    assert result.run.status is RunStatus.SUCCEEDED
    assert ledger.calls == []
    assert result.run.model_calls == 1


def test_a_root_that_delegates_opens_the_ledger_with_what_it_used_so_far(world) -> None:
    text = _fan_out(world, 1)
    result = run(world, text)
    usage = world.deps.ledger.read(result.run.run_id)
    assert usage is not None
    assert (usage.runs, usage.model_calls, usage.active) == (2, 1, 1)
    assert usage.tokens == result.run.usage.total > 0


def test_max_model_calls_spent_ends_the_run_failed_naming_the_limit() -> None:
    # Given a model that keeps calling a tool, and a budget of 2 model calls
    model = ScriptedModel(default=tool_use_response(("memory-search", {"query": "what is up?"})))
    world = make_world(model)
    add_agent(world, "master", tools=["memory-search"])
    # When it runs
    result = run(world, "search", budget=Budget(max_model_calls=2))
    # Then the third call never happens and the run failed with budget_exceeded: max_model_calls
    assert model.calls == 2
    assert result.run.status is RunStatus.FAILED
    assert (result.run.error or "").startswith("budget_exceeded: max_model_calls")
    error = [e for e in world.deps.runs.list_events(result.run.run_id) if e.type == "error"][-1]
    assert error.data["code"] == "budget_exceeded" and error.data["limit"] == "max_model_calls"


def test_max_tokens_counts_every_token_of_the_tree() -> None:
    usage = Usage(input_tokens=60, output_tokens=30, cache_read_tokens=10)
    model = ScriptedModel(default=tool_use_response(("memory-search", {"query": "again?"}), usage=usage))
    world = make_world(model)
    add_agent(world, "master", tools=["memory-search"])
    result = run(world, "search", budget=Budget(max_tokens=250))
    # 100 tokens per call: after 3 calls (300) the fourth is refused
    assert model.calls == 3
    assert (result.run.error or "").startswith("budget_exceeded: max_tokens")


def test_max_seconds_counts_from_the_roots_start(world) -> None:
    # Given a root that handed off (delegated) and a clock that moves past its budget before the next step
    text = _fan_out(world, 1)
    result = run(world, text, budget=Budget(max_seconds=30))
    child_id = result.run.children[0]
    world.clock.advance(seconds=31)
    # When the child's step runs
    child = service.step(world.deps, child_id).run
    # Then it made no model call and failed naming max_seconds
    assert child.status is RunStatus.FAILED and (child.error or "").startswith("budget_exceeded: max_seconds")
    assert child.model_calls == 0


def test_a_child_charges_the_trees_counters_and_the_get_shows_them(world) -> None:
    from tests.functional.api.conftest import Api

    text = _fan_out(world, 1)
    result = run(world, text, budget=Budget(max_runs=5))
    child_id = result.run.children[0]
    service.step(world.deps, child_id)
    view = Api(world).get(f"/v1/runs/{result.run.run_id}").body["budget"]
    assert view["max_runs"] == 5
    assert view["used"]["runs"] == 2 and view["used"]["model_calls"] == 2
    child_view = Api(world).get(f"/v1/runs/{child_id}").body["budget"]
    assert child_view["used"] == view["used"]  # every run of the tree shows the tree's usage


def test_the_concurrency_cap_refuses_a_delegation_beyond_it() -> None:
    world = make_world(OfflineModel(), MNEME_MAX_CONCURRENT_DELEGATIONS="2")
    text = _fan_out(world, 3)
    result = run(world, text)
    master = world.deps.runs.get_run(result.run.run_id)
    assert master is not None and len(master.children) == 2
    (refused,) = [r for r in _results(world, master.run_id) if r.startswith("Error:")]
    assert "2 sub-agents of this request are already running" in refused


def test_collecting_a_child_frees_its_place_for_the_next_delegation() -> None:
    world = make_world(OfflineModel(), MNEME_MAX_CONCURRENT_DELEGATIONS="1")
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    result = run(world, "/delegate b :: one")
    service.step(world.deps, result.run.children[0])
    service.step(world.deps, result.run.run_id)  # collects the child
    usage = world.deps.ledger.read(result.run.run_id)
    assert usage is not None and usage.active == 0 and usage.runs == 2


def test_parallel_reservations_never_overspend(world) -> None:
    # Given a tree with room for 5 more runs and 20 threads reserving at once
    world.deps.ledger.open("root", TreeUsage(runs=1, started_at=world.clock.now()))
    barrier = threading.Barrier(20)
    granted: list[bool] = []

    def reserve() -> None:
        barrier.wait()
        granted.append(world.deps.ledger.reserve_run("root", max_runs=6, max_active=100).granted)

    threads = [threading.Thread(target=reserve) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then exactly five were granted and the counter is at its limit
    assert granted.count(True) == 5
    usage = world.deps.ledger.read("root")
    assert usage is not None and usage.runs == 6


@pytest.mark.parametrize("field", ["max_runs", "max_tokens", "max_model_calls", "max_seconds"])
def test_a_budget_field_below_one_is_refused(field: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Budget(**{field: 0})


def test_a_budget_with_an_unknown_field_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Budget.model_validate({"max_children": 3})


def test_a_run_within_its_budget_runs_to_its_answer() -> None:
    model = ScriptedModel([text_response("done", usage=Usage(input_tokens=10))])
    world = make_world(model)
    add_agent(world, "master")
    assert run(world, "hi", budget=Budget(max_tokens=11, max_model_calls=1)).run.status is RunStatus.SUCCEEDED


def test_a_finished_trees_seconds_stay_what_it_took(world) -> None:
    from tests.functional.api.conftest import Api

    # Given a tree that ran to its end in 7 seconds
    text = _fan_out(world, 1)
    result = run(world, text, budget=Budget(max_runs=5))
    child_id = result.run.children[0]
    world.clock.advance(seconds=7)
    service.step(world.deps, child_id)
    root_id = result.run.run_id
    service.step(world.deps, root_id)
    api = Api(world)
    assert api.get(f"/v1/runs/{root_id}").body["status"] == "succeeded"
    took = api.get(f"/v1/runs/{root_id}").body["budget"]["used"]["seconds"]
    # When its runs are read again a minute later
    world.clock.advance(seconds=60)
    # Then root and child show the same seconds as before, not the time since the start
    assert took == 7
    assert api.get(f"/v1/runs/{root_id}").body["budget"]["used"]["seconds"] == took
    assert api.get(f"/v1/runs/{child_id}").body["budget"]["used"]["seconds"] == took


def test_a_running_trees_seconds_count_on(world) -> None:
    from tests.functional.api.conftest import Api

    text = _fan_out(world, 1)
    result = run(world, text, budget=Budget(max_runs=5))  # waiting for its child
    world.clock.advance(seconds=9)
    api = Api(world)
    view = api.get(f"/v1/runs/{result.run.run_id}").body
    assert view["status"] != "succeeded" and view["budget"]["used"]["seconds"] == 9
