"""ConfigStore on the three ItemTable backends (DynamoDB under moto, SQLite, memory)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ConfigDict, create_model

from mneme.adapters.dynamo.config_keys import agent_key
from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.errors import InvalidInput, NotFound
from mneme.models import Agent, Skill, Task, UserSettings
from mneme.models.common import GLOBAL_OWNER
from mneme.models.policy import MemoryPolicy
from tests.functional.adapters.item_backends import BACKENDS, Backend, make_backend


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path)


@pytest.fixture
def store(backend: Backend) -> ItemConfigStore:
    return ItemConfigStore(backend.main)


def _agent(owner: str, agent_id: str = "helper", **fields: Any) -> Agent:
    return Agent(agent_id=agent_id, owner=owner, label=fields.pop("label", agent_id.title()), **fields)


def _skill(owner: str, name: str, content: str = "do it") -> Skill:
    return Skill(name=name, owner=owner, description=f"{name} skill", content=content)


def test_settings_round_trip(store: ItemConfigStore) -> None:
    assert store.get_settings("alice") is None
    settings = UserSettings(name="Alice", email="alice@example.com", language="de", timezone="Europe/Berlin")
    store.put_settings("alice", settings)
    assert store.get_settings("alice") == settings
    assert store.get_settings("bob") is None


def test_agent_crud(store: ItemConfigStore) -> None:
    agent = _agent("alice", skills=["writing"], delegates=["other"], memory_policy={"top_k": 3})
    store.put_agent(agent)
    assert store.get_agent("alice", "helper") == agent
    store.put_agent(agent.model_copy(update={"description": "changed"}))
    assert store.get_agent("alice", "helper").description == "changed"  # type: ignore[union-attr]
    store.put_agent(_agent("alice", "second"))
    assert [a.agent_id for a in store.list_agents("alice")] == ["helper", "second"]
    assert store.delete_agent("alice", "helper") is True
    assert store.delete_agent("alice", "helper") is False
    assert store.get_agent("alice", "helper") is None


def test_agent_without_owner_is_refused(store: ItemConfigStore) -> None:
    with pytest.raises(InvalidInput):
        store.put_agent(Agent(agent_id="x", label="X"))


def test_global_agents_are_shared_own_agents_private(store: ItemConfigStore) -> None:
    store.put_agent(_agent(GLOBAL_OWNER, "shared"))
    store.put_agent(_agent("alice", "mine"))
    assert [a.agent_id for a in store.list_agents("alice")] == ["mine"]
    assert store.list_agents("bob") == []
    assert [a.agent_id for a in store.list_agents(GLOBAL_OWNER)] == ["shared"]
    assert store.get_agent("bob", "mine") is None
    for user in ("alice", "bob"):
        assert store.load_run_config(user, "shared", None).agent.agent_id == "shared"
    with pytest.raises(NotFound) as err:
        store.load_run_config("bob", "mine", None)
    assert err.value.field == "agent_id"


def test_own_agent_wins_over_global(store: ItemConfigStore) -> None:
    store.put_agent(_agent(GLOBAL_OWNER, "helper", description="global"))
    store.put_agent(_agent("alice", "helper", description="own"))
    assert store.load_run_config("alice", "helper", None).agent.description == "own"
    assert store.load_run_config("bob", "helper", None).agent.description == "global"


def test_find_agent_is_one_read_and_the_own_agent_wins(store: ItemConfigStore, backend: Backend) -> None:
    # Given a global helper and alice's own helper
    store.put_agent(_agent(GLOBAL_OWNER, "helper", description="global"))
    store.put_agent(_agent("alice", "helper", description="own"))
    backend.calls.clear()
    # When each user looks it up
    found = {user: store.find_agent(user, "helper") for user in ("alice", "bob")}
    # Then alice gets her own, bob the global one, another user's never; one BatchGetItem each
    assert {u: a.description if a else None for u, a in found.items()} == {"alice": "own", "bob": "global"}
    assert store.find_agent("bob", "mine") is None
    if backend.name == "dynamo":
        assert backend.calls == ["BatchGetItem"] * 3


def test_find_agent_reads_a_global_agent_of_the_legacy_partition(store: ItemConfigStore) -> None:
    from mneme.adapters.dynamo.config_keys import LEGACY_GLOBAL_PK

    legacy = _agent(GLOBAL_OWNER, "old", description="legacy")
    store._table.put({"PK": LEGACY_GLOBAL_PK, "SK": "AGENT#old", "data": legacy.model_dump_json()})
    found = store.find_agent("alice", "old")
    assert found is not None and found.description == "legacy"


def test_task_crud_and_cascade(store: ItemConfigStore) -> None:
    store.put_agent(_agent("alice"))
    task = Task(task_id="daily", agent_id="helper", owner="alice", name="Daily", context_prompt="Hi ${user_name}")
    store.put_task(task)
    store.put_task(task.model_copy(update={"task_id": "weekly"}))
    store.put_task(Task(task_id="daily", agent_id="helper2", owner="alice"))
    assert store.get_task("alice", "helper", "daily") == task
    assert [t.task_id for t in store.list_tasks("alice", "helper")] == ["daily", "weekly"]
    assert store.delete_task("alice", "helper", "weekly") is True
    assert store.delete_task("alice", "helper", "weekly") is False
    store.delete_agent("alice", "helper")
    assert store.list_tasks("alice", "helper") == []
    assert [t.agent_id for t in store.list_tasks("alice", "helper2")] == ["helper2"]


def test_skill_crud(store: ItemConfigStore) -> None:
    store.put_skill(_skill("alice", "writing"))
    store.put_skill(_skill("alice", "coding"))
    store.put_skill(_skill(GLOBAL_OWNER, "search"))
    assert [s.name for s in store.list_skills("alice")] == ["coding", "writing"]
    assert [s.name for s in store.get_skills("alice", ["writing", "nope", "coding", "writing"])] == [
        "writing",
        "coding",
    ]
    assert store.get_skills("alice", []) == []
    assert store.delete_skill("alice", "coding") is True
    assert [s.name for s in store.list_skills("alice")] == ["writing"]
    assert [s.name for s in store.list_skills(GLOBAL_OWNER)] == ["search"]


def test_load_run_config(store: ItemConfigStore, backend: Backend) -> None:
    store.put_settings("alice", UserSettings(name="Alice"))
    store.put_agent(_agent("alice", skills=["writing", "search", "missing"], default_task_id="daily"))
    store.put_task(Task(task_id="daily", agent_id="helper", owner="alice", context_prompt="daily"))
    store.put_task(Task(task_id="other", agent_id="helper", owner="alice", context_prompt="other"))
    store.put_skill(_skill("alice", "writing", "own"))
    store.put_skill(_skill(GLOBAL_OWNER, "writing", "global"))
    store.put_skill(_skill(GLOBAL_OWNER, "search"))
    backend.calls.clear()

    config = store.load_run_config("alice", "helper", None)
    assert config.settings.name == "Alice"
    assert config.task is not None and config.task.task_id == "daily"
    assert [(s.name, s.content) for s in config.skills.values()] == [("writing", "own"), ("search", "do it")]
    assert store.load_run_config("alice", "helper", "other").task.context_prompt == "other"  # type: ignore[union-attr]
    with pytest.raises(NotFound) as err:
        store.load_run_config("alice", "helper", "nope")
    assert err.value.field == "task_id"
    if backend.name == "dynamo":  # batch reads only: the agent's skills and default task need a second
        assert backend.calls == ["BatchGetItem"] * 5


def test_load_run_config_is_one_batch_get(store: ItemConfigStore, backend: Backend) -> None:
    store.put_agent(_agent("alice"))
    store.put_task(Task(task_id="daily", agent_id="helper", owner="alice"))
    backend.calls.clear()
    config = store.load_run_config("alice", "helper", "daily")
    assert config.settings == UserSettings()
    assert config.task is not None and config.skills == {}
    if backend.name == "dynamo":
        assert backend.calls == ["BatchGetItem"]


def test_without_a_default_task_the_only_task_is_looked_up(store: ItemConfigStore, backend: Backend) -> None:
    store.put_agent(_agent("alice"))
    store.put_task(Task(task_id="only", agent_id="helper", owner="alice"))
    backend.calls.clear()
    config = store.load_run_config("alice", "helper", None)
    assert config.task is not None and config.task.task_id == "only"
    if backend.name == "dynamo":
        assert backend.calls == ["BatchGetItem", "Query"]


@pytest.mark.parametrize("default_task_id", [None, "only"])
def test_told_not_to_it_looks_up_no_task(store: ItemConfigStore, backend: Backend, default_task_id: str | None) -> None:
    # Given an agent whose only task (or its named default task) would be used by a run without a task
    store.put_agent(_agent("alice", default_task_id=default_task_id))
    store.put_task(Task(task_id="only", agent_id="helper", owner="alice"))
    backend.calls.clear()
    # When the config of a run that started without a task is loaded again
    config = store.load_run_config("alice", "helper", None, default_task=False)
    # Then it has no task, and only the first batch was read
    assert config.task is None and config.agent.agent_id == "helper"
    if backend.name == "dynamo":
        assert backend.calls == ["BatchGetItem"]


def test_global_agent_uses_global_tasks_and_skills(store: ItemConfigStore) -> None:
    store.put_agent(_agent(GLOBAL_OWNER, skills=["writing"]))
    store.put_task(Task(task_id="t", agent_id="helper", owner=GLOBAL_OWNER, context_prompt="global"))
    store.put_task(Task(task_id="t", agent_id="helper", owner="bob", context_prompt="bob's"))
    store.put_skill(_skill(GLOBAL_OWNER, "writing", "global"))
    store.put_skill(_skill("bob", "writing", "bob's"))
    config = store.load_run_config("bob", "helper", "t")
    assert config.task is not None and config.task.context_prompt == "global"
    assert [s.content for s in config.skills.values()] == ["global"]


def test_a_stored_agent_names_only_its_set_fields_so_an_older_release_reads_it(
    store: ItemConfigStore, backend: Backend
) -> None:
    # Given an agent that leaves the policy field added last (standing_namespaces) and most others unset
    store.put_agent(_agent("alice", memory_policy={"top_k": 3}))
    item = backend.main.get(*agent_key("alice", "helper"))
    assert item is not None
    stored = json.loads(item["data"])
    # Then its item has no null field, and a policy model without that field (extra forbidden) reads it
    assert stored["memory_policy"] == {"top_k": 3} and None not in stored.values()
    fields = {name: (f.annotation, f) for name, f in MemoryPolicy.model_fields.items() if name != "standing_namespaces"}
    older: Any = create_model("OlderMemoryPolicy", __config__=ConfigDict(extra="forbid"), **fields)  # type: ignore[call-overload]
    assert older.model_validate(stored["memory_policy"]).model_dump()["top_k"] == 3
    # And this release reads back the same agent
    assert store.get_agent("alice", "helper") == _agent("alice", memory_policy={"top_k": 3})


def test_an_agent_stored_by_a_later_release_with_fields_this_one_does_not_know_is_read(
    store: ItemConfigStore, backend: Backend
) -> None:
    # Given alice's agent as a later release stores it: a top-level and a policy field unknown here
    store.put_agent(_agent("alice", memory_policy={"top_k": 3}))
    key = agent_key("alice", "helper")
    item = backend.main.get(*key)
    assert item is not None
    data = json.loads(item["data"])
    data["later_field"] = {"on": True}
    data["memory_policy"]["later_policy_field"] = ["vector.user.${user_id}.later"]
    backend.main.put({**item, "data": json.dumps(data)})
    # When this release reads it, the unknown fields are left out and the rest is the agent
    assert store.get_agent("alice", "helper") == _agent("alice", memory_policy={"top_k": 3})
    assert [a.agent_id for a in store.list_agents("alice")] == ["helper"]


def test_the_api_still_refuses_an_unknown_policy_field() -> None:
    with pytest.raises(ValueError, match="later_policy_field"):
        MemoryPolicy.model_validate({"later_policy_field": []})
