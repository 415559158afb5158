"""Cancel a delegation tree over the real agent-run ASL under moto (issue 15.3): a root with two running
children ends as three cancelled runs, no execution left running, nothing auto-written, no chat turn."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs.cancel import cancel_run
from mneme.models.policy import MemoryPolicy
from mneme.models.run import RunStatus
from mneme.models.user import Caller
from mneme.ports.models import ModelResponse
from tests.functional.engine.conftest import add_agent, run
from tests.functional.statemachine.conftest import Machine, start_machine

WRITES = MemoryPolicy(allow_write=True)
LONG = "a job description long enough to be remembered by the auto-write of the sub-agent, number"


class GatedModel(OfflineModel):
    """The offline model, except that the sub-agents' calls wait at a gate until it opens."""

    def __init__(self) -> None:
        self.inside = threading.Semaphore(0)
        self.gate = threading.Event()

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        texts = [block["text"] for block in request["messages"][-1]["content"] if "text" in block]
        if texts and texts[-1].startswith(LONG):  # a sub-agent's delegation input, not the master's turn
            self.inside.release()
            self.gate.wait(30)
        return super().converse(request, timeout_seconds=timeout_seconds)


@pytest.fixture
def gated() -> Iterator[tuple[Machine, GatedModel]]:
    model = GatedModel()
    for machine in start_machine(model):
        yield machine, model
        model.gate.set()


def test_cancelling_a_root_with_two_running_children_cancels_all_three(gated) -> None:
    machine, model = gated
    world = machine.world
    add_agent(world, "helper", memory_policy=WRITES)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"], memory_policy=WRITES)
    # Given a root whose two children are inside their model calls, in their own executions
    root = run(world, f"/delegate helper :: {LONG} 1\n/delegate helper :: {LONG} 2").run
    assert model.inside.acquire(timeout=30) and model.inside.acquire(timeout=30)
    running = machine.sfn.list_executions(stateMachineArn=machine.arn, statusFilter="RUNNING")["executions"]
    assert len(running) == 3
    # When alice cancels the root, and the children's model calls then return
    answer = cancel_run(world.deps, Caller(user_id="alice"), root.run_id)
    model.gate.set()
    machine.settle()
    # Then the root and both children are cancelled, with a cancelled event and an audit record each
    tree = [world.deps.runs.get_run(run_id) for run_id in [root.run_id, *root.children]]
    assert [r.status for r in tree if r is not None] == [RunStatus.CANCELLED] * 3
    assert sorted(answer["cancelled"]) == sorted([root.run_id, *root.children])
    for member in tree:
        assert member is not None and member.output is None
        assert "cancelled" in [e.type for e in world.deps.runs.list_events(member.run_id)]
    assert len(world.deps.audit.query("alice", action="cancel").records) == 3
    # And no execution is running, nothing was queued for memory, no chat turn was stored
    assert machine.sfn.list_executions(stateMachineArn=machine.arn, statusFilter="RUNNING")["executions"] == []
    assert answer["stopped_executions"] >= 1  # the root's; stopping it may end its children's first
    assert world.queue.jobs == []
    chat = world.deps.chats.get_chat("alice", root.chat_id or "")
    assert chat is None or chat.messages == []


def test_a_tree_that_is_not_cancelled_writes_its_memories(gated) -> None:
    # the same tree, left alone: what the cancel prevents does happen otherwise
    machine, model = gated
    world = machine.world
    add_agent(world, "helper", memory_policy=WRITES)
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"], memory_policy=WRITES)
    root = run(world, f"/delegate helper :: {LONG} 1\n/delegate helper :: {LONG} 2").run
    model.gate.set()
    finished = machine.wait(root.run_id)
    assert finished.status is RunStatus.SUCCEEDED
    assert len(world.queue.jobs) >= 4  # each child's input and output, and the root's output
