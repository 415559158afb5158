"""A chat message larger than one DynamoDB item (400 KB) is stored in parts beside its item
(:mod:`mneme.adapters.dynamo.item_parts`), on the three ItemTable backends: it reads back whole by every read,
an export shows it once, and deleting the chat, erasing its user or taking the turn back leaves no part behind."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.adapters.dynamo.item_parts import CHAT_PARTS
from mneme.models import Chat, TextMessage
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
PK = "USER#alice#CHAT#c1"
#: 100,000 characters (SPEC §12's input limit) that JSON escapes to 6 bytes each: 600 KB as one item
CONTROL = "\x01" * 100_000
#: a long CJK answer: 450 KB of UTF-8
ANSWER = "答" * 150_000


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemChatStore:
    return ItemChatStore(backend.main, FixedClock(T0))


def _turn() -> list[TextMessage]:
    return [TextMessage(role="user", text=CONTROL), TextMessage(role="assistant", text=ANSWER)]


def _parts(backend: Backend) -> list[str]:
    return [str(i["SK"]) for i in backend.main.query(PK).items if str(i["SK"]).startswith(CHAT_PARTS)]


def _chat(**fields: Any) -> Chat:
    return Chat(chat_id="c1", user_id="alice", created_at=T0, updated_at=T0, **fields)


def test_large_messages_read_back_whole_by_every_read(store: ItemChatStore, backend: Backend) -> None:
    store.create_chat(_chat(messages=[TextMessage(role="user", text="hi"), TextMessage(role="assistant", text="yo")]))
    store.append_messages("alice", "c1", _turn(), expected_count=2)
    assert _parts(backend)  # stored in parts: no item of them is over the limit (the backends refuse one)
    whole = store.get_chat("alice", "c1")
    assert whole is not None and [m.text for m in whole.messages][2:] == [CONTROL, ANSWER]  # type: ignore[union-attr]
    tail = store.get_chat_tail("alice", "c1", since=2)
    assert tail is not None and [m.text for m in tail.messages] == [CONTROL, ANSWER]  # type: ignore[union-attr]
    assert [m.text for _seq, m in store.iter_messages("alice", "c1", after=1)] == [CONTROL, ANSWER]  # type: ignore[union-attr]
    owned = [o for o in store.iter_owned("alice") if o.kind == "message"]
    assert [o.data["text"] for o in owned][2:] == [CONTROL, ANSWER]


def test_a_small_message_is_kept_whole_in_its_item(store: ItemChatStore, backend: Backend) -> None:
    store.create_chat(_chat(messages=[TextMessage(role="user", text="中" * 100_000)]))  # 300 KB: fits
    assert _parts(backend) == []


def test_deleting_erasing_or_taking_back_leaves_no_part(store: ItemChatStore, backend: Backend) -> None:
    store.create_chat(_chat(messages=_turn()))
    assert store.delete_chat("alice", "c1") and backend.main.query(PK).items == []
    store.create_chat(_chat(messages=_turn()))
    assert store.erase_owned("alice") == {"chat": 1, "message": 2}
    assert backend.main.query(PK).items == []
    store.create_chat(_chat())
    store.append_messages("alice", "c1", _turn(), expected_count=0)
    assert store.take_back("alice", "c1", first=0, count=2, created=False)
    assert _parts(backend) == []
    store.append_messages("alice", "c1", _turn(), expected_count=0)  # the next turn takes its place
    again = store.get_chat("alice", "c1")
    assert again is not None and [m.text for m in again.messages] == [CONTROL, ANSWER]  # type: ignore[union-attr]
