"""A field of an agent's or task's PUT that is not one of the resource's is still ignored (SPEC §10: extra fields
are allowed), but the answer's ``warnings`` name it: before, a typo such as ``"tool"`` for ``"tools"`` saved an
agent without its tools and said nothing. The fields a GET shows (ids, owner, ``global``, ``warnings``) may be
sent back without a word: saving what was read stays silent."""

from __future__ import annotations

from tests.functional.api.conftest import Api

AGENTS = "/v1/agents/researcher"
IGNORED = "field 'tool' is not one of this resource's: it was ignored"


def test_a_misspelt_agent_field_is_saved_without_it_and_named_in_the_warnings(api: Api) -> None:
    reply = api.put(AGENTS, {"label": "Researcher", "tool": ["memory-search"]})
    assert reply.status == 200
    assert reply.body["tools"] == [] and IGNORED in reply.body["warnings"]


def test_an_agent_sent_back_as_read_gets_no_warning(api: Api) -> None:
    policy = {"tool_read_namespaces": ["vector.user.${user_id}.memory"]}  # memory-search reaching nothing is warned
    api.put(AGENTS, {"label": "Researcher", "tools": ["memory-search"], "memory_policy": policy})
    shown = api.get(AGENTS).body
    reply = api.put(AGENTS, shown)
    assert reply.status == 200 and reply.body["warnings"] == []


def test_a_misspelt_task_field_is_named_and_a_task_sent_back_as_read_is_not(api: Api) -> None:
    api.put(AGENTS, {"label": "Researcher"})
    reply = api.put(f"{AGENTS}/tasks/daily", {"name": "Daily", "context_promt": "Be brief."})
    assert reply.status == 200
    assert reply.body["context_prompt"] == ""
    assert "field 'context_promt' is not one of this resource's: it was ignored" in reply.body["warnings"]
    shown = api.get(f"{AGENTS}/tasks/daily").body
    assert api.put(f"{AGENTS}/tasks/daily", shown).body["warnings"] == []
