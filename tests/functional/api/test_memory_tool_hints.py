"""Saving an agent whose memory tools can do nothing under its policy warns (the save still succeeds): with SPEC
§5.1's defaults memory-search reaches no namespace and the write tools are not offered, so a run's tool finds
nothing or fails, after an approval, with a reason the author never saw at the save."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api

AGENT = "/v1/agents/researcher"
NOTES = "vector.user.${user_id}.memory"


def _warnings(api: Api, tools: list[str], **policy: Any) -> list[str]:
    reply = api.put(AGENT, {"label": "Researcher", "tools": tools, "memory_policy": policy})
    assert reply.status == 200, reply.text
    return list(reply.body["warnings"])


def test_memory_search_without_namespaces_is_warned(api: Api) -> None:
    [hint] = _warnings(api, ["memory-search"])
    assert hint.startswith("memory-search reaches no namespace") and "tool_read_namespaces" in hint


def test_memory_search_with_namespaces_is_not_warned(api: Api) -> None:
    assert _warnings(api, ["memory-search"], tool_read_namespaces=[NOTES]) == []


def test_a_write_tool_the_policy_does_not_offer_is_warned(api: Api) -> None:
    [hint] = _warnings(api, ["memory-write"], allowed_write_namespaces=[NOTES])
    assert hint.startswith("memory-write is not offered to the model") and "allow_tool_write" in hint


def test_a_write_tool_offered_with_no_namespace_to_write_is_warned(api: Api) -> None:
    hints = _warnings(api, ["memory-write", "memory-delete"], allow_tool_write=True, allow_tool_delete=True)
    assert [hint.split(":")[0] for hint in hints] == [
        "memory-write reaches no namespace",
        "memory-delete reaches no namespace",
    ]


def test_write_tools_with_their_switch_and_namespaces_are_not_warned(api: Api) -> None:
    tools = ["memory-write", "memory-update", "memory-delete"]
    policy = {"allow_tool_write": True, "allow_tool_delete": True, "allowed_write_namespaces": [NOTES]}
    assert _warnings(api, tools, **policy) == []


def test_another_users_namespace_in_a_policy_is_warned(api: Api) -> None:
    [hint] = _warnings(api, [], read_namespaces=["vector.user.bob.memory"])
    assert hint == "'vector.user.bob.memory' belongs to user 'bob': the security filter refuses it to this agent's runs"


def test_the_owners_own_namespaces_are_not_warned(api: Api) -> None:
    assert _warnings(api, [], read_namespaces=["vector.user.alice.memory", NOTES, "vector.global.howto"]) == []


def test_a_global_agent_naming_one_user_is_warned_that_only_that_users_runs_reach_it(api: Api) -> None:
    body = {"label": "Helpdesk", "global": True, "memory_policy": {"read_namespaces": ["vector.user.bob.memory"]}}
    reply = api.put("/v1/agents/helpdesk", body, user="root", admin=True)
    assert reply.status == 200
    assert reply.body["warnings"] == [
        "'vector.user.bob.memory' belongs to user 'bob': only that user's runs may reach it"
    ]


def test_a_task_naming_another_users_namespace_is_warned(api: Api) -> None:
    _warnings(api, [])
    reply = api.put(
        f"{AGENT}/tasks/daily", {"name": "Daily", "memory_policy": {"read_namespaces": ["vector.user.bob.memory"]}}
    )
    assert reply.status == 200 and [w.split(":")[0] for w in reply.body["warnings"]] == [
        "'vector.user.bob.memory' belongs to user 'bob'"
    ]
