"""An erasure first cancels the user's unfinished runs (phase ``runs_stopped``): a run waiting for a person has its
execution stopped and its wait ended, so nothing of the erased user waits a week for an answer or writes again;
another user's runs run on."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api, add_agent, master  # noqa: F401 - fixture
from tests.support.deps import World

pytestmark = pytest.mark.usefixtures("master")


def _waiting(api: Api, user: str = "alice", token: str = "token-1") -> str:
    body = {"agent_id": "master", "input": "/search cats", "tool_approval": "prompt"}
    reply = api.post("/v1/runs", body, user=user)
    assert reply.status in (200, 202), reply.text
    run_id = str(reply.body["run_id"])
    api.runtime.handle({"action": "await_approval", "run_id": run_id, "depth": 0, "task_token": token})
    return run_id


def _erase(api: Api, user: str = "alice") -> dict[str, Any]:
    reply = api.delete("/v1/me", user=user)
    assert reply.status == 200, reply.text
    return dict(reply.body)


def test_an_erasure_stops_the_execution_of_a_run_waiting_for_approval(api: Api, world: World) -> None:
    run_id = _waiting(api)
    receipt = _erase(api)
    assert world.orchestrator.stopped == [(run_id, f"execution-{run_id}")]
    assert world.orchestrator.resumed == [("token-1", {"run_id": run_id})]  # the wait ends even if a stop failed
    assert (receipt["status"], receipt["verified"], receipt["late"]) == ("done", True, {})
    assert receipt["phases_done"][0] == "runs_stopped"


def test_the_erased_users_run_is_gone_once_its_execution_was_stopped(api: Api, world: World) -> None:
    run_id = _waiting(api)
    _erase(api)
    assert api.get(f"/v1/runs/{run_id}").status == 404
    assert world.deps.runs.list_unfinished() == []


def test_another_users_waiting_run_is_not_stopped(api: Api, world: World) -> None:
    add_agent(world, "master", owner="bob", tools=["memory-search"])
    bobs = _waiting(api, user="bob", token="token-bob")
    _erase(api)
    assert world.orchestrator.stopped == [] and world.orchestrator.resumed == []
    assert api.get(f"/v1/runs/{bobs}", user="bob").body["status"] == "waiting_approval"
