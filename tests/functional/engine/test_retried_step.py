"""A retried state-machine step (same checkpoint, same entered time) duplicates nothing (SPEC §9, issue 7)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.engine.runs.service import step
from mneme.errors import ModelThrottled
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import make_world

ENTERED = datetime(2026, 11, 30, 9, 6, tzinfo=UTC)


class ThrottledOnce(OfflineModel):
    def __init__(self) -> None:
        self.failures = 1

    def converse(self, request, **options):
        if request["modelId"] == "child-model" and self.failures:
            self.failures -= 1
            raise ModelThrottled("slow down")
        return super().converse(request, **options)


def test_a_retried_child_step_writes_each_audit_record_once() -> None:
    # Given a delegated child whose first step is throttled after its memory read was audited
    world = make_world(ThrottledOnce())
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["child"])
    add_agent(
        world, "child", model={"provider": "bedrock", "model_id": "child-model"}, memory_policy={"allow_write": True}
    )
    doc = new_document("m1", "vector.agent.alice.memory", "alice", "notes about the child task", clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([doc.content])[0])])
    task = "work on the child task carefully and report back with all the details you can find there"
    parent = run(world, f"/delegate child :: {task}")
    child_id = parent.run.children[0]
    with pytest.raises(ModelThrottled):
        step(world.deps, child_id, entered_at=ENTERED)
    # When the state machine retries the step (same checkpoint, same entered time)
    world.clock.advance(seconds=7)
    done = step(world.deps, child_id, entered_at=ENTERED)
    # Then the child finished, its reads are audited once each, and its memories are queued once
    assert done.run.status is RunStatus.SUCCEEDED
    reads = world.deps.audit.query("alice", action="read", run_id=child_id).records
    assert sorted(r.namespace or "" for r in reads) == ["vector.agent.alice.memory", "vector.user.alice.memory"]
    assert [job.metadata["source"] for job in world.queue.jobs] == ["run_input", "run_output"]
