"""Answering an approval of a run that never paused (it ended in its first step, so it has no checkpoint) is a
409 saying where the run is. Before, it was a 404 "no run '<id>'" for a run its owner could GET."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.run_support import start


@pytest.mark.usefixtures("master")
def test_answering_an_approval_of_a_run_that_ended_in_its_first_step_is_409_naming_its_status(api: Api) -> None:
    run_id = start(api, "hello")["run_id"]
    assert api.get(f"/v1/runs/{run_id}").status == 200
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": "call-1", "decision": "once"})
    assert (reply.status, reply.body["error"]) == (409, "conflict")
    assert reply.body["message"] == f"run {run_id!r} is succeeded, not waiting for an approval"


@pytest.mark.usefixtures("master")
def test_another_users_run_is_still_404(api: Api) -> None:
    run_id = start(api, "hello")["run_id"]
    reply = api.post(f"/v1/runs/{run_id}/approvals", {"call_id": "call-1", "decision": "once"}, user="bob")
    assert (reply.status, reply.body["error"]) == (404, "not_found")
