"""A model's tool call whose arguments are larger than one DynamoDB item (400 KB of CJK text) and wait for a
person's approval: its ``approval_requested`` event is stored (in parts beside its item), so ``POST /v1/runs``
answers 202 waiting_approval and the events show the full arguments. Before, the step's commit was refused and
the caller, whose own input was two words, got a 413 naming DynamoDB after the model had answered."""

from __future__ import annotations

from tests.fakes.model import ScriptedModel, tool_use_response
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of
from tests.functional.engine.limits_support import LOOKUP, lookup_answer
from tests.support.deps import make_world

ARGUMENTS = {"n": 7, "text": "答" * 150_000}  # 450 KB of UTF-8


def _api(arguments: dict[str, object]) -> Api:
    model = ScriptedModel([tool_use_response(("lookup", arguments, "c0")), "done"])
    world = make_world(model, tools=lookup_answer)
    add_agent(world, external_tools=[LOOKUP], tool_approval_default="prompt")
    return Api(world)


def test_a_tool_call_of_long_arguments_waits_for_approval_with_its_arguments_shown() -> None:
    api = _api(ARGUMENTS)
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "go"})
    assert (reply.status, reply.body["status"]) == (202, "waiting_approval"), reply.text[:300]
    run_id = reply.body["run_id"]
    asked = [e for e in events_of(api, run_id) if e["type"] == "approval_requested"]
    assert [c["arguments"] for e in asked for c in e["calls"]] == [ARGUMENTS]
    pending = api.get(f"/v1/runs/{run_id}").body["pending_approvals"]
    assert [p["arguments"] for p in pending] == [ARGUMENTS]


def test_a_tool_call_of_short_arguments_waits_the_same_way() -> None:
    api = _api({"n": 7})
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "go"})
    assert (reply.status, reply.body["status"]) == (202, "waiting_approval")
    asked = [e for e in events_of(api, reply.body["run_id"]) if e["type"] == "approval_requested"]
    assert [c["arguments"] for e in asked for c in e["calls"]] == [{"n": 7}]
