"""The memory writer embeds a batch of jobs in one call, and stores the chunks of long content as they are
(issue 30.5, issue 31.6)."""

from __future__ import annotations

from mneme.adapters.aws.sqs_queue import job_body
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.ports.memory import MemoryWriteJob
from tests.support.deps import World

ALICE = "vector.user.alice.memory"


def _records(jobs: list[MemoryWriteJob]) -> list[dict[str, str]]:
    return [{"messageId": f"m{i}", "body": job_body(job), "eventSource": "aws:sqs"} for i, job in enumerate(jobs)]


def _job(job_id: str, content: str) -> MemoryWriteJob:
    return MemoryWriteJob(job_id, ALICE, "alice", content, metadata={"source": "run_input", "user_id": "alice"})


def _ports(world: World) -> WriterPorts:
    return WriterPorts(world.memory, world.embedder, world.deps.audit, world.clock)


def test_a_batch_of_jobs_is_embedded_in_one_call(world: World) -> None:
    jobs = [_job(f"job-{i}", f"Turn {i}: the user said the ferry leaves pier {i} at dawn.") for i in range(10)]
    answer = write_batch(_ports(world), _records(jobs))
    assert answer == {"batchItemFailures": []}
    assert len(world.embedder.calls) == 1 and len(world.embedder.calls[0]) == 10
    assert {doc.id for doc in world.memory.documents.values()} == {job.job_id for job in jobs}


def test_deleting_one_long_entry_keeps_the_identical_chunk_of_another(world: World) -> None:
    # Given two long run inputs (chunked) that share their last paragraph
    shared = " ".join(f"Shared clause {i} of the standard contract." for i in range(150))
    first = " ".join(f"Alpha point {i} about the harbour." for i in range(200))
    second = " ".join(f"Beta point {i} about the airport." for i in range(200))
    jobs = [_job("job-a", f"{first}\n\n{shared}"), _job("job-b", f"{second}\n\n{shared}")]
    assert write_batch(_ports(world), _records(jobs)) == {"batchItemFailures": []}
    b_chunks = [d for d in world.memory.documents.values() if d.id == "job-b" or d.parent_id == "job-b"]
    assert len(b_chunks) > 1 and any(d.content == shared for d in b_chunks)
    # When the first is deleted
    world.memory.soft_delete("job-a", ALICE, now=world.clock.now())
    # Then every chunk of the second is still live
    assert all(not world.memory.documents[d.id].deleted for d in b_chunks)


def test_the_writer_embeds_a_stamped_line_without_its_stamp(world: World) -> None:
    jobs = [_job("job-1", "[8 May 2023] Kate: the ferry leaves pier 4 at dawn."), _job("job-2", "Pier 4 is closed.")]
    assert write_batch(_ports(world), _records(jobs)) == {"batchItemFailures": []}
    assert world.embedder.calls == [["Kate: the ferry leaves pier 4 at dawn.", "Pier 4 is closed."]]
    assert world.memory.documents["job-1"].content == "[8 May 2023] Kate: the ferry leaves pier 4 at dawn."
