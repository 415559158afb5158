"""Remembered approvals over HTTP (issue 15.6): ``always`` holds for (user, agent, tool) across runs until
revoked (``GET /v1/me/approvals``, ``DELETE /v1/me/approvals/{id}``), and every step of it is audited."""

from __future__ import annotations

import json

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World


@pytest.fixture(autouse=True)
def agents(world: World) -> None:
    add_agent(world, "master", tools=["memory-search"], tool_approval_default="prompt")
    add_agent(world, "other", tools=["memory-search"], tool_approval_default="prompt")


def _asks(api: Api, agent: str = "master", user: str = "alice") -> tuple[str, list[str]]:
    """Start a search run: its id and the calls it asked a person about."""
    reply = api.post("/v1/runs", {"agent_id": agent, "input": "/search cats"}, user=user)
    run_id = reply.body["run_id"]
    asked = [
        c["call_id"] for e in events_of(api, run_id, user=user) if e["type"] == "approval_requested" for c in e["calls"]
    ]
    return run_id, asked


def _always(api: Api) -> None:
    run_id, (call_id,) = _asks(api)
    assert api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "always"}).status == 200
    step_event(api, run_id)


def test_a_remembered_always_skips_the_prompt_on_the_next_run(api: Api, world: World) -> None:
    # Given alice answered "always" for the master's memory-search once
    _always(api)
    # When the master runs the tool again, in a new run
    run_id, asked = _asks(api)
    # Then nobody is asked, and the run answered with the tool's result
    assert asked == []
    run = api.get(f"/v1/runs/{run_id}").body
    assert run["status"] == "succeeded" and "memory-search" in run["output"]
    uses = [r for r in world.deps.audit.query("alice", action="approval").records if r.detail.get("remembered")]
    assert any(r.run_id == run_id for r in uses)  # the use of the grant is audited on the run


def test_revoking_it_brings_the_prompt_back(api: Api, world: World) -> None:
    _always(api)
    (grant,) = api.get("/v1/me/approvals").body["approvals"]
    assert (grant["agent_id"], grant["tool"]) == ("master", "memory-search")
    assert api.delete(f"/v1/me/approvals/{grant['id']}").status == 204
    _, asked = _asks(api)
    assert len(asked) == 1
    assert api.get("/v1/me/approvals").body["approvals"] == []
    revoked = [
        r for r in world.deps.audit.query("alice", action="approval").records if r.detail["decision"] == "revoked"
    ]
    assert [r.detail["approval_id"] for r in revoked] == [grant["id"]]


def test_once_is_not_remembered(api: Api) -> None:
    run_id, (call_id,) = _asks(api)
    api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "once"})
    assert api.get("/v1/me/approvals").body["approvals"] == []
    assert len(_asks(api)[1]) == 1


def test_a_grant_holds_for_its_agent_only(api: Api) -> None:
    _always(api)
    assert len(_asks(api, agent="other")[1]) == 1


def test_a_grant_holds_for_its_user_only(api: Api, world: World) -> None:
    _always(api)
    add_agent(world, "master", owner="bob", tools=["memory-search"], tool_approval_default="prompt")
    assert len(_asks(api, user="bob")[1]) == 1
    assert api.get("/v1/me/approvals", user="bob").body["approvals"] == []


def test_another_user_cannot_revoke_a_grant(api: Api) -> None:
    _always(api)
    (grant,) = api.get("/v1/me/approvals").body["approvals"]
    assert api.delete(f"/v1/me/approvals/{grant['id']}", user="bob").status == 404
    assert len(api.get("/v1/me/approvals").body["approvals"]) == 1


def test_revoking_an_unknown_grant_is_a_404(api: Api) -> None:
    reply = api.delete("/v1/me/approvals/apr-0000")
    assert reply.status == 404 and reply.body["field"] == "approval_id"


def test_remembering_is_audited_with_its_grant(api: Api, world: World) -> None:
    _always(api)
    (grant,) = api.get("/v1/me/approvals").body["approvals"]
    records = world.deps.audit.query("alice", action="approval").records
    assert any(r.detail.get("approval_id") == grant["id"] and r.detail["decision"] == "always" for r in records)


def test_the_grant_applies_to_a_sub_agent_of_that_agent_too(api: Api, world: World) -> None:
    # Given the grant for the master's memory-search, and a boss that delegates to the master in prompt mode
    _always(api)
    add_agent(world, "boss", tools=["delegate-to-agent"], delegates=["master"])
    root = start(api, "/delegate master :: /search dogs", agent_id="boss", tool_approval="prompt")["run_id"]
    (call_id,) = [c["call_id"] for e in events_of(api, root) if e["type"] == "approval_requested" for c in e["calls"]]
    # When alice approves the delegation itself (boss has no grant) and the child runs
    api.post(f"/v1/runs/{root}/approvals", {"call_id": call_id, "decision": "once"})
    step_event(api, root)
    (child,) = api.get(f"/v1/runs/{root}").body["children"]
    step_event(api, child, depth=1)
    # Then the child, a run of the master agent in prompt mode, searched without asking
    assert [e for e in events_of(api, child) if e["type"] == "approval_requested"] == []
    assert api.get(f"/v1/runs/{child}").body["status"] == "succeeded"


def test_a_grant_for_the_users_own_agent_does_not_hold_for_the_global_agent_of_that_id(api: Api, world: World) -> None:
    # Given alice's "always" for her own master's search, and a global master of an admin's
    _always(api)
    add_agent(world, "master", owner="__global__", tools=["memory-search"], tool_approval_default="prompt")
    # When she deletes her master, so her runs of master run the global one
    assert api.delete("/v1/agents/master").status == 204
    # Then the global agent's search asks her: her grant was for her agent, not for the admin's
    assert len(_asks(api)[1]) == 1


def test_a_grant_for_a_global_agent_does_not_hold_for_the_users_own_agent_of_that_id(api: Api, world: World) -> None:
    add_agent(world, "shared", owner="__global__", tools=["memory-search"], tool_approval_default="prompt")
    run_id, (call_id,) = _asks(api, agent="shared")
    assert api.post(f"/v1/runs/{run_id}/approvals", {"call_id": call_id, "decision": "always"}).status == 200
    step_event(api, run_id)
    assert _asks(api, agent="shared")[1] == []  # the global agent's grant holds for it
    add_agent(world, "shared", tools=["memory-search"], tool_approval_default="prompt")  # alice's own shared
    assert len(_asks(api, agent="shared")[1]) == 1


def test_a_grant_remembered_before_owners_were_kept_still_holds(api: Api, world: World) -> None:
    _always(api)
    table = world.deps.grants._table  # type: ignore[attr-defined]
    (item,) = [i for i in table.query("OWNER#alice", sk_prefix="APPROVAL#").items]
    data = json.loads(item["data"])
    assert data.pop("agent_owner") == "alice"
    table.put({**item, "data": json.dumps(data)})  # as an earlier release stored it
    assert _asks(api)[1] == []
