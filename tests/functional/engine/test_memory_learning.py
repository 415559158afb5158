"""Memory that learns, through runs and the memory writer (issues 13.2, 13.3, 11.3): extraction, supersession,
near-duplicate refresh, a failed extraction, long content in chunks under Titan's input limit."""

from __future__ import annotations

from typing import Any

from mneme.adapters.aws.sqs_queue import job_body
from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.errors import ModelUnavailable
from mneme.memory.embedding_limits import TITAN_V2
from mneme.ports.models import ModelResponse
from tests.fakes.embedder import HashingEmbedder
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world

FACTS = {"allow_write": True, "extraction": ["raw", "facts", "preferences"]}
NS = "vector.agent.alice.memory"


def drain(world: World, models: Any = None) -> dict[str, Any]:
    """Hand every queued job to the memory writer, as SQS would; the writer's answer."""
    records = [
        {"messageId": f"m{i}", "body": job_body(job), "eventSource": "aws:sqs"}
        for i, job in enumerate(world.queue.jobs)
    ]
    world.queue.jobs.clear()
    ports = WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock, models or world.deps.models)
    return write_batch(ports, records)


def live(world: World) -> list[Any]:
    return [d for d in world.memory.documents.values() if d.status == "active"]


def test_facts_extraction_stores_a_fact_derived_from_the_raw_entries() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    run(world, "I live in Porto. The weather was nice today and we went for a long walk by the river.")
    assert drain(world) == {"batchItemFailures": []}
    [fact] = [d for d in live(world) if d.authority == "extracted"]
    assert fact.content == "The user says: I live in Porto." and fact.memory_class == "semantic"
    raw = {d.id for d in live(world) if d.authority == "auto_write"}
    assert len(raw) == 2 and set(fact.derived_from) == raw


def test_supersession_hides_the_old_value_from_search() -> None:
    # Given a fact, then a later run saying the new value
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    run(world, "I live in Porto.")
    drain(world)
    [old] = [d for d in live(world) if d.authority == "extracted"]
    world.clock.advance(days=30)
    run(world, "I live in Lisbon.")
    drain(world)
    # Then search sees only the new value; the old one stays readable by id, superseded by the new one
    [new] = [d for d in live(world) if d.authority == "extracted"]
    found = world.memory.search(world.embedder.vector("where do I live"), [NS], 20, now=world.clock.now())
    ids = [c.document.id for c in found]
    assert new.id in ids and old.id not in ids
    kept = world.memory.get(old.id, NS)
    assert kept is not None and kept.status == "superseded" and kept.superseded_by == new.id
    [supersede] = [r for r in world.deps.audit.query("alice", action="write").records if r.detail.get("superseded")]
    assert supersede.detail["reason"] == "supersedes" and supersede.detail["superseded"] == [old.id]


def test_a_near_duplicate_refreshes_the_stored_entry() -> None:
    # Given a stored run input, and a later run saying nearly the same
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True, "duplicate_threshold": 0.9})
    text = "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on."
    run(world, text)
    drain(world)
    before = {d.id for d in live(world)}
    world.clock.advance(days=1)
    run(world, text.replace("Please remember", "Remember") + " Thanks")
    drain(world)
    # Then the input refreshed the old entry (no new one), audited as an update with the reason
    inputs = [d for d in live(world) if d.metadata.get("source") == "run_input"]
    assert len(inputs) == 1 and inputs[0].id in before
    assert inputs[0].updated_at == world.clock.now() and len(inputs[0].metadata["sources"]) == 2
    updates = world.deps.audit.query("alice", action="update").records
    [update] = [r for r in updates if r.detail["source"] == "run_input"]
    assert update.detail["reason"] == "near_duplicate" and update.detail["similarity"] >= 0.9


def test_a_distinct_entry_is_not_merged() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True})
    run(world, "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on.")
    run(world, "The invoice archive for last year is in the blue folder on the second shelf of the office.")
    drain(world)
    assert len([d for d in live(world) if d.metadata.get("source") == "run_input"]) == 2
    assert world.deps.audit.query("alice", action="update").records == []


class _FailingExtraction:
    """The agent's model works; the extraction call fails."""

    def __init__(self) -> None:
        self.model = OfflineModel()

    def client_for(self, spec: Any) -> Any:
        return self

    def converse(self, request: dict[str, Any]) -> ModelResponse:
        if "MNEME MEMORY EXTRACTION" in str(request.get("system")):
            raise ModelUnavailable("extraction model down")
        return self.model.converse(request)


def test_a_failed_extraction_keeps_the_raw_entries_and_retries_only_itself() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    run(world, "I live in Porto. The weather was nice today and we went for a long walk by the river.")
    jobs = list(world.queue.jobs)
    answer = drain(world, models=_FailingExtraction())
    [extract_index] = [i for i, job in enumerate(jobs) if job.kind == "extract"]
    assert answer == {"batchItemFailures": [{"itemIdentifier": f"m{extract_index}"}]}
    assert {d.metadata["source"] for d in live(world)} == {"run_input", "run_output"}


class _Garbage(_FailingExtraction):
    def converse(self, request: dict[str, Any]) -> ModelResponse:
        if "MNEME MEMORY EXTRACTION" in str(request.get("system")):
            return ModelResponse(content=[{"text": "sure! here are facts: none"}], stop_reason="end_turn")
        return self.model.converse(request)


def test_malformed_extraction_output_is_a_warning_not_a_failure() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    run(world, "I live in Porto. The weather was nice today and we went for a long walk by the river.")
    assert drain(world, models=_Garbage()) == {"batchItemFailures": []}
    assert all(d.authority == "auto_write" for d in live(world))


def test_a_100000_character_run_input_is_stored_in_chunks_under_titans_limit() -> None:
    # Given the Titan V2 input limit in the stand-in embedder
    world = make_world(OfflineModel())
    world.deps.embedder = world.embedder = HashingEmbedder(model_id=TITAN_V2.model_id)
    add_agent(world, memory_policy={"allow_write": True})
    text = " ".join(f"Sentence {i} of a very long report about harbour logistics." for i in range(1_700))[:100_000]
    # When a run takes it (its query cut to the limit) and the writer stores it
    result = run(world, text)
    assert not [e for e in world.deps.runs.list_events(result.run.run_id) if e.type == "warning"]
    assert drain(world) == {"batchItemFailures": []}
    # Then the input is chunks linked to the first, each within the chunk size, none in the DLQ
    chunks = sorted((d for d in live(world) if d.metadata["source"] == "run_input"), key=lambda d: d.chunk_index or 0)
    assert len(chunks) == chunks[0].chunk_count >= 13
    assert all(len(c.content) <= TITAN_V2.chunk_chars for c in chunks)
    assert all(c.parent_id == chunks[0].id and chunks[0].id in c.derived_from for c in chunks[1:])
    assert {c.id for c in chunks} <= set(world.memory.soft_delete(chunks[0].id, NS, now=world.clock.now()))


def test_the_extractions_usage_is_charged_to_the_run_once() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy=FACTS)
    result = run(world, "I live in Porto. The weather was nice today and we went for a long walk by the river.")
    before = world.deps.runs.get_run(result.run.run_id)
    records = [
        {"messageId": f"m{i}", "body": job_body(job), "eventSource": "aws:sqs"}
        for i, job in enumerate(world.queue.jobs)
    ]
    ports = WriterPorts(
        world.memory, world.embedder, world.deps.audit, world.clock, world.deps.models, None, world.deps.runs
    )
    write_batch(ports, records)
    write_batch(ports, records)  # redelivered: charged once
    after = world.deps.runs.get_run(result.run.run_id)
    assert before is not None and after is not None
    extraction_tokens = after.usage.input_tokens - before.usage.input_tokens
    assert extraction_tokens > 0 and after.tree_usage.input_tokens - before.tree_usage.input_tokens == extraction_tokens
    assert after.status == before.status


def test_a_near_duplicate_that_changes_a_value_is_stored_not_merged() -> None:
    world = make_world(OfflineModel())
    add_agent(world, memory_policy={"allow_write": True, "duplicate_threshold": 0.5})
    run(world, "Please note for the team wiki that the Apollo review is due on March 15 in the big meeting room.")
    world.clock.advance(days=1)
    run(world, "Please note for the team wiki that the Apollo review is due on April 2 in the big meeting room.")
    drain(world)
    inputs = [d.content for d in live(world) if d.metadata.get("source") == "run_input"]
    assert len(inputs) == 2 and any("April 2" in c for c in inputs)
