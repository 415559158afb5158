"""A field of an agent's or task's PUT that is not one of the resource's is still ignored (SPEC §10: extra fields
are allowed), but the answer's ``warnings`` name it: before, a typo such as ``"tool"`` for ``"tools"`` saved an
agent without its tools and said nothing. The fields a GET shows (ids, owner, ``global``, ``warnings``) may be
sent back without a word: saving what was read stays silent."""

from __future__ import annotations

import json

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
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


EMOJI = "\U0001f600"  # 4 bytes of UTF-8, 12 of escaped JSON: a name quoted whole tripled the body's size


def test_an_unknown_field_with_a_name_of_megabytes_is_named_by_its_start(api: Api) -> None:
    reply = api.put(AGENTS, json.dumps({"label": "Researcher", EMOJI * 590_000: 1}, ensure_ascii=False))
    assert reply.status == 200, reply.text[:300]
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES  # before: 7 MB, a 500 from API Gateway after the save
    (warning,) = reply.body["warnings"]
    assert warning == f"field '{EMOJI * 64}…' is not one of this resource's: it was ignored"


def test_many_unknown_fields_are_named_up_to_ten_and_the_rest_counted(api: Api) -> None:
    fields = {f"{EMOJI * 990}{n:03}": n for n in range(590)}
    reply = api.put(AGENTS, json.dumps({"label": "Researcher", **fields}, ensure_ascii=False))
    assert reply.status == 200, reply.text[:300]
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES
    warnings = reply.body["warnings"]
    assert len(warnings) == 11 and warnings[-1] == "580 more fields that are not this resource's were ignored"
    assert warnings[0] == f"field '{EMOJI * 64}…' is not one of this resource's: it was ignored"


def test_ten_unknown_fields_are_all_named(api: Api) -> None:
    reply = api.put(AGENTS, {"label": "Researcher", **{f"x{n}": n for n in range(10)}})
    assert reply.body["warnings"] == [f"field 'x{n}' is not one of this resource's: it was ignored" for n in range(10)]
