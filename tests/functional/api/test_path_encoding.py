"""A path's parameters are percent-decoded (RFC 3986 §2.1): a client that encodes each segment (JavaScript's
``encodeURIComponent`` turns ``:`` into ``%3A``) reaches the same resource, an encoded ``/`` never reaches another
route, and encoding reaches nobody else's data."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT


def test_a_chat_id_with_a_colon_is_reached_encoded_and_plain(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    assert api.post("/v1/runs", {"agent_id": "researcher", "input": "hi", "chat_id": "proj:chat.1"}).status == 200
    assert api.get("/v1/chats/proj:chat.1").status == 200
    assert api.get("/v1/chats/proj%3Achat.1").status == 200
    assert api.get("/v1/chats/proj%3achat.1").body["chat_id"] == "proj:chat.1"


def test_an_encoded_letter_names_the_same_agent(api: Api) -> None:
    api.put("/v1/agents/researcher", AGENT)
    reply = api.get("/v1/agents/r%65searcher")
    assert reply.status == 200 and reply.body["agent_id"] == "researcher"


def test_a_put_through_an_encoded_path_stores_the_decoded_id(api: Api) -> None:
    assert api.put("/v1/agents/r%65searcher", AGENT).status == 200
    assert api.get("/v1/agents/researcher").status == 200


@pytest.mark.parametrize("path", ["/v1/agents/researcher%2Ftasks%2Fdaily", "/v1/agents/..%2F..%2Fv1%2Fskills"])
def test_an_encoded_slash_stays_inside_its_segment(api: Api, path: str) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.put("/v1/agents/researcher/tasks/daily", {"name": "Daily"})
    reply = api.get(path)
    assert reply.status in (400, 404) and "task_id" not in reply.body


def test_another_users_chat_is_not_reached_by_encoding_its_id(api: Api) -> None:
    api.call("PUT", "/v1/agents/researcher", AGENT, user="bob")
    api.call("POST", "/v1/runs", {"agent_id": "researcher", "input": "hi", "chat_id": "b:1"}, user="bob")
    assert api.get("/v1/chats/b%3A1").status == 404
    assert api.call("GET", "/v1/chats/b%3A1", user="bob").status == 200
