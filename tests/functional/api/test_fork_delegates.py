"""A ``delegates`` entry may ask ``context: "fork"`` (issue 35.4); a bad value is a 400 naming the field."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT


def test_a_delegates_entry_asking_for_fork_is_saved(api: Api) -> None:
    body = {**AGENT, "delegates": [{"agent": "writer", "context": "fork"}]}
    reply = api.put("/v1/agents/researcher", body)
    assert reply.status == 200
    assert reply.body["delegates"] == [{"agent": "writer", "context": "fork"}]


def test_a_delegates_entry_with_an_unknown_context_is_400_naming_the_field(api: Api) -> None:
    body = {**AGENT, "delegates": [{"agent": "writer", "context": "forked"}]}
    reply = api.put("/v1/agents/researcher", body)
    assert reply.status == 400
    assert reply.body["field"] == "delegates.0.entry.context"
