"""Retention on the three ItemTable backends: the TTL attribute the template names is written on every item
of a chat and of a run (and its events, requests, checkpoint, marks) when a retention is set, never when it
is 0, and expired items are not returned before TTL deletes them (DynamoDB takes days; SQLite never does)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from mneme.adapters.dynamo.chat_items import chat_pk
from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.adapters.dynamo.items import SK, query_all
from mneme.adapters.dynamo.run_items import run_pk
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.adapters.dynamo.ttl import DAY_SECONDS, TTL_ATTRIBUTE, Retention
from mneme.models import Chat, Run, RunEvent, TextMessage
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend
from tests.support.sam_template import resources

RETAINED = Retention(chats_days=30, runs_days=7, requests_days=0)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


def _run(clock: FixedClock, run_id: str = "r1") -> Run:
    now = clock.now()
    return Run(run_id=run_id, user_id="alice", agent_id="helper", root_run_id=run_id, created_at=now, updated_at=now)


def _events(*seqs: int) -> list[RunEvent]:
    return [RunEvent(seq=s, type="warning", at="2026-11-30T09:05:00Z", data={"message": f"e{s}"}) for s in seqs]


def _full_run(store: ItemRunStore, clock: FixedClock, run_id: str = "r1") -> Run:
    """A run with every kind of item: events, a small and a chunked request, a checkpoint and a mark."""
    run = store.commit(
        _run(clock, run_id),
        create=True,
        events=_events(1, 2),
        requests=[(1, {"modelId": "m", "messages": []}), (2, {"modelId": "m", "big": "x" * 700})],
        checkpoint={"state": "s"},
    )
    store.put_mark(run_id, "token", {"token": "t"})
    return run


def _partition(backend: Backend, pk: str) -> list[dict[str, Any]]:
    return query_all(backend.main, pk)


def test_the_stores_write_the_ttl_attribute_the_template_names() -> None:
    spec = resources("AWS::DynamoDB::Table")["MainTable"]["Properties"]["TimeToLiveSpecification"]
    assert spec == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}


def test_every_item_of_a_run_carries_the_ttl_and_none_expires_before_the_run(
    backend: Backend, clock: FixedClock
) -> None:
    # Given a run store keeping runs 7 days (small chunks, so the request spills)
    store = ItemRunStore(backend.main, chunk_chars=300, retention=RETAINED, clock=clock)
    created = clock.now()
    _full_run(store, clock)
    clock.advance(minutes=5)
    store.append_events("r1", _events(3))
    # Then the run item expires 7 days after creation, and every other item of the run no earlier
    items = {str(i[SK]): i for i in _partition(backend, run_pk("r1"))}
    assert {"RUN", "EVT#00000001", "EVT#00000003", "REQ#000001", "REQ#000002", "CHECKPOINT", "MARK#token"} <= set(items)
    assert any(sk.startswith("REQ#000002#") for sk in items), "the big request spilled into chunks"
    run_expiry = int(created.timestamp()) + 7 * DAY_SECONDS
    assert items["RUN"][TTL_ATTRIBUTE] == run_expiry
    assert all(item[TTL_ATTRIBUTE] >= run_expiry for item in items.values())
    assert items["EVT#00000003"][TTL_ATTRIBUTE] == run_expiry + 5 * 60


def test_a_retention_of_zero_writes_no_ttl_and_keeps_everything(backend: Backend, clock: FixedClock) -> None:
    store = ItemRunStore(backend.main, chunk_chars=300, clock=clock)
    _full_run(store, clock)
    assert all(TTL_ATTRIBUTE not in item for item in _partition(backend, run_pk("r1")))
    clock.advance(days=3650)
    assert store.get_run("r1") is not None
    assert [e.seq for e in store.list_events("r1")] == [1, 2]
    assert len(store.list_requests("r1")) == 2


def test_an_expired_run_is_not_returned_before_ttl_deletes_it(backend: Backend, clock: FixedClock) -> None:
    # Given a run kept 7 days, read just before and just after its expiry (the items are all still stored)
    store = ItemRunStore(backend.main, chunk_chars=300, retention=RETAINED, clock=clock)
    _full_run(store, clock)
    clock.advance(days=7, seconds=-1)
    assert store.get_run("r1") is not None
    assert [seq for seq, _ in store.iter_requests("r1")] == [1, 2]
    clock.advance(seconds=1)
    # Then nothing of it is returned
    assert store.get_run("r1") is None
    assert store.list_events("r1") == []
    assert store.list_requests("r1") == []
    assert store.load_checkpoint("r1") is None
    assert store.list_marks("r1") == {}
    assert _partition(backend, run_pk("r1")), "TTL has not deleted them: the filter hides them"


def test_recorded_requests_can_expire_before_their_run(backend: Backend, clock: FixedClock) -> None:
    store = ItemRunStore(backend.main, retention=Retention(runs_days=30, requests_days=1), clock=clock)
    _full_run(store, clock)
    clock.advance(days=2)
    assert store.get_run("r1") is not None
    assert [e.seq for e in store.list_events("r1")] == [1, 2]
    assert store.list_requests("r1") == []


def test_requests_never_outlive_their_run() -> None:
    assert Retention(runs_days=7, requests_days=30).effective_requests_days == 7
    assert Retention(runs_days=7).effective_requests_days == 7
    assert Retention(requests_days=3).effective_requests_days == 3
    assert Retention().effective_requests_days == 0


def _chat(clock: FixedClock, chat_id: str = "c1", messages: int = 2) -> Chat:
    now = clock.now()
    return Chat(
        chat_id=chat_id,
        user_id="alice",
        title="t",
        created_at=now,
        updated_at=now,
        messages=[TextMessage(role="user", text=f"m{i}") for i in range(messages)],
    )


def test_every_item_of_a_chat_carries_the_ttl_from_the_chats_creation(backend: Backend, clock: FixedClock) -> None:
    store = ItemChatStore(backend.main, clock, retention=RETAINED)
    created = clock.now()
    store.create_chat(_chat(clock))
    clock.advance(days=1)
    store.append_messages("alice", "c1", [TextMessage(role="user", text="later")], expected_count=2)
    items = {str(i[SK]): i for i in _partition(backend, chat_pk("alice", "c1"))}
    header_expiry = int(created.timestamp()) + 30 * DAY_SECONDS
    assert items["CHAT"][TTL_ATTRIBUTE] == header_expiry
    assert items["MSG#0000000000"][TTL_ATTRIBUTE] == header_expiry
    assert items["MSG#0000000002"][TTL_ATTRIBUTE] == header_expiry + DAY_SECONDS


def test_an_expired_chat_is_neither_listed_nor_read(backend: Backend, clock: FixedClock) -> None:
    store = ItemChatStore(backend.main, clock, retention=RETAINED)
    store.create_chat(_chat(clock, "old"))
    clock.advance(days=20)
    store.create_chat(_chat(clock, "new"))
    clock.advance(days=11)  # "old" is 31 days old, "new" 11
    assert [c.chat_id for c in store.list_chats("alice")] == ["new"]
    assert store.get_chat("alice", "old") is None
    assert store.get_chat("alice", "old", messages=False) is None
    assert list(store.iter_messages("alice", "old")) == []
    assert list(store.iter_messages("alice", "new")) != []
    chat = store.get_chat("alice", "new")
    assert chat is not None and len(chat.messages) == 2


def test_chats_without_retention_keep_no_ttl(backend: Backend, clock: FixedClock) -> None:
    store = ItemChatStore(backend.main, clock)
    store.create_chat(_chat(clock))
    assert all(TTL_ATTRIBUTE not in item for item in _partition(backend, chat_pk("alice", "c1")))
    clock.at += timedelta(days=3650)
    assert store.get_chat("alice", "c1") is not None


def test_the_deployed_function_wires_the_retention_from_its_environment() -> None:
    # Given the run function's settings as template.yaml sets them, over the template's tables in moto
    import boto3
    from moto import mock_aws

    from mneme.composition import build_aws
    from mneme.settings import Settings
    from tests.support.sam_template import create_tables

    env = {"MNEME_TABLE": "main", "MNEME_AUDIT_TABLE": "audit", "AWS_REGION": "us-east-1"}
    env |= {"MNEME_RETENTION_DAYS_RUNS": "7", "MNEME_RETENTION_DAYS_CHATS": "30"}
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client, {"MainTable": "main", "AuditTable": "audit"})
        deps = build_aws(Settings.from_env(env), session=boto3.Session(region_name="us-east-1"))
        # When a run and a chat are stored
        clock = FixedClock()
        deps.runs.create_run(_run(clock))
        deps.chats.create_chat(_chat(clock))
        # Then DynamoDB holds them with their expiry
        items = {i["SK"]["S"]: i for i in client.scan(TableName="main")["Items"]}
    created = int(clock.now().timestamp())
    assert int(items["RUN"][TTL_ATTRIBUTE]["N"]) == created + 7 * DAY_SECONDS
    assert int(items["CHAT"][TTL_ATTRIBUTE]["N"]) == created + 30 * DAY_SECONDS
