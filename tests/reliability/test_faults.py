"""Faults (issue 7 §3): each dependency fails in turn; the run ends in a clear state, no memory write is
lost (it stays queued, in the outbox or in the DLQ, and the redrive replays it), no memory read is used
without its audit record, and retries never duplicate a memory or a chat turn.

Figures: ``fault scenarios``, ``fault memory writes expected`` / ``… lost``, ``fault reads used unaudited``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.errors import (
    AuditWriteFailed,
    Conflict,
    EmbeddingUnavailable,
    ModelThrottled,
    ModelUnavailable,
    Throttled,
)
from mneme.models.agent import Agent
from mneme.models.run import RunStatus
from mneme.ports.models import ModelResponse
from mneme.runtime import Runtime
from tests.functional.api.conftest import Api
from tests.reliability.faults import FlakyAudit, FlakyTable, drain, swap_main_table
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER
from tests.reliability.world import RecordingModel
from tests.support.deps import World, make_world

NS = "vector.agent.alice.memory"
LONG = "Please remember that the release train leaves every second Tuesday at noon, starting next month."
SEEDED = "the release train notes from last quarter"


class FlakyModel(RecordingModel):
    """The offline model that raises ``errors`` (in order) before answering normally."""

    def __init__(self, *errors: Exception) -> None:
        super().__init__()
        self.errors = list(errors)

    def converse(self, request: dict[str, Any], **options: Any) -> ModelResponse:
        if self.errors:
            self.requests.append(request)
            raise self.errors.pop(0)
        return super().converse(request, **options)


@dataclass
class Scene:
    world: World
    api: Api
    model: RecordingModel

    def run(self, text: str = LONG, **headers: str) -> Any:
        return self.api.post("/v1/runs", {"agent_id": "writer", "input": text}, user="alice", headers=headers)

    def finish(self, run_id: str) -> Any:
        """What the state machine does with a handed-off run: step it until it is done."""
        from mneme.engine.runs.service import step

        run = self.world.deps.runs.get_run(run_id)
        for _ in range(5):
            if run is not None and run.status.finished:
                return run
            run = step(self.world.deps, run_id).run
        return run


def scene(model: RecordingModel | None = None) -> Scene:
    model = model or RecordingModel()
    # the subject is faults, not rate limits
    world = LEDGER.world("faults scene", make_world(model, MNEME_RUNS_PER_USER_PER_MINUTE="0"))
    world.deps.config.put_agent(
        Agent(
            agent_id="writer",
            owner="alice",
            label="Writer",
            memory_policy={"allow_write": True, "min_score": 0.0},
        )
    )
    doc = new_document("seed1", NS, "alice", SEEDED, clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([doc.content])[0])])
    return Scene(world, Api(world), model)


def memories(world: World) -> list[tuple[str, str]]:
    return sorted(
        (d.namespace, d.content) for d in world.memory.documents.values() if not d.deleted and d.id != "seed1"
    )


def settle(scene_: Scene, figures: Figures, succeeded_runs: int) -> None:
    """Deliver the queue (+ outbox redrive + DLQ redrive) and check: every write landed exactly once,
    and the seeded memory reached a model only in runs that have their read audit record."""
    world = scene_.world
    Runtime(world.deps).handle({"action": "redrive"})  # the outbox, if the queue refused jobs
    _, dead = drain(world)
    world.queue.jobs.extend(dead)  # the DLQ redrive (docs/reliability.md) puts them back on the queue
    _, dead = drain(world)
    expected = sorted([(NS, LONG), (NS, f"offline: {LONG}")] * succeeded_runs)
    got = memories(world)
    figures.add("fault memory writes expected", len(expected))
    lost = len(set(expected) - set(got))
    figures.add("fault memory writes lost", lost)
    figures.add("fault duplicate memories", len(got) - len(set(got)))
    assert not dead and set(got) == set(expected) and len(got) == len(set(got)), (dead, got)
    unaudited = 0
    for request in scene_.model.requests:
        if SEEDED in json.dumps(request):
            reads = [r for r in world.deps.audit.query("alice", action="read", limit=200).records]
            unaudited += not reads
    figures.add("fault reads used unaudited", unaudited)
    assert unaudited == 0


def warnings_of(world: World, run_id: str) -> list[str]:
    return [e.data["message"] for e in world.deps.runs.list_events(run_id) if e.type == "warning"]


def _scenario(figures: Figures, name: str) -> None:
    figures.add("fault scenarios")
    figures.add(f"fault scenarios: {name}")


# --------------------------------------------------------------------------------- memory and embeddings
def test_memory_store_down_the_run_succeeds_without_memory_and_the_writes_wait(figures: Figures) -> None:
    # Given the memory store is down
    s = scene()
    s.world.memory.unavailable = True
    # When a run starts, and the writer receives its jobs while the store is still down
    reply = s.run()
    deliveries, dead = drain(s.world)
    # Then the run succeeded with a warning and no memory; the jobs were retried, then dead-lettered
    _scenario(figures, "memory store down")
    assert reply.status == 200 and reply.body["status"] == "succeeded"
    assert any("memory unavailable" in w for w in warnings_of(s.world, reply.body["run_id"]))
    assert SEEDED not in json.dumps(s.model.requests)
    assert deliveries == 10 and len(dead) == 2
    # And once the store is back, the DLQ redrive writes each memory exactly once
    s.world.memory.unavailable = False
    s.world.queue.jobs.extend(dead)
    settle(s, figures, succeeded_runs=1)


def test_embeddings_failing_the_run_succeeds_and_the_writes_wait(figures: Figures) -> None:
    s = scene()
    s.world.embedder.fail = EmbeddingUnavailable("embeddings are down")
    reply = s.run()
    _, dead = drain(s.world)
    _scenario(figures, "embeddings failing")
    assert reply.status == 200 and reply.body["status"] == "succeeded"
    assert any("memory unavailable" in w for w in warnings_of(s.world, reply.body["run_id"]))
    assert SEEDED not in json.dumps(s.model.requests) and len(dead) == 2
    s.world.embedder.fail = None
    s.world.queue.jobs.extend(dead)
    settle(s, figures, succeeded_runs=1)


def test_http_memory_routes_answer_503_while_the_store_is_down(figures: Figures) -> None:
    s = scene()
    s.world.memory.unavailable = True
    reply = s.api.post("/v1/memory/search", {"query": "release train"}, user="alice")
    _scenario(figures, "memory store down (HTTP search)")
    assert reply.status == 503 and reply.body["error"] == "memory_unavailable"


# ------------------------------------------------------------------------------------------- Bedrock
def test_bedrock_throttling_hands_the_run_to_the_state_machine_which_finishes_it(figures: Figures) -> None:
    # Given Bedrock throttles the first call
    s = scene(FlakyModel(ModelThrottled("ThrottlingException: slow down")))
    # When the run starts on the fast path
    reply = s.run()
    # Then it is handed off with a warning, and the state machine's step finishes it
    _scenario(figures, "Bedrock throttling")
    assert reply.status == 202
    run_id = reply.body["run_id"]
    assert s.world.orchestrator.started == [(run_id, 0)]
    assert any("ModelThrottled" in w for w in warnings_of(s.world, run_id))
    assert s.finish(run_id).status is RunStatus.SUCCEEDED
    finished = s.world.deps.runs.get_run(run_id)
    assert finished is not None and finished.chat_id
    chat = s.world.deps.chats.get_chat("alice", finished.chat_id)
    assert chat is not None
    assert [m.role for m in chat.messages] == ["user", "assistant"]
    settle(s, figures, succeeded_runs=1)


def test_bedrock_5xx_fails_the_run_with_the_reason_and_writes_nothing(figures: Figures) -> None:
    s = scene(FlakyModel(*[ModelUnavailable("InternalServerException: 500 from Bedrock")] * 3))
    reply = s.run()
    _scenario(figures, "Bedrock 5xx")
    assert reply.status == 200
    assert reply.body["status"] == "failed" and "500 from Bedrock" in reply.body["error"]
    assert s.world.queue.jobs == [] and s.world.deps.runs.list_outbox() == []
    chat = s.world.deps.chats.get_chat("alice", reply.body["chat_id"])
    assert chat is None or chat.messages == []  # a new chat is only stored with a successful turn
    settle(s, figures, succeeded_runs=0)


# -------------------------------------------------------------------------------------- SQS, audit
def test_sqs_down_after_a_successful_run_keeps_the_jobs_for_the_redrive(figures: Figures) -> None:
    # Given the memory queue refuses every message
    s = scene()
    s.world.queue.fail = True
    # When a run succeeds
    reply = s.run()
    # Then it warns, its jobs wait in the outbox, and the redrive (once the queue is back) loses none
    _scenario(figures, "SQS enqueue failure")
    assert reply.body["status"] == "succeeded"
    assert any("kept for the redrive" in w for w in warnings_of(s.world, reply.body["run_id"]))
    assert Runtime(s.world.deps).handle({"action": "redrive"})["remaining"] == 1  # still down: kept
    s.world.queue.fail = False
    settle(s, figures, succeeded_runs=1)


def test_an_audit_failure_at_the_read_keeps_the_hits_out_of_the_model_request(figures: Figures) -> None:
    # Given the audit log fails when the run's memory read is recorded
    s = scene()
    s.world.deps.audit = FlakyAudit(
        s.world.deps.audit, lambda: AuditWriteFailed("audit table unavailable"), when=lambda rs: rs[0].action == "read"
    )
    # When a run whose query matches the seeded memory starts
    reply = s.run()
    # Then the run succeeded, warned, and the model never saw the unaudited hit
    _scenario(figures, "audit write failure (read)")
    assert reply.body["status"] == "succeeded"
    assert any("could not be audited" in w for w in warnings_of(s.world, reply.body["run_id"]))
    assert SEEDED not in json.dumps(s.model.requests)
    settle(s, figures, succeeded_runs=1)


def test_an_audit_failure_in_the_writer_retries_without_duplicating(figures: Figures) -> None:
    s = scene()
    reply = s.run()
    s.world.deps.audit = FlakyAudit(s.world.deps.audit, lambda: AuditWriteFailed("audit table unavailable"))
    deliveries, dead = drain(s.world)
    _scenario(figures, "audit write failure (writer)")
    assert reply.body["status"] == "succeeded" and deliveries == 4 and dead == []
    writes = [r for r in s.world.deps.audit.written if r.action == "write"]
    assert len(writes) == 2
    settle(s, figures, succeeded_runs=1)


# ---------------------------------------------------------------------------- DynamoDB, every write
def _clean_write_count() -> int:
    s = scene()
    table = FlakyTable(s.world.deps.runs._table, lambda: Throttled("never"), fail_at=10**9)  # type: ignore[attr-defined]
    swap_main_table(s.world, table)
    assert s.run(**{"Idempotency-Key": "k"}).body["status"] == "succeeded"
    return table.writes


WRITES_PER_RUN = _clean_write_count()
ERRORS = {
    "throttling": lambda: Throttled("ProvisionedThroughputExceededException"),
    "conditional-check": lambda: Conflict("ConditionalCheckFailedException"),
}


def _cases() -> list[Any]:
    cases = []
    for name in ERRORS:
        for position in range(1, WRITES_PER_RUN + 1):
            cases.append(pytest.param(name, position, id=f"{name}-write{position}"))
    return cases


@pytest.mark.parametrize(("error", "position"), _cases())
def test_a_dynamodb_failure_at_any_write_of_a_run_is_recovered_by_the_client_retry(
    error: str, position: int, figures: Figures
) -> None:
    """The main table fails once at write N, for every N a run makes; the client retries the POST with the
    same Idempotency-Key (and the state machine steps a handed-off run)."""
    # Given the main table fails once at this write
    s = scene()
    table = FlakyTable(s.world.deps.runs._table, ERRORS[error], fail_at=position)  # type: ignore[attr-defined]
    swap_main_table(s.world, table)
    # When alice posts the run, retrying with the same key while the answer is a 4xx/5xx
    replies = [s.run(**{"Idempotency-Key": "k1"})]
    for _ in range(2):
        if replies[-1].status < 400:
            break
        replies.append(s.run(**{"Idempotency-Key": "k1"}))
    # Then the run ends in a clear state: succeeded with one chat turn, its events and its memories
    # written once — or failed with a reason, having written nothing
    _scenario(figures, f"DynamoDB {error} at write {position}/{WRITES_PER_RUN}")
    assert table.fired
    final = replies[-1]
    assert final.status in (200, 202), [(r.status, r.text[:200]) for r in replies]
    run = s.finish(final.body["run_id"])
    if run.status is RunStatus.FAILED:
        assert run.error and s.world.queue.jobs == []
        settle(s, figures, succeeded_runs=0)
        return
    assert run.status is RunStatus.SUCCEEDED, (run.status, run.error)
    chat = s.world.deps.chats.get_chat("alice", run.chat_id or "")
    assert chat is not None and [m.role for m in chat.messages] == ["user", "assistant"], chat
    assert [e.type for e in s.world.deps.runs.list_events(run.run_id)][-1] == "completed"
    settle(s, figures, succeeded_runs=1)


# ------------------------------------------------------------------------------ Lambda task failure
def test_a_lambda_task_failure_inside_the_state_machine_fails_the_run_with_the_reason(figures: Figures) -> None:
    from mneme_local import sfn_emulation
    from tests.functional.statemachine.conftest import start_machine

    for machine in start_machine(OfflineModel()):
        # Given an auto-writing master handed to the state machine (it delegates), whose own step crashes
        world = machine.world
        world.deps.config.put_agent(
            Agent(
                agent_id="master",
                owner="alice",
                label="Master",
                tools=["delegate-to-agent"],
                delegates=["helper"],
                memory_policy={"allow_write": True},
            )
        )
        world.deps.config.put_agent(Agent(agent_id="helper", owner="alice", label="Helper"))
        original = sfn_emulation.HANDLERS[machine.function]

        def crash_on_master(event: dict[str, Any], context: Any, world: World = world, original: Any = original) -> Any:
            run_ = world.deps.runs.get_run(str(event.get("run_id")))
            if event.get("action") == "step" and run_ is not None and run_.agent_id == "master":
                raise RuntimeError("the run function ran out of memory")
            return original(event, context)

        sfn_emulation.HANDLERS[machine.function] = crash_on_master
        reply = Api(world).post("/v1/runs", {"agent_id": "master", "input": f"/delegate helper :: {LONG}"})
        # When the state machine runs it
        run = machine.wait(reply.body["run_id"])
        # Then the Catch marked it failed with the reason, and nothing was queued for memory
        _scenario(figures, "Lambda task failure in the state machine")
        assert reply.status == 202
        assert run.status is RunStatus.FAILED and "ran out of memory" in (run.error or "")
        assert world.queue.jobs == [] and world.deps.runs.list_outbox() == []
        events = [e.type for e in world.deps.runs.list_events(run.run_id)]
        assert events[-2:] == ["error", "completed"]
        figures.add("fault memory writes lost", 0)
