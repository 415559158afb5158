"""Auto-write after successful runs (SPEC §5.5) and the memory writer (SQS consumer)."""

from __future__ import annotations

import json

from mneme.adapters.aws.sqs_queue import job_body
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.errors import MemoryUnavailable
from mneme.models.run import RunStatus
from tests.fakes.scripted import failing_model
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import make_world

LONG = "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on."


def test_long_input_queues_run_input_and_run_output(world) -> None:
    # Given an agent that auto-writes
    add_agent(world, memory_policy={"allow_write": True})
    # When a run with an input of 80+ characters succeeds
    result = run(world, LONG)
    # Then both the input and the answer are queued for the agent namespace
    assert len(LONG) >= 80
    assert [job.metadata["source"] for job in world.queue.jobs] == ["run_input", "run_output"]
    assert {job.namespace for job in world.queue.jobs} == {"vector.agent.alice.memory"}
    assert world.queue.jobs[0].content == LONG and result.run.status is RunStatus.SUCCEEDED


def test_short_input_queues_only_the_output(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    run(world, "short question")
    assert [job.metadata["source"] for job in world.queue.jobs] == ["run_output"]


def test_metadata_names_agent_task_chat_user_session_and_run(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    result = run(world, LONG, session_id="s1")
    metadata = world.queue.jobs[1].metadata
    assert metadata == {
        "source": "run_output",
        "agent_id": "master",
        "task_id": None,
        "chat_id": result.run.chat_id,
        "user_id": "alice",
        "session_id": "s1",
        "run_id": result.run.run_id,
        "root_run_id": result.run.run_id,
        "depth": 0,
        "queued_at": world.clock.now().isoformat(),
    }


def test_the_volatile_suffix_is_never_stored(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    run(world, LONG)
    assert all("[Context — current date/time" not in job.content for job in world.queue.jobs)


def test_a_failed_run_queues_nothing() -> None:
    # Given a model that fails for good
    world = make_world(failing_model())
    add_agent(world, memory_policy={"allow_write": True})
    # When the run fails
    result = run(world, LONG)
    # Then it failed with a reason and nothing was queued
    assert result.run.status is RunStatus.FAILED and result.run.error
    assert world.queue.jobs == []


def test_the_writer_indexes_a_batch_and_reports_only_the_failed_item(world) -> None:
    # Given three queued jobs, one of which the embedder cannot embed
    add_agent(world, memory_policy={"allow_write": True})
    run(world, LONG)
    jobs = list(world.queue.jobs)
    bad = json.loads(job_body(jobs[0]))
    bad["job_id"], bad["content"] = "bad-job", "EMBEDDING-FAILS"
    records = [{"messageId": f"m{i}", "body": job_body(job), "eventSource": "aws:sqs"} for i, job in enumerate(jobs)]
    records.append({"messageId": "m-bad", "body": json.dumps(bad), "eventSource": "aws:sqs"})
    original = world.embedder.embed

    def embed(texts):
        if "EMBEDDING-FAILS" in texts:
            raise MemoryUnavailable("embedding failed")
        return original(texts)

    world.embedder.embed = embed
    # When the writer processes the batch
    answer = write_batch(WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock), records)
    # Then only the bad message is reported, and the two good ones are stored and audited
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m-bad"}]}
    assert {doc.id for doc in world.memory.documents.values()} == {job.job_id for job in jobs}
    writes = world.deps.audit.query("alice", action="write").records
    assert len(writes) == 2


def test_a_redelivered_batch_does_not_duplicate_memories(world) -> None:
    add_agent(world, memory_policy={"allow_write": True})
    run(world, LONG)
    records = [
        {"messageId": f"m{i}", "body": job_body(j), "eventSource": "aws:sqs"} for i, j in enumerate(world.queue.jobs)
    ]
    ports = WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock)
    write_batch(ports, records)
    write_batch(ports, records)
    assert len(world.memory.documents) == 2


def test_the_writer_embeds_a_batchs_jobs_in_one_call(world) -> None:
    # Issue 30.5: two queued jobs (run input and output) — one embedding call for both
    add_agent(world, memory_policy={"allow_write": True})
    run(world, LONG)
    records = [
        {"messageId": f"m{i}", "body": job_body(j), "eventSource": "aws:sqs"} for i, j in enumerate(world.queue.jobs)
    ]
    world.embedder.calls.clear()
    write_batch(WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock), records)
    assert len(world.embedder.calls) == 1 and len(world.embedder.calls[0]) == 2
    assert len(world.memory.documents) == 2
