"""A run that waits for a person lists the calls it still waits for (SPEC §7: "the run pauses in
``waiting_approval`` ... and lists the pending calls"): ``GET /v1/runs/{id}`` answers ``pending_approvals``
— each unanswered call with its id, tool and arguments — so a client polling the run knows what to answer
without replaying the events, and a call answered is no longer listed."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.run_support import start
from tests.support.deps import World

TWO_CALLS = "/search cats\n/search dogs"


@pytest.mark.usefixtures("master")
def test_a_waiting_run_lists_its_unanswered_calls_until_each_is_answered(api: Api, world: World) -> None:
    # Given a run that waits for a person's answer to two calls
    run_id = start(api, TWO_CALLS, tool_approval="prompt")["run_id"]
    api.runtime.handle({"action": "await_approval", "run_id": run_id, "depth": 0, "task_token": "token-1"})
    # Then its view lists both, with what the person decides on
    run = api.get(f"/v1/runs/{run_id}").body
    assert run["status"] == "waiting_approval", run
    listed = run["pending_approvals"]
    assert [(c["tool"], c["arguments"]) for c in listed] == [
        ("memory-search", {"query": "cats"}),
        ("memory-search", {"query": "dogs"}),
    ]
    # When the first is answered, only the second is still listed
    first, second = listed[0]["call_id"], listed[1]["call_id"]
    assert api.post(f"/v1/runs/{run_id}/approvals", {"call_id": first, "decision": "deny"}).status == 200
    assert [c["call_id"] for c in api.get(f"/v1/runs/{run_id}").body["pending_approvals"]] == [second]
    # Another user sees no run at all
    assert api.get(f"/v1/runs/{run_id}", user="bob").status == 404


@pytest.mark.usefixtures("master")
def test_a_run_that_waits_for_nobody_lists_nothing(api: Api) -> None:
    run = start(api, "hello")
    assert run["status"] == "succeeded"
    assert "pending_approvals" not in api.get(f"/v1/runs/{run['run_id']}").body
