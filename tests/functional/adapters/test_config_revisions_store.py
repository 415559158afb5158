"""Revisions of configuration items over DynamoDB (moto), SQLite and the in-memory fake: written in the save's or
delete's own transaction, listed newest first a page at a time."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mneme.adapters.dynamo.config_revisions import ItemConfigRevisions
from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.errors import PreconditionFailed
from mneme.models import Agent, Skill, Task
from mneme.models.config_revision import ConfigRef
from mneme.models.precondition import Precondition, etag_of
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
REF = ConfigRef("agent", "researcher")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


def _agent(label: str) -> Agent:
    model = {"provider": "offline", "model_id": "offline"}
    return Agent(agent_id="researcher", owner="alice", label=label, model=model)


def _label(item: Agent | Task | Skill) -> str:
    assert isinstance(item, Agent)
    return item.label


def test_saves_and_a_delete_are_listed_newest_first_a_page_at_a_time(backend: Backend) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    for minute, label in enumerate(("One", "Two", "Three")):
        store.put_agent(_agent(label), revision_at=T0 + timedelta(minutes=minute))
    assert store.delete_agent("alice", "researcher", revision_at=T0 + timedelta(minutes=3))
    first = history.history("alice", REF, limit=3, cursor=None)
    rest = history.history("alice", REF, limit=3, cursor=first.cursor)
    revisions = first.revisions + rest.revisions
    assert [(r.change, _label(r.item), r.at) for r in revisions] == [
        ("deleted", "Three", T0 + timedelta(minutes=3)),
        ("saved", "Three", T0 + timedelta(minutes=2)),
        ("saved", "Two", T0 + timedelta(minutes=1)),
        ("saved", "One", T0),
    ]
    assert revisions[1].etag == etag_of(_agent("Three"))


def test_a_save_refused_by_its_precondition_writes_no_revision(backend: Backend) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    store.put_agent(_agent("One"), revision_at=T0)
    with pytest.raises(PreconditionFailed):
        store.put_agent(_agent("Two"), precondition=Precondition(if_match=('"0"',)), revision_at=T0)
    assert [_label(r.item) for r in history.history("alice", REF, limit=10, cursor=None).revisions] == ["One"]


def test_writes_without_a_revision_moment_keep_none(backend: Backend) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    store.put_agent(_agent("Seeded"))
    assert history.history("alice", REF, limit=10, cursor=None).revisions == []


def test_an_erasure_of_the_owner_takes_the_revisions(backend: Backend) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    store.put_agent(_agent("One"), revision_at=T0)
    store.erase_owned("alice")
    assert history.history("alice", REF, limit=10, cursor=None).revisions == []


def _task(task_id: str) -> Task:
    return Task(task_id=task_id, agent_id="researcher", owner="alice", name=f"Task {task_id}")


@pytest.mark.parametrize("count", [2, 60])  # 60 tasks: 122 writes, past one transaction's 100
def test_an_agent_deleted_with_its_tasks_keeps_a_revision_of_each_and_names_them(backend: Backend, count: int) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    store.put_agent(_agent("One"), revision_at=T0)
    ids = [f"t{n:02d}" for n in range(count)]
    for task_id in ids:
        store.put_task(_task(task_id))
    assert store.delete_agent("alice", "researcher", revision_at=T0 + timedelta(minutes=1))
    (deleted,) = history.history("alice", REF, limit=1, cursor=None).revisions
    assert deleted.change == "deleted" and sorted(deleted.tasks or []) == ids
    for task_id in ids:
        (kept,) = history.history("alice", ConfigRef("task", task_id, "researcher"), limit=5, cursor=None).revisions
        assert (kept.change, kept.item) == ("deleted", _task(task_id))
    assert store.list_tasks("alice", "researcher") == []


def test_an_agent_deleted_without_tasks_names_none_and_a_save_names_no_tasks(backend: Backend) -> None:
    store, history = ItemConfigStore(backend.main), ItemConfigRevisions(backend.main)
    store.put_agent(_agent("One"), revision_at=T0)
    assert store.delete_agent("alice", "researcher", revision_at=T0 + timedelta(minutes=1))
    deleted, saved = history.history("alice", REF, limit=2, cursor=None).revisions
    assert (deleted.change, deleted.tasks, saved.tasks) == ("deleted", None, None)
