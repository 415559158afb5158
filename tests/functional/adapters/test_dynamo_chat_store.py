"""ChatStore on the three ItemTable backends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.errors import Conflict, NotFound
from mneme.models import Chat, ChatMessage, TextMessage, ToolCallMessage, ToolResultMessage
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def store(backend: Backend, clock: FixedClock) -> ItemChatStore:
    return ItemChatStore(backend.main, clock)


def _chat(chat_id: str = "c1", user_id: str = "alice", at: datetime = T0, **fields: Any) -> Chat:
    return Chat(chat_id=chat_id, user_id=user_id, created_at=at, updated_at=at, **fields)


def _texts(n: int, start: int = 0) -> list[TextMessage]:
    return [TextMessage(role="user" if i % 2 == 0 else "assistant", text=f"m{i}") for i in range(start, start + n)]


def test_create_get_and_conflict(store: ItemChatStore) -> None:
    chat = _chat(project_id="p1", title="Hello")
    store.create_chat(chat)
    assert store.get_chat("alice", "c1") == chat
    assert store.get_chat("bob", "c1") is None
    with pytest.raises(Conflict):
        store.create_chat(chat)


def test_append_keeps_order_and_message_kinds(store: ItemChatStore) -> None:
    store.create_chat(_chat())
    messages: list[ChatMessage] = [
        TextMessage(role="user", text="hi", at=T0, run_id="r1"),
        ToolCallMessage(call_id="t1", tool="memory-search", arguments={"query": "x", "k": 2.5}),
        ToolResultMessage(call_id="t1", tool="memory-search", content="found", status="error"),
        TextMessage(role="assistant", text="done"),
    ]
    store.append_messages("alice", "c1", messages[:2], expected_count=0)
    store.append_messages("alice", "c1", messages[2:], expected_count=2)
    chat = store.get_chat("alice", "c1")
    assert chat is not None and chat.messages == messages


def test_retried_append_does_not_duplicate(store: ItemChatStore) -> None:
    store.create_chat(_chat())
    store.append_messages("alice", "c1", _texts(2), expected_count=0)
    with pytest.raises(Conflict) as err:
        store.append_messages("alice", "c1", _texts(2), expected_count=0)  # the same step, retried
    assert err.value.details == {"count": 2}
    with pytest.raises(Conflict):  # a second writer that read an older count
        store.append_messages("alice", "c1", _texts(1, 5), expected_count=1)
    chat = store.get_chat("alice", "c1")
    assert chat is not None and [m.text for m in chat.messages] == ["m0", "m1"]  # type: ignore[union-attr]


def test_append_to_missing_chat_is_not_found(store: ItemChatStore) -> None:
    with pytest.raises(NotFound):
        store.append_messages("alice", "nope", _texts(1), expected_count=0)


def test_many_messages_span_transactions(store: ItemChatStore) -> None:
    store.create_chat(_chat(messages=_texts(120)))
    store.append_messages("alice", "c1", _texts(150, 120), expected_count=120)
    chat = store.get_chat("alice", "c1")
    assert chat is not None
    assert [m.text for m in chat.messages] == [f"m{i}" for i in range(270)]  # type: ignore[union-attr]


def test_a_turn_of_many_long_tool_results_spans_transactions_of_at_most_4_mb(store: ItemChatStore) -> None:
    """A turn of 45 tool results of 100,000 characters (4.5 MB) went into one transaction, which DynamoDB
    refuses past 4 MB: the run failed after its model had answered. Now it is stored whole, in order."""
    results = [ToolResultMessage(call_id=f"t{i}", tool="lookup", content=f"{i:02d}" + "y" * 99_998) for i in range(45)]
    store.create_chat(_chat(messages=[TextMessage(role="user", text="go"), *results]))
    store.append_messages("alice", "c1", results, expected_count=46)
    chat = store.get_chat("alice", "c1")
    assert chat is not None and chat.message_count == 91
    stored = [m.content[:2] for m in chat.messages if isinstance(m, ToolResultMessage)]
    assert stored == [f"{i:02d}" for i in range(45)] * 2


def _words(chat: Chat | None) -> list[str]:
    return [m.text for m in chat.messages if isinstance(m, TextMessage)] if chat else []


def test_take_back_removes_the_last_turn_and_the_next_append_takes_its_place(store: ItemChatStore) -> None:
    # Given a chat of 4 messages, the last 2 a turn to take back
    store.create_chat(_chat(messages=_texts(2)))
    store.append_messages("alice", "c1", _texts(2, start=2), expected_count=2)
    # When they are taken back
    assert store.take_back("alice", "c1", first=2, count=2, created=False) is True
    # Then the chat is as before them, and a next append lands at position 2
    chat = store.get_chat("alice", "c1")
    assert chat is not None and _words(chat) == ["m0", "m1"] and chat.message_count == 2
    store.append_messages("alice", "c1", _texts(1, start=7), expected_count=2)
    assert _words(store.get_chat("alice", "c1")) == ["m0", "m1", "m7"]


def test_take_back_of_the_turn_a_chat_was_created_with_removes_the_chat(store: ItemChatStore) -> None:
    store.create_chat(_chat(messages=_texts(3)))
    assert store.take_back("alice", "c1", first=0, count=3, created=True) is True
    assert store.get_chat("alice", "c1") is None and store.list_chats("alice") == []


def test_take_back_changes_nothing_when_the_chat_moved_on(store: ItemChatStore) -> None:
    # Given a turn at positions 2-3 and another message appended after it
    store.create_chat(_chat(messages=_texts(4)))
    store.append_messages("alice", "c1", _texts(1, start=4), expected_count=4)
    # When the turn at 2-3 is to be taken back, then it is not, and nothing changed
    assert store.take_back("alice", "c1", first=2, count=2, created=False) is False
    assert _words(store.get_chat("alice", "c1")) == [f"m{i}" for i in range(5)]
    assert store.take_back("alice", "gone", first=0, count=1, created=True) is False


def test_take_back_of_more_than_one_transaction_of_messages(store: ItemChatStore) -> None:
    store.create_chat(_chat(messages=_texts(1)))
    store.append_messages("alice", "c1", _texts(230, start=1), expected_count=1)
    assert store.take_back("alice", "c1", first=1, count=230, created=False) is True
    chat = store.get_chat("alice", "c1")
    assert chat is not None and _words(chat) == ["m0"] and chat.message_count == 1


def test_another_users_chat_of_that_id_is_never_taken_back(store: ItemChatStore) -> None:
    store.create_chat(_chat(user_id="bob", messages=_texts(2)))
    assert store.take_back("alice", "c1", first=0, count=2, created=True) is False
    assert store.get_chat("bob", "c1") is not None


def test_summary_fields_are_stored(store: ItemChatStore) -> None:
    store.create_chat(_chat(messages=_texts(4)))
    store.set_summary("alice", "c1", "they said hello", 3)
    chat = store.get_chat("alice", "c1")
    assert chat is not None and (chat.summary, chat.summary_covers, len(chat.messages)) == (
        "they said hello",
        3,
        4,
    )
    store.append_messages("alice", "c1", _texts(1, 4), expected_count=4)
    chat = store.get_chat("alice", "c1")
    assert chat is not None and chat.summary == "they said hello" and len(chat.messages) == 5
    with pytest.raises(NotFound):
        store.set_summary("alice", "nope", "x", 1)


def test_list_chats_newest_first_per_user(store: ItemChatStore, clock: FixedClock) -> None:
    store.create_chat(_chat("old", at=T0))
    store.create_chat(_chat("new", at=T0 + timedelta(minutes=1)))
    store.create_chat(_chat("bobs", user_id="bob", at=T0 + timedelta(minutes=2)))
    assert [c.chat_id for c in store.list_chats("alice")] == ["new", "old"]
    clock.advance(minutes=5)
    store.append_messages("alice", "old", _texts(1), expected_count=0)
    listed = store.list_chats("alice")
    assert [c.chat_id for c in listed] == ["old", "new"]
    assert listed[0].messages == [] and listed[0].updated_at == clock.now()
    assert [c.chat_id for c in store.list_chats("bob")] == ["bobs"]


def test_delete_removes_header_and_messages(store: ItemChatStore, backend: Backend) -> None:
    store.create_chat(_chat(messages=_texts(30)))
    store.create_chat(_chat("keep", messages=_texts(1)))
    assert store.delete_chat("alice", "c1") is True
    assert store.delete_chat("alice", "c1") is False
    assert store.get_chat("alice", "c1") is None
    assert [c.chat_id for c in store.list_chats("alice")] == ["keep"]
    assert backend.main.query("USER#alice#CHAT#c1").items == []
    store.create_chat(_chat())  # the id can be used again, from scratch
    store.append_messages("alice", "c1", _texts(1), expected_count=0)
