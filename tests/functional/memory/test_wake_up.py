"""A run during a scale-to-zero collection's wake-up (issue 32.2): no failed run, a ``warning`` event, and the
queued write stored once the collection is awake.

OpenSearch Serverless NextGen collections scale to 0 OCU after 10 idle minutes; "expect 10-30 seconds of latency
on the first request to each component while capacity is restored" (OpenSearch Service developer guide, "Scale to
zero for Amazon OpenSearch Serverless"). The guide names no error code, so the stand-in answers the two ways that
wait can reach the adapter: a 503 for every request until the collection is up, or no answer within the client's
10 s read timeout. It wraps the OpenSearch adapter's client in front of osmem-server (the pattern of
``lagging.py``), on the test's fake clock.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from mneme.adapters.dynamo.memory_journal import ItemMemoryJournal
from mneme.adapters.opensearch.http import OpenSearchHTTPError, SignedOpenSearch
from mneme.engine.memory_io.ops import new_document
from mneme.engine.memory_io.writer import write_batch
from mneme.engine.memory_io.writer_ports import WriterPorts
from mneme.models.agent import Agent
from tests.fakes.items import MemoryItemTable
from tests.functional.api.conftest import Api
from tests.functional.memory.conftest import KnnEmulatingStore
from tests.reliability.faults import sqs_records
from tests.reliability.world import RecordingModel
from tests.support.deps import World, make_world

NS = "vector.agent.alice.memory"
LONG = "Please remember that the release train leaves every second Tuesday at noon, starting next month."
SEEDED = "the release train notes from last quarter"
WAKE_SECONDS = 20  # inside the documented 10-30 s
REDELIVERY_SECONDS = 30  # a failed SQS message is received again after its visibility timeout


class WakingClient:
    """The adapter's OpenSearch client; once :meth:`sleep` was called, the first request starts the wake-up and
    every request answers ``how`` (503, or no answer) until ``WAKE_SECONDS`` have passed on the clock."""

    def __init__(self, real: SignedOpenSearch, how: str) -> None:
        self.real, self.how = real, how
        self.clock: Any = None
        self.asleep = False
        self.awake_at: datetime | None = None
        self.refused = 0
        self.indices = real.indices

    def sleep(self) -> None:
        self.asleep, self.awake_at = True, None

    def _gate(self) -> None:
        if not self.asleep:
            return
        now = self.clock.now()
        self.awake_at = self.awake_at or now + timedelta(seconds=WAKE_SECONDS)
        if now >= self.awake_at:
            self.asleep = False
            return
        self.refused += 1
        if self.how == "503":
            raise OpenSearchHTTPError(503, "service_unavailable", "capacity is being restored")
        raise OpenSearchHTTPError(None, "read_timeout", "Read timeout on endpoint URL (10 s)")

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.real, name)

        def gated(*args: Any, **kwargs: Any) -> Any:
            self._gate()
            return method(*args, **kwargs)

        return gated


class _WorldTime:
    """The time of the client's clock (the journal needs a clock before the world that makes it exists)."""

    def __init__(self, client: WakingClient) -> None:
        self._client = client

    def now(self) -> datetime:
        now: datetime = self._client.clock.now()
        return now


@pytest.fixture(params=["503", "no-answer"])
def waking(request: pytest.FixtureRequest, os_client: SignedOpenSearch, index_name: str) -> tuple[World, WakingClient]:
    client = WakingClient(os_client, request.param)
    journal = ItemMemoryJournal(MemoryItemTable(), _WorldTime(client))
    adapter: Any = client
    store = KnnEmulatingStore(adapter, index=index_name, dimension=256, service="aoss", journal=journal)
    world = make_world(RecordingModel(), store=store, MNEME_RUNS_PER_USER_PER_MINUTE="0")
    client.clock = world.clock  # the world's clock, made with the world (which needs the store first)
    policy = {"allow_write": True, "min_score": 0.0}
    world.deps.config.put_agent(Agent(agent_id="writer", owner="alice", label="Writer", memory_policy=policy))
    seeded = new_document("seed1", NS, "alice", SEEDED, clock=world.clock)
    store.put([(seeded, world.embedder.embed([seeded.content])[0])])
    world.clock.advance(minutes=11)  # idle: the collection scaled to zero
    client.sleep()
    return world, client


def _deliver(world: World, *, receives: int = 5) -> list[int]:
    """The memory queue's jobs to the writer as SQS does: a failed message comes back after the visibility
    timeout. Answers how many failed at each receive."""
    pending, failures = list(world.queue.jobs), []
    world.queue.jobs.clear()
    for _ in range(receives):
        if not pending:
            break
        records = sqs_records(pending)
        failed = {f["itemIdentifier"] for f in write_batch(WriterPorts.of(world.deps), records)["batchItemFailures"]}
        failures.append(len(failed))
        pending = [job for job, record in zip(pending, records, strict=True) if record["messageId"] in failed]
        world.clock.advance(seconds=REDELIVERY_SECONDS)
    assert not pending, "a write was lost"
    return failures


def test_a_run_during_the_wake_up_succeeds_without_memory_with_a_warning(waking: Any) -> None:
    world, client = waking
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": LONG}, user="alice")
    assert reply.status == 200 and reply.body["status"] == "succeeded"
    warnings = [e.data["message"] for e in world.deps.runs.list_events(reply.body["run_id"]) if e.type == "warning"]
    assert any("memory unavailable" in w for w in warnings) and client.refused >= 1
    assert SEEDED not in json.dumps(world.model.requests)  # no memory reached the model


def test_the_writes_queued_during_the_wake_up_are_stored_once_it_is_awake(waking: Any) -> None:
    world, client = waking
    Api(world).post("/v1/runs", {"agent_id": "writer", "input": LONG}, user="alice")
    failures = _deliver(world)
    assert failures[0] >= 1 and failures[-1] == 0  # refused while waking, then written on a redelivery
    found = world.memory.search(world.embedder.embed([LONG])[0], [NS], 10, now=world.clock.now())
    contents = sorted(c.document.content for c in found)
    assert contents.count(LONG) == 1 and SEEDED in contents and any(c.startswith("offline:") for c in contents)
    assert not client.asleep


def test_a_run_after_the_wake_up_reads_memory_again(waking: Any) -> None:
    world, _ = waking
    Api(world).post("/v1/runs", {"agent_id": "writer", "input": "what about the release train?"}, user="alice")
    world.clock.advance(seconds=WAKE_SECONDS)
    reply = Api(world).post("/v1/runs", {"agent_id": "writer", "input": "what about the release train?"}, user="alice")
    warnings = [e for e in world.deps.runs.list_events(reply.body["run_id"]) if e.type == "warning"]
    assert reply.body["status"] == "succeeded" and not warnings
    assert SEEDED in json.dumps(world.model.requests[-1])
