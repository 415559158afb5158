"""The synchronous client against a real local server (``python -m mneme_local.server``)."""

from __future__ import annotations

import uuid

import pytest

from mneme_client import ApiError, Client, local_token
from mneme_client.models import EventView, RunView
from tests.functional.local.support import LocalServer


@pytest.fixture
def user() -> str:
    return f"sync-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(server: LocalServer, user: str) -> Client:
    return Client(server.base, local_token(user, folder=server.data_dir))


def _agent(client: Client, agent_id: str = "helper") -> None:
    client.put_agent(agent_id, {"label": agent_id.title(), "tools": ["memory-search"]})


def test_a_local_token_is_accepted_and_a_missing_one_refused(server: LocalServer, client: Client) -> None:
    assert client.list_agents() == []
    with Client(server.base, "") as anonymous, pytest.raises(ApiError) as caught:
        anonymous.list_agents()
    assert caught.value.status == 401


def test_agents_are_saved_listed_and_deleted(client: Client) -> None:
    _agent(client)
    assert client.get_agent("helper")["label"] == "Helper"
    assert [a["agent_id"] for a in client.list_agents()] == ["helper"]
    client.delete_agent("helper")
    with pytest.raises(ApiError) as caught:
        client.get_agent("helper")
    assert caught.value.status == 404


def test_a_run_answers_its_output_and_is_read_back(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "hello there")
    assert isinstance(run, RunView)
    assert (run.status, run.output) == ("succeeded", "offline: hello there")
    assert client.get_run(run.run_id).output == "offline: hello there"


def test_follow_streams_the_events_of_a_run_until_it_ends(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "/search apollo")
    kinds = [item.type for item in client.follow(run.run_id) if isinstance(item, EventView)]
    assert kinds[0] == "run_started"
    assert kinds[-1] == "completed"
    assert "tool_call" in kinds


def test_memory_written_is_found_and_exported(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    ids = client.write_memory(namespace, "The Apollo review is due on March 15.").ids
    hits = client.search_memory("When is the Apollo review due?").hits
    assert [hit.id for hit in hits][:1] == ids
    exported = list(client.export_memory())
    assert [(d.id, d.content) for d in exported] == [(ids[0], "The Apollo review is due on March 15.")]


def test_memory_of_another_user_is_neither_found_nor_exported(server: LocalServer, client: Client) -> None:
    stranger = f"other-{uuid.uuid4().hex[:8]}"
    other = Client(server.base, local_token(stranger, folder=server.data_dir))
    other.write_memory(f"vector.user.{stranger}.memory", "A secret of someone else.")
    assert client.search_memory("secret").hits == []
    assert list(client.export_memory()) == []


def test_a_runs_chat_is_listed_with_its_messages(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "remember the milk", chat_id="groceries")
    assert isinstance(run, RunView)
    assert run.chat_id == "groceries"
    assert [c["chat_id"] for c in client.list_chats()] == ["groceries"]
    texts = [str(m) for m in client.get_chat("groceries").messages]
    assert any("remember the milk" in text for text in texts)
    client.delete_chat("groceries")
    assert client.list_chats() == []
