"""Conditional writes of configuration items (If-Match / If-None-Match), over DynamoDB (moto), SQLite and the
in-memory fake: the check and the write are one conditional put, so a write landing in between is refused too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.adapters.dynamo.items import Item, ItemTable
from mneme.errors import PreconditionFailed
from mneme.models import Agent, Skill, Task, UserSettings
from mneme.models.common import GLOBAL_OWNER
from mneme.models.precondition import Precondition, etag_of
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


def _agent(label: str = "Researcher", owner: str = "alice") -> Agent:
    return Agent(agent_id="researcher", owner=owner, label=label, model={"provider": "offline", "model_id": "offline"})


def _if_match(*tags: str) -> Precondition:
    return Precondition(if_match=tags)


class _WriterInBetween:
    """An ItemTable on which another request writes ``other`` right after the store's read of ``key``."""

    def __init__(self, table: ItemTable, other: Item) -> None:
        self._table, self._other, self._done = table, other, False

    def get(self, pk: str, sk: str) -> Item | None:
        found = self._table.get(pk, sk)
        if not self._done and (pk, sk) == (self._other["PK"], self._other["SK"]):
            self._done = True
            self._table.put(self._other)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)


def test_a_write_with_the_current_tag_replaces_the_item(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent())
    store.put_agent(_agent("Renamed"), precondition=_if_match(etag_of(_agent())))
    assert store.get_agent("alice", "researcher") == _agent("Renamed")


def test_a_write_with_a_stale_tag_is_refused_and_keeps_the_other_write(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent())
    seen = etag_of(_agent())
    store.put_agent(_agent("Theirs"))  # another request, after the read
    with pytest.raises(PreconditionFailed) as refused:
        store.put_agent(_agent("Mine"), precondition=_if_match(seen))
    assert refused.value.details["etag"] == etag_of(_agent("Theirs"))
    assert store.get_agent("alice", "researcher") == _agent("Theirs")


def test_a_write_landing_between_the_check_and_the_put_makes_it_fail(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent())
    stored = backend.main.get("OWNER#alice", "AGENT#researcher")
    assert stored is not None
    theirs = {**stored, "data": _agent("Theirs").model_dump_json()}
    racing = ItemConfigStore(_WriterInBetween(backend.main, theirs))
    with pytest.raises(PreconditionFailed, match="changed by another request"):
        racing.put_agent(_agent("Mine"), precondition=_if_match(etag_of(_agent())))
    assert store.get_agent("alice", "researcher") == _agent("Theirs")


def test_create_only_refuses_an_existing_item(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent(), precondition=Precondition(if_none_match=("*",)))
    with pytest.raises(PreconditionFailed, match="exists"):
        store.put_agent(_agent("Second"), precondition=Precondition(if_none_match=("*",)))
    assert store.get_agent("alice", "researcher") == _agent()


def test_an_item_created_in_between_makes_a_create_only_write_fail(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    theirs = {"PK": "OWNER#alice", "SK": "AGENT#researcher", "data": _agent("Theirs").model_dump_json()}
    racing = ItemConfigStore(_WriterInBetween(backend.main, theirs))
    with pytest.raises(PreconditionFailed):
        racing.put_agent(_agent("Mine"), precondition=Precondition(if_none_match=("*",)))
    assert store.get_agent("alice", "researcher") == _agent("Theirs")


def test_a_users_first_copy_of_a_global_skill_is_checked_against_the_global_one(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    shared = Skill(name="tone", owner=GLOBAL_OWNER, description="d", content="global")
    store.put_skill(shared)
    mine = Skill(name="tone", owner="alice", description="d", content="mine")
    with pytest.raises(PreconditionFailed):
        store.put_skill(mine, precondition=Precondition(if_none_match=("*",)))  # a GET showed the global one
    store.put_skill(mine, precondition=_if_match(etag_of(shared)))
    assert store.get_skills("alice", ["tone"]) == [mine]


def test_settings_never_saved_are_checked_against_the_defaults_a_get_answers(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    with pytest.raises(PreconditionFailed):
        store.put_settings("alice", UserSettings(name="A"), precondition=_if_match('"0000"'))
    store.put_settings("alice", UserSettings(name="A"), precondition=_if_match(etag_of(UserSettings())))
    assert store.get_settings("alice") == UserSettings(name="A")


def _task(task_id: str) -> Task:
    return Task(task_id=task_id, agent_id="researcher", owner="alice", name=task_id)


def test_a_delete_with_a_change_landing_in_between_deletes_nothing(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent())
    store.put_task(_task("weekly"))
    stored = backend.main.get("OWNER#alice", "AGENT#researcher")
    assert stored is not None
    racing = ItemConfigStore(_WriterInBetween(backend.main, {**stored, "data": _agent("Theirs").model_dump_json()}))
    with pytest.raises(PreconditionFailed):
        racing.delete_agent("alice", "researcher", precondition=_if_match(etag_of(_agent())))
    assert store.get_agent("alice", "researcher") == _agent("Theirs")
    assert store.list_tasks("alice", "researcher") == [_task("weekly")]


def test_a_checked_delete_takes_every_task_past_one_transactions_limit(backend: Backend) -> None:
    store = ItemConfigStore(backend.main)
    store.put_agent(_agent())
    for i in range(120):
        store.put_task(_task(f"t{i:03d}"))
    assert store.delete_agent("alice", "researcher", precondition=_if_match(etag_of(_agent())))
    assert store.get_agent("alice", "researcher") is None
    assert store.list_tasks("alice", "researcher") == []
