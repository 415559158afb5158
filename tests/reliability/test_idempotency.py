"""Idempotency (issue 7 §4): one Idempotency-Key under 100 concurrent POSTs starts exactly one run; a
retried state-machine step duplicates no chat message, audit record or memory (extends
``tests/functional/engine/test_retried_step.py``, which covers a child's audit records and queued jobs)."""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from mneme.engine.runs.service import step
from mneme.errors import ModelThrottled, Throttled
from mneme.models.agent import Task
from mneme.models.run import RunStatus
from tests.functional.api.conftest import stored_runs
from tests.reliability.faults import FlakyTable, drain, swap_main_table
from tests.reliability.figures import Figures
from tests.reliability.test_faults import LONG, FlakyModel, memories, scene

ENTERED = datetime(2026, 11, 30, 9, 6, tzinfo=UTC)


def test_100_concurrent_posts_with_one_key_start_exactly_one_run(figures: Figures) -> None:
    # Given one client that fires the same request 100 times at once, with one Idempotency-Key
    s = scene()
    start = threading.Barrier(100)

    def post(_: int) -> Any:
        start.wait()
        return s.run(**{"Idempotency-Key": "same-key-1"})

    # When all 100 reach the runtime together
    with ThreadPoolExecutor(max_workers=100) as pool:
        replies = list(pool.map(post, range(100)))
    # Then exactly one run exists, and every answer names it
    figures.add("idempotency concurrent posts", len(replies))
    statuses = Counter(r.status for r in replies)
    run_ids = {r.body["run_id"] for r in replies if r.status in (200, 202)}
    figures.set("idempotency answers", ", ".join(f"{n}x{code}" for code, n in sorted(statuses.items())))
    figures.add("idempotency runs started", len(stored_runs(s.world)))
    assert stored_runs(s.world) == sorted(run_ids) and len(run_ids) == 1
    assert set(statuses) <= {200, 202}, statuses
    drain(s.world)
    assert memories(s.world) == sorted(
        [("vector.agent.alice.memory", LONG), ("vector.agent.alice.memory", f"offline: {LONG}")]
    )


def _handed_off() -> Any:
    """A run the fast path handed to the state machine (Bedrock throttled), ready for its step."""
    s = scene(FlakyModel(ModelThrottled("slow down")))
    reply = s.run()
    assert reply.status == 202
    return s, reply.body["run_id"]


def _step_writes() -> int:
    s, run_id = _handed_off()
    table = FlakyTable(s.world.deps.runs._table, lambda: Throttled("never"), fail_at=10**9)
    swap_main_table(s.world, table)
    assert step(s.world.deps, run_id, entered_at=ENTERED).run.status is RunStatus.SUCCEEDED
    return table.writes


STEP_WRITES = _step_writes()


@pytest.mark.parametrize(
    "position",
    [pytest.param(n) for n in range(1, STEP_WRITES + 1)],
)
def test_a_step_retried_after_a_failure_at_any_write_duplicates_nothing(position: int, figures: Figures) -> None:
    # Given a handed-off run whose step fails once at this write of the main table (DynamoDB throttling)
    s, run_id = _handed_off()
    table = FlakyTable(s.world.deps.runs._table, lambda: Throttled("throttled"), fail_at=position)
    swap_main_table(s.world, table)
    with contextlib.suppress(Throttled):  # a write the engine retries itself (the chat turn) raises nothing
        step(s.world.deps, run_id, entered_at=ENTERED)
    # When the state machine retries the step (same entered time), and the writer gets the queue
    s.world.clock.advance(seconds=3)
    done = step(s.world.deps, run_id, entered_at=ENTERED)
    drain(s.world)
    # Then the run succeeded once: one chat turn, each audit record once, each memory once
    figures.add("idempotency retried steps")
    assert done.run.status is RunStatus.SUCCEEDED
    chat = s.world.deps.chats.get_chat("alice", done.run.chat_id or "")
    assert chat is not None
    assert [m.role for m in chat.messages] == ["user", "assistant"]
    records = s.world.deps.audit.query("alice", run_id=run_id, limit=200).records
    keys = [(r.action, r.namespace, r.detail.get("via"), r.detail.get("source")) for r in records]
    assert len(keys) == len(set(keys)), keys
    got = memories(s.world)
    assert len(got) == len(set(got)) == 2, got
    events = [e.type for e in s.world.deps.runs.list_events(run_id)]
    assert events.count("completed") == 1, events


def test_the_same_key_with_any_other_body_field_is_a_409_idempotency_conflict(figures: Figures) -> None:
    # Given a run started with a key (the writer agent has a second task to name)
    s = scene()
    s.world.deps.config.put_task(Task(task_id="review", agent_id="writer", owner="alice"))
    first_body = {"agent_id": "writer", "input": LONG}
    first = s.api.post("/v1/runs", first_body, user="alice", headers={"Idempotency-Key": "k-body"})
    assert first.status == 200
    variants: dict[str, dict[str, Any]] = {
        "task": {"task_id": "review"},
        "chat": {"chat_id": "another-chat"},
        "project": {"project_id": "p2"},
        "session": {"session_id": "s2"},
        "approval mode": {"tool_approval": "denied"},
        "memory off": {"memory": {"enabled": False}},
        "memory top_k": {"memory": {"top_k": 3}},
    }
    for name, change in variants.items():
        # When the key is sent again with one field changed
        reply = s.api.post("/v1/runs", {**first_body, **change}, user="alice", headers={"Idempotency-Key": "k-body"})
        # Then it is refused, never answered with the first request's run
        assert (reply.status, reply.body["error"]) == (409, "idempotency_conflict"), name
        figures.add("idempotency conflicting bodies refused")
    # And the same body again is the same run; only one run exists
    again = s.api.post("/v1/runs", first_body, user="alice", headers={"Idempotency-Key": "k-body"})
    assert (again.status, again.body["run_id"]) == (200, first.body["run_id"])
    assert stored_runs(s.world) == [first.body["run_id"]]
