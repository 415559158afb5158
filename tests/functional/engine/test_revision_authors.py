"""Who made each revision (issue 35.3) through runs and the memory writer: an auto-write by its agent run, an
extracted fact by the extraction, a superseded fact by the consolidation."""

from __future__ import annotations

from typing import Any

from mneme.adapters.aws.sqs_queue import job_body
from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.test_memory_learning import FACTS
from tests.support.deps import World, make_world


def _drain(world: World) -> None:
    records = [
        {"messageId": f"m{i}", "body": job_body(j), "eventSource": "aws:sqs"} for i, j in enumerate(world.queue.jobs)
    ]
    world.queue.jobs.clear()
    assert write_batch(WriterPorts.of(world.deps), records) == {"batchItemFailures": []}


def _revisions(world: World) -> list[Any]:
    assert world.deps.revisions is not None
    return world.deps.revisions.owned("alice")


def test_auto_written_entries_are_created_by_their_agent_run() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True})
    result = run(world, "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on.")
    _drain(world)
    assert {(r.change, r.by, r.actor) for r in _revisions(world)} == {("create", "agent_run", result.run.run_id)}


def test_an_extracted_fact_is_created_by_the_extraction_and_its_old_value_superseded_by_consolidation() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    run(world, "I live in Porto.")
    _drain(world)
    world.clock.advance(days=30)
    later = run(world, "I live in Lisbon.")
    _drain(world)
    facts = [r for r in _revisions(world) if r.document.authority == "extracted"]
    by_change = {(r.change, r.by) for r in facts}
    assert ("create", "extraction") in by_change and ("supersede", "consolidation") in by_change
    (supersede,) = [r for r in facts if r.change == "supersede"]
    assert supersede.actor == later.run.run_id and supersede.document.content.endswith("Porto.")
