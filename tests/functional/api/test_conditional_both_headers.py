"""A PUT with both ``If-Match`` and ``If-None-Match``: RFC 9110 §13.2.2 evaluates ``If-Match`` first and, when it
holds, ``If-None-Match`` next — both must hold. Before, ``If-None-Match`` was ignored whenever ``If-Match`` was
sent, so ``If-Match: <current>`` with ``If-None-Match: *`` (create only) replaced the existing agent."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

AGENTS = "/v1/agents/researcher"


def test_create_only_with_the_current_tag_still_refuses_an_agent_that_exists(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    reply = api.put(AGENTS, {**AGENT, "label": "Other"}, headers={"if-match": tag, "if-none-match": "*"})
    assert reply.status == 412 and "exists" in reply.body["message"]
    assert api.get(AGENTS).body["label"] == AGENT["label"]


def test_if_none_match_naming_the_current_tag_refuses_even_when_if_match_holds(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    reply = api.put(AGENTS, {**AGENT, "label": "Other"}, headers={"if-match": "*", "if-none-match": tag})
    assert reply.status == 412
    assert api.get(AGENTS).body["label"] == AGENT["label"]


def test_both_holding_saves(api: Api) -> None:
    tag = api.put(AGENTS, AGENT).headers["etag"]
    headers = {"if-match": tag, "if-none-match": '"0123456789abcdef0123"'}
    assert api.put(AGENTS, {**AGENT, "label": "Other"}, headers=headers).status == 200
    assert api.get(AGENTS).body["label"] == "Other"
