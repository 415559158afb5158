"""Chats with their messages (SPEC §10): the caller's own only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World


@pytest.fixture
def chat_id(api: Api, world: World) -> str:
    add_agent(world)
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hello", "chat_id": "chat-1", "project_id": "p1"})
    assert reply.status == 200
    return str(reply.body["chat_id"])


def test_list_chats_answers_the_callers_chats_without_messages(api: Api, chat_id: str) -> None:
    reply = api.get("/v1/chats")
    assert reply.status == 200
    chats: list[dict[str, Any]] = reply.body["chats"]
    assert [(c["chat_id"], c["project_id"]) for c in chats] == [(chat_id, "p1")]
    assert "messages" not in chats[0]


def test_get_chat_answers_its_messages_in_order(api: Api, chat_id: str) -> None:
    # Given a second turn in the same chat
    api.post("/v1/runs", {"agent_id": "master", "input": "again", "chat_id": chat_id})
    # When alice reads the chat
    reply = api.get(f"/v1/chats/{chat_id}")
    # Then the four messages, oldest first
    assert reply.status == 200
    messages = reply.body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [m.get("text") for m in messages][::2] == ["hello", "again"]


def test_another_users_chat_is_404(api: Api, chat_id: str) -> None:
    reply = api.get(f"/v1/chats/{chat_id}", user="bob")
    assert (reply.status, reply.body["error"]) == (404, "not_found")
    assert api.get("/v1/chats", user="bob").body == {"chats": [], "cursor": None}


def test_delete_chat_removes_it(api: Api, world: World, chat_id: str) -> None:
    reply = api.delete(f"/v1/chats/{chat_id}")
    assert reply.status == 204
    assert world.deps.chats.get_chat("alice", chat_id) is None
    assert api.get(f"/v1/chats/{chat_id}").status == 404


def test_another_user_cannot_delete_a_chat(api: Api, world: World, chat_id: str) -> None:
    reply = api.delete(f"/v1/chats/{chat_id}", user="bob")
    assert reply.status == 404
    assert world.deps.chats.get_chat("alice", chat_id) is not None


def test_a_run_cannot_write_into_another_users_chat(api: Api, world: World, chat_id: str) -> None:
    # Given bob has an agent too
    add_agent(world, owner="bob")
    # When bob names alice's chat id in his run
    api.post("/v1/runs", {"agent_id": "master", "input": "sneaky", "chat_id": chat_id}, user="bob")
    # Then alice's chat is unchanged
    chat = world.deps.chats.get_chat("alice", chat_id)
    assert chat is not None and len(chat.messages) == 2
