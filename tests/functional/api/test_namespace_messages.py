"""An invalid namespace is named once in its 400. Each message quoted it twice, the second time from the grammar's
own error ("invalid namespace 'abc': 'abc': a namespace starts with…"; for a template, the pattern and then its
resolved text). Now the request's value is quoted once, then what is wrong, and the field is named."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

GRAMMAR = "a namespace starts with 'vector.<scope>' (agent, user or global)"


def test_a_listed_namespace_is_quoted_once(api: Api) -> None:
    reply = api.get("/v1/memory/documents", query={"namespace": "abc"})
    assert (reply.status, reply.body["field"]) == (400, "namespace")
    assert reply.body["message"] == f"invalid namespace 'abc': {GRAMMAR}"


def test_a_written_template_is_quoted_as_sent_and_not_resolved_again(api: Api) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": "vector.user.${user_id}.a..b", "content": "Tea."})
    assert (reply.status, reply.body["field"]) == (400, "namespace")
    message = reply.body["message"]
    assert message == "invalid namespace 'vector.user.${user_id}.a..b': segment '' must match [a-z0-9][a-z0-9-]*"


def test_a_searched_namespace_is_quoted_once_naming_the_list(api: Api) -> None:
    reply = api.post("/v1/memory/search", {"namespaces": ["nope"], "query": "tea"})
    assert (reply.status, reply.body["field"]) == (400, "namespaces")
    assert reply.body["message"] == f"invalid namespace 'nope': {GRAMMAR}"


@pytest.mark.parametrize("field", ["tool_read_namespaces", "allowed_write_namespaces"])
def test_a_policy_pattern_is_quoted_once(api: Api, field: str) -> None:
    reply = api.put("/v1/agents/weekly", {**AGENT, "memory_policy": {field: ["abc"]}})
    assert reply.status == 400, reply.text
    assert reply.body["message"].count("'abc'") == 1 and GRAMMAR in reply.body["message"], reply.text
