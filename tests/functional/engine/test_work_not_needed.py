"""A run does no work its model does not need (issue 14, point 7), counted in calls and items read:
no query embedding when nothing will be injected, and only the chat's uncovered tail read on every turn."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.dynamo.chat_items import TAIL_PAGE
from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.models.chat import Chat, TextMessage
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World


class CountingTable:
    """An ItemTable that counts the items its reads return."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.items_read = 0

    def get(self, pk: str, sk: str) -> Any:
        item = self.inner.get(pk, sk)
        self.items_read += item is not None
        return item

    def batch_get(self, keys: Any) -> Any:
        items = self.inner.batch_get(keys)
        self.items_read += len(items)
        return items

    def query(self, *args: Any, **kwargs: Any) -> Any:
        page = self.inner.query(*args, **kwargs)
        self.items_read += len(page.items)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _long_chat(world: World, messages: int, covered: int) -> str:
    now = world.clock.now()
    turns = [
        TextMessage(role="user" if i % 2 == 0 else "assistant", text=f"message number {i} " + "x" * 20)
        for i in range(messages)
    ]
    world.deps.chats.create_chat(Chat(chat_id="long", user_id="alice", created_at=now, updated_at=now, messages=turns))
    world.deps.chats.set_summary("alice", "long", "the gist of the first part", covered, [])
    return "long"


def test_an_agent_whose_policy_turns_auto_read_off_embeds_nothing(world: World) -> None:
    add_agent(world, memory_policy={"auto_read_enabled": False})
    result = run(world, "hello there")
    assert result.run.status.value == "succeeded"
    assert world.embedder.calls == []


def test_an_auto_reading_agent_embeds_its_query_once(world: World) -> None:
    add_agent(world)
    run(world, "hello there")
    assert world.embedder.calls == [["hello there"]]


def test_a_request_that_turns_memory_off_embeds_nothing(world: World) -> None:
    add_agent(world)
    run(world, "hello there", memory={"enabled": False})
    assert world.embedder.calls == []


@pytest.mark.parametrize("length", [600, 3000])
def test_a_turn_of_a_long_summarized_chat_reads_the_same_items_however_long_the_chat(world: World, length: int) -> None:
    # Given a chat whose summary covers all but its last 10 messages
    add_agent(world)
    chat_id = _long_chat(world, messages=length, covered=length - 10)
    counting = CountingTable(world.deps.chats._table)  # type: ignore[attr-defined]
    world.deps.chats = ItemChatStore(counting, world.clock)
    # When alice sends the next message
    result = run(world, "and now?", chat_id=chat_id)
    # Then the chat read was one page from the end and the header: a count that does not grow with the chat
    assert counting.items_read == TAIL_PAGE + 1
    # And the model saw the summary, the tail and the new message
    request = world.deps.runs.list_requests(result.run.run_id)[0]
    texts = [block["text"] for m in request["messages"] for block in m["content"] if "text" in block]
    assert texts[0].endswith("the gist of the first part")
    assert any(text.startswith(f"message number {length - 10} ") for text in texts)
    assert not any(text.startswith(f"message number {length - 11} ") for text in texts)
    # And the turn was appended after every stored message
    assert world.deps.chats.get_chat("alice", chat_id).message_count == length + 2  # type: ignore[union-attr]


def test_a_summary_stored_by_an_older_release_still_reads_the_covered_part_for_its_skills(world: World) -> None:
    # Given a summary stored without the skills of its covered part (an older release)
    add_agent(world)
    chat_id = _long_chat(world, messages=30, covered=20)
    table = world.deps.chats._table  # type: ignore[attr-defined]
    header = table.get("USER#alice#CHAT#long", "CHAT")
    del header["summary_skills"]
    table.put(header)
    # When the chat's tail is read
    chat = world.deps.chats.get_chat_tail("alice", chat_id)
    # Then every message is there, so the covered part's activated skills can be found
    assert chat is not None and chat.first_seq == 0 and len(chat.messages) == 30


class TaskQueries:
    """Counts the queries of an agent's tasks (the only-task lookup) made on the config store's table."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.task_queries = 0

    def query(self, pk: str, *args: Any, sk_prefix: str | None = None, **kwargs: Any) -> Any:
        self.task_queries += bool(sk_prefix and sk_prefix.startswith("TASK#"))
        return self.inner.query(pk, *args, sk_prefix=sk_prefix, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_only_a_runs_first_step_looks_for_its_agents_task(world: World) -> None:
    from mneme.engine.runs import service

    # Given a master without tasks delegating to b without tasks
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
    add_agent(world, "b")
    table = TaskQueries(world.deps.config._table)  # type: ignore[attr-defined]
    world.deps.config._table = table  # type: ignore[attr-defined]
    # When the master starts (the fast path: its first step), b runs its first step, and the master resumes
    started = run(world, "/delegate b :: work")
    assert started.outcome == "delegate" and table.task_queries == 1
    assert service.step(world.deps, started.children[0]["run_id"]).outcome == "done"
    assert table.task_queries == 2
    finished = service.step(world.deps, started.run.run_id)
    # Then the resumed step looked none up: the master started without a task and keeps running without one
    assert finished.outcome == "done" and finished.run.task_id is None
    assert table.task_queries == 2
