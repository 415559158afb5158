"""Explained writes (issue 35.2): an extracted or consolidated entry says which rule made it and from which
turn; an auto-write that was not made says why in the run's events."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.models.memory import MemoryDocument
from tests.fakes.scripted import failing_model
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.test_memory_learning import FACTS, drain, live
from tests.support.deps import World, make_world

LONG = "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on."


def _skipped(world: World, run_id: str) -> list[dict[str, Any]]:
    return [e.data for e in world.deps.runs.list_events(run_id) if e.type == "memory_write_skipped"]


def test_an_extracted_fact_names_its_strategy_and_its_source_turn() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    result = run(world, "I live in Porto. The weather was nice today and we went for a long walk by the river.")
    drain(world)
    [fact] = [d for d in live(world) if d.authority == "extracted"]
    made_by = fact.metadata["made_by"]
    assert (made_by["rule"], made_by["strategy"]) == ("extraction", "fact")
    assert made_by["source_turn"] == {"run_id": result.run.run_id, "chat_id": result.run.chat_id}
    assert set(made_by["from"]) == {d.id for d in live(world) if d.authority == "auto_write"}


def test_a_raw_entry_carries_no_extraction_mark() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True})
    run(world, LONG)
    drain(world)
    assert all("made_by" not in d.metadata for d in live(world))


def _superseded(first: str, then: str) -> tuple[MemoryDocument, MemoryDocument]:
    """The extracted fact of ``first`` and the one of ``then``, said 30 days later, that superseded it."""
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    facts: list[MemoryDocument] = []
    for said in (first, then):
        run(world, said)
        drain(world)
        [fact] = [d for d in live(world) if d.authority == "extracted"]
        facts.append(fact)
        world.clock.advance(days=30)
    return facts[0], facts[1]


def test_a_superseding_fact_names_the_consolidation_and_what_it_superseded() -> None:
    old, new = _superseded("I live in Porto.", "I live in Lisbon.")
    mark = {"rule": "consolidation", "strategy": "supersedes", "entries": [old.id], "turns": old.derived_from}
    assert new.metadata["consolidated"] == mark
    assert "consolidated" not in old.metadata


def test_a_superseding_fact_names_the_raw_turns_that_stated_the_old_value() -> None:
    old, new = _superseded(
        "I live in Porto. The weather was nice today and we went for a long walk by the river.",
        "I live in Lisbon. The weather was grey today and we stayed in to read all afternoon.",
    )
    assert old.derived_from and new.metadata["consolidated"]["turns"] == old.derived_from
    assert not set(new.derived_from) & set(old.derived_from)


def test_a_short_input_says_it_was_not_stored_for_its_length() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True})
    result = run(world, "short question")
    assert _skipped(world, result.run.run_id) == [{"source": "run_input", "reason": "under_80_characters"}]


def test_a_long_input_has_no_skip_event() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True})
    result = run(world, LONG)
    assert _skipped(world, result.run.run_id) == []


def test_a_failed_run_says_its_failure_kept_memory_unwritten() -> None:
    world = make_world(failing_model())
    add_agent(world, memory_policy={"allow_write": True})
    result = run(world, LONG)
    assert _skipped(world, result.run.run_id) == [{"source": "run", "reason": "run_failed"}]


def test_a_policy_without_auto_write_says_so() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": False})
    result = run(world, LONG)
    assert _skipped(world, result.run.run_id) == [{"source": "run", "reason": "policy_allow_write_false"}]


def test_a_global_write_namespace_for_a_non_admin_names_the_refusal() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True, "write_namespace": "vector.global.notes"})
    result = run(world, LONG)
    assert _skipped(world, result.run.run_id) == [{"source": "run", "reason": "policy_refused:admin_required"}]
