"""A ``tool_read_namespaces`` pattern a run cannot resolve is skipped with a warning event (SPEC §5.2: "skipped
with a warning event for policies"), as auto-inject's ``read_namespaces`` already were — over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of
from tests.support.deps import World

PER_PROJECT = "vector.user.${user_id}.${project_id}"


@pytest.fixture(autouse=True)
def _agent(world: World) -> None:
    add_agent(
        world, "master", label="Master", tools=["memory-search"], memory_policy={"tool_read_namespaces": [PER_PROJECT]}
    )


def _run(api: Api, **fields: Any) -> dict[str, Any]:
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "/search Which notes do I have?", **fields})
    assert reply.status == 200, reply.text
    body: dict[str, Any] = reply.body
    return body


def _warnings(api: Api, run_id: str) -> list[str]:
    return [e["message"] for e in events_of(api, run_id) if e["type"] == "warning"]


@pytest.mark.parametrize("project", [None, "Not_A_Segment"])
def test_a_tool_read_pattern_the_run_cannot_resolve_is_warned_about(api: Api, project: str | None) -> None:
    # When a run without a usable project id searches with the tool
    run = _run(api, **({"project_id": project} if project else {}))
    # Then the search reached nothing, and the run's events say which policy pattern was skipped
    assert "No authorized namespace" in run["output"]
    warnings = _warnings(api, run["run_id"])
    assert [w for w in warnings if PER_PROJECT in w and "project_id" in w], warnings
    # naming the missing value in words, not as Python's None
    assert all("None" not in w for w in warnings), warnings


def test_a_tool_read_pattern_that_resolves_is_searched_without_a_warning(api: Api) -> None:
    run = _run(api, project_id="apollo")
    assert "No authorized namespace" not in run["output"]
    assert _warnings(api, run["run_id"]) == []
