"""A cancelled run tree reports what it spent: the sub-runs its root had not collected yet (still running,
waiting, or finished but not read back by their parent) made model calls that were paid, so a cancelled root's
``tree_usage`` (``GET /v1/runs/{id}``, its ``completed`` event, and ``cost_usd`` in ``GET /v1/runs``) includes
theirs, as it would have had the root collected them. SPEC §2: token usage is summed over the run's whole
delegation tree."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.models.policy import MemoryPolicy
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World

WRITES = MemoryPolicy(allow_write=True)


def _delegating(api: Api, world: World) -> tuple[str, list[str]]:
    add_agent(world, "helper", memory_policy=WRITES)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"], memory_policy=WRITES)
    root_id = start(api, "/delegate helper :: job one\n/delegate helper :: job two")["run_id"]
    return root_id, list(api.get(f"/v1/runs/{root_id}").body["children"])


def _tokens(usage: dict[str, Any]) -> int:
    return int(usage["input_tokens"]) + int(usage["output_tokens"])


@pytest.mark.usefixtures("master")
def test_a_cancelled_roots_tree_usage_includes_its_uncollected_sub_runs(api: Api, world: World) -> None:
    # Given a root that delegated two children, one of which has answered (its model was called) before the root
    # collected it
    root_id, (first, _second) = _delegating(api, world)
    step_event(api, first, depth=1)
    child = api.get(f"/v1/runs/{first}").body
    assert child["status"] == "succeeded" and _tokens(child["tree_usage"]) > 0
    own = api.get(f"/v1/runs/{root_id}").body["usage"]
    # When the root is cancelled
    assert api.post(f"/v1/runs/{root_id}/cancel", None).status == 200
    # Then its tree's usage is its own plus the child's, everywhere it is reported
    root = api.get(f"/v1/runs/{root_id}").body
    assert _tokens(root["tree_usage"]) == _tokens(own) + _tokens(child["tree_usage"])
    completed = [e for e in events_of(api, root_id) if e["type"] == "completed"][-1]
    assert completed["tree_usage"] == root["tree_usage"]
    listed = next(r for r in api.get("/v1/runs").body["runs"] if r["run_id"] == root_id)
    assert listed["tree_usage"] == root["tree_usage"]


@pytest.mark.usefixtures("master")
def test_a_cancelled_root_whose_sub_runs_never_ran_reports_its_own_usage(api: Api, world: World) -> None:
    root_id, _children = _delegating(api, world)
    own = api.get(f"/v1/runs/{root_id}").body["usage"]
    api.post(f"/v1/runs/{root_id}/cancel", None)
    assert _tokens(api.get(f"/v1/runs/{root_id}").body["tree_usage"]) == _tokens(own)
