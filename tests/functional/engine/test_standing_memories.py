"""Standing memories (``memory_policy.standing_namespaces``): entries shown to the run's model whatever the
question, first in the memory context, through the security filter, audited before they are used."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.engine.memory_io.standing import MAX_CHARS, MAX_ENTRIES, Standing, as_hit, why_not_shown
from mneme.errors import AuditWriteFailed
from tests.fakes.clock import FixedClock
from tests.functional.engine.conftest import add_agent, add_task, run
from tests.functional.engine.memory_support import injected, remember, remember_at
from tests.support.deps import World, make_world

PREFS = "vector.user.alice.preferences"
PREFS_TEMPLATE = "vector.user.${user_id}.preferences"
OWN = "vector.user.alice.memory"
BULLETS = "I prefer answers in bullet points."
ALLERGY = "I am allergic to peanuts."
QUESTION = "Suggest a dinner recipe for tonight."
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.fixture
def world() -> World:
    return make_world(OfflineModel())


def _events(world: World, run_id: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in world.deps.runs.list_events(run_id) if e.type == kind]


def _warnings(world: World, run_id: str) -> list[str]:
    return [str(data["message"]) for data in _events(world, run_id, "warning")]


#: the search reads the preferences too, with a floor its unrelated entry is under: only standing shows it
SEARCHED = {"read_namespaces": [PREFS_TEMPLATE], "min_score": 0.5}


def test_a_standing_entry_is_shown_for_a_question_about_something_else(world: World) -> None:
    add_agent(world, memory_policy={**SEARCHED, "standing_namespaces": [PREFS_TEMPLATE]})
    remember_at(world, PREFS, BULLETS, query=QUESTION, similarity=0.05)
    result = run(world, QUESTION)
    assert BULLETS in injected(world, result.run)


def test_without_standing_namespaces_the_same_entry_is_not_shown(world: World) -> None:
    add_agent(world, memory_policy=SEARCHED)
    remember_at(world, PREFS, BULLETS, query=QUESTION, similarity=0.05)
    result = run(world, QUESTION)
    assert injected(world, result.run) == ""


def test_standing_entries_come_first_then_the_questions_hits_each_once(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS_TEMPLATE], "read_namespaces": [OWN, PREFS]})
    remember_at(world, PREFS, ALLERGY, query=QUESTION, similarity=0.95)  # a hit of the search as well
    remember_at(world, OWN, "Dinner guests on Friday like spicy food.", query=QUESTION, similarity=0.9)
    block = injected(world, run(world, QUESTION).run)
    assert block.count(ALLERGY) == 1
    assert block.index(ALLERGY) < block.index("Dinner guests")


def test_the_newest_entries_within_the_budget_are_shown_and_the_rest_counted(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    for n in range(MAX_ENTRIES + 2):  # the first written is the oldest
        remember_at(
            world,
            PREFS,
            f"Standing preference number {n}.",
            query=QUESTION,
            similarity=0.0,
            age=timedelta(minutes=60 - n),
        )
    result = run(world, QUESTION)
    block = injected(world, result.run)
    assert [n for n in range(MAX_ENTRIES + 2) if f"number {n}." in block] == list(range(2, MAX_ENTRIES + 2))
    (event,) = _events(world, result.run.run_id, "memory_hits")
    assert (event["standing"]["count"], event["standing"]["left_out"]) == (MAX_ENTRIES, 2)


def test_an_entry_over_the_budget_is_left_out_and_an_older_short_one_still_shown(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    remember_at(world, PREFS, BULLETS, query=QUESTION, similarity=0.0, age=timedelta(hours=1))
    remember(world, PREFS, "x" * (MAX_CHARS + 1))
    block = injected(world, run(world, QUESTION).run)
    assert BULLETS in block and "x" * 100 not in block


def test_deleted_superseded_and_expired_entries_are_not_standing(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    deleted = remember(world, PREFS, "Deleted preference.")
    superseded = remember(world, PREFS, "Superseded preference.")
    expired = remember(world, PREFS, "Expired preference.")
    remember(world, PREFS, BULLETS)
    world.memory.soft_delete(deleted, PREFS, now=world.clock.now())
    world.memory.set_status(superseded, PREFS, superseded_by=None, status="superseded", now=world.clock.now())
    past = world.clock.now() - timedelta(seconds=1)
    doc = world.memory.documents[expired]
    world.memory.documents[expired] = doc.model_copy(update={"expires_at": past})
    block = injected(world, run(world, QUESTION).run)
    assert BULLETS in block
    assert not any(word in block for word in ("Deleted", "Superseded", "Expired"))


def test_with_auto_read_disabled_no_standing_entry_is_read(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS], "auto_read_enabled": False})
    remember(world, PREFS, BULLETS)
    result = run(world, QUESTION)
    assert injected(world, result.run) == ""
    assert world.deps.audit.query("alice", action="read").records == []


def test_a_run_with_memory_disabled_shows_no_standing_entry(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    remember(world, PREFS, BULLETS)
    assert injected(world, run(world, QUESTION, memory={"enabled": False}).run) == ""


def test_another_users_standing_namespace_is_denied_audited_and_never_shown(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": ["vector.user.bob.preferences", PREFS]})
    remember(world, "vector.user.bob.preferences", "Bob's secret: the safe code is 4471.", owner="bob")
    remember(world, PREFS, BULLETS)
    block = injected(world, run(world, QUESTION).run)
    assert "4471" not in block and BULLETS in block
    denied = world.deps.audit.query("alice", action="denied").records
    assert [(r.namespace, r.detail.get("reason")) for r in denied] == [
        ("vector.user.bob.preferences", "security_filter")
    ]


def test_each_standing_namespace_read_is_audited_with_what_it_showed(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS], "read_namespaces": [OWN]})
    remember(world, PREFS, BULLETS)
    run(world, QUESTION)
    reads = world.deps.audit.query("alice", action="read").records
    standing = [(r.namespace, r.detail.get("hits")) for r in reads if r.detail.get("standing")]
    assert standing == [(PREFS, 1)]
    assert [r.namespace for r in reads if not r.detail.get("standing")] == [OWN]


def test_a_tasks_standing_namespaces_replace_the_agents(world: World) -> None:
    agent = add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    add_task(world, agent, memory_policy={"standing_namespaces": ["vector.user.alice.style"]})
    remember(world, PREFS, BULLETS)
    remember(world, "vector.user.alice.style", "Write in British English.")
    block = injected(world, run(world, QUESTION, task_id="default").run)
    assert "British English" in block and BULLETS not in block


def test_an_audit_failure_keeps_the_standing_entries_out_and_warns(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    remember(world, PREFS, BULLETS)
    world.deps.audit = _FailingReads(world.deps.audit)
    result = run(world, QUESTION)
    assert result.run.status.value == "succeeded"
    assert BULLETS not in injected(world, result.run)
    assert any("standing memories' read could not be audited" in w for w in _warnings(world, result.run.run_id))


def test_a_search_whose_read_cannot_be_audited_keeps_the_audited_standing_entries(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS], "read_namespaces": [OWN]})
    remember(world, PREFS, BULLETS)
    remember(world, OWN, QUESTION)  # the search's hit: its read is not audited, so it is not shown
    world.deps.audit = _FailingReads(world.deps.audit, standing=False)
    result = run(world, QUESTION)
    block = injected(world, result.run)
    assert BULLETS in block and QUESTION not in block.split("\n", 1)[1]
    assert any("could not be audited, so its hits" in w for w in _warnings(world, result.run.run_id))


def test_the_event_counts_the_standing_entries_shown_when_the_search_failed(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS], "read_namespaces": [OWN]})
    shown = remember(world, PREFS, BULLETS)
    world.deps.audit = _FailingReads(world.deps.audit, standing=False)
    result = run(world, QUESTION)
    (event,) = _events(world, result.run.run_id, "memory_hits")
    assert (event["count"], event["standing"]["ids"]) == (0, [shown])


def test_a_store_failure_leaves_the_run_going_without_them(world: World) -> None:
    add_agent(world, memory_policy={"standing_namespaces": [PREFS]})
    remember(world, PREFS, BULLETS)
    world.memory.unavailable = True
    result = run(world, QUESTION)
    assert result.run.status.value == "succeeded"
    assert any("standing memories are not shown" in w for w in _warnings(world, result.run.run_id))


class _FailingReads:
    """The audit log, failing every append of a read record (``standing``: of the standing reads, else of the
    others)."""

    def __init__(self, inner: Any, *, standing: bool = True) -> None:
        self.inner = inner
        self.standing = standing

    def append(self, records: Any) -> None:
        if any(r.action == "read" and bool(r.detail.get("standing")) is self.standing for r in records):
            raise AuditWriteFailed("audit table unavailable")
        self.inner.append(records)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize(("policy", "reads"), [({}, 0), ({"standing_namespaces": [PREFS]}, 1)])
def test_a_run_reads_each_standing_namespace_once_and_nothing_without_them(
    world: World, monkeypatch: pytest.MonkeyPatch, policy: dict[str, Any], reads: int
) -> None:
    add_agent(world, memory_policy=policy)
    remember(world, PREFS, BULLETS)
    calls: list[str] = []
    listing = world.memory.list_documents

    def counted(namespace: str, **options: Any) -> Any:
        calls.append(namespace)
        return listing(namespace, **options)

    monkeypatch.setattr(world.memory, "list_documents", counted)
    run(world, QUESTION)
    assert len(calls) == reads


def test_a_preference_the_agent_writes_into_its_standing_namespace_is_shown_in_the_next_run(world: World) -> None:
    policy = {"standing_namespaces": [PREFS_TEMPLATE], "allow_tool_write": True, "allowed_write_namespaces": [PREFS]}
    add_agent(world, tools=["memory-write"], memory_policy=policy)
    first = run(world, f"/write {PREFS} :: I prefer tea to coffee.")
    assert first.run.status.value == "succeeded", first.run.error
    assert "I prefer tea to coffee." in injected(world, run(world, QUESTION).run)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"deleted": True}, "deleted"),
        ({"superseded": True}, "superseded"),
        ({"expires_at": NOW - timedelta(seconds=1)}, "expired"),
        ({"parent_id": "first", "chunk_index": 1, "chunk_count": 2}, "chunk"),
        ({}, "budget"),
    ],
)
def test_why_an_entry_of_a_standing_namespace_is_not_shown(change: dict[str, Any], reason: str) -> None:
    doc = new_document("d1", PREFS, "alice", BULLETS, clock=FixedClock(NOW)).model_copy(update=change)
    assert why_not_shown(doc, Standing(read=(PREFS,)), now=NOW, hidden=frozenset()) == reason


def test_an_entry_shown_or_of_another_namespace_needs_no_why() -> None:
    doc = new_document("d1", PREFS, "alice", BULLETS, clock=FixedClock(NOW))
    shown = Standing(hits=(as_hit(doc),), read=(PREFS,))
    assert why_not_shown(doc, shown, now=NOW, hidden=frozenset()) is None
    assert why_not_shown(doc, Standing(read=(OWN,)), now=NOW, hidden=frozenset()) is None
