"""Issue 31.3: sub-agent runs count against the user's runs per minute — a delegation fan-out cannot start
more runs than the limit; each child past it is a tool error the parent's model sees, never a crashed run."""

from __future__ import annotations

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs.state import load_state
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), MNEME_RUNS_PER_USER_PER_MINUTE="3")
    world.clock.at = world.clock.at.replace(second=5, microsecond=0)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    return world


def _fan_out(children: int) -> str:
    return "\n".join(f"/delegate b :: job {i}" for i in range(children))


def test_a_fan_out_of_five_under_a_limit_of_three_starts_two_children_and_refuses_three(api: Api, world: World) -> None:
    # When alice's run (1 of her 3 runs this minute) delegates five jobs in one turn
    reply = api.post("/v1/runs", {"agent_id": "master", "input": _fan_out(5)})
    # Then the run is not crashed (handed to the state machine for its children), two children were started
    # (3 runs in all) and the three other calls are tool errors naming the rate limit
    assert (reply.status, reply.body["status"]) == (202, "running")
    master = world.deps.runs.get_run(reply.body["run_id"])
    assert master is not None and len(master.children) == 2
    results = [r.content for r in load_state(world.deps.runs.load_checkpoint(master.run_id) or {}).ready.values()]
    refused = [r for r in results if r.startswith("Error:")]
    assert len(refused) == 3 and all("rate_limited" in r for r in refused)
    # And the user's window is full: a fourth run over the API is a 429
    assert api.post("/v1/runs", {"agent_id": "master", "input": "hello"}).status == 429


def test_a_fan_out_within_the_limit_starts_every_child(api: Api, world: World) -> None:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": _fan_out(2)})
    master = world.deps.runs.get_run(reply.body["run_id"])
    assert master is not None and len(master.children) == 2


def test_a_child_the_budget_refuses_does_not_use_up_the_rate(api: Api, world: World) -> None:
    # Given a run whose budget allows 2 runs delegating three jobs: one child started, two refused by the budget
    reply = api.post("/v1/runs", {"agent_id": "master", "input": _fan_out(3), "budget": {"max_runs": 2}})
    master = world.deps.runs.get_run(reply.body["run_id"])
    assert master is not None and len(master.children) == 1
    # Then only the two runs started count: alice may start one more this minute, not two
    assert [api.post("/v1/runs", {"agent_id": "master", "input": "hi"}).status for _ in range(2)] == [200, 429]
