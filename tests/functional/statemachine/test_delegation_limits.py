"""Delegation under limits, over the real agent-run ASL under moto (issue 15.4, 15.5): a tree budget of 3 runs
against five parallel delegations, and what an ``isolated`` child is sent."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.models.agent import DelegateEntry
from mneme.models.budget import Budget
from mneme.models.run import RunStatus
from mneme.ports.models import ModelResponse
from tests.functional.engine.conftest import add_agent, run
from tests.functional.statemachine.conftest import start_machine


class Recording(OfflineModel):
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        self.requests.append(request)
        return super().converse(request, timeout_seconds=timeout_seconds)


def test_max_runs_3_and_five_parallel_delegations_start_two_children_and_the_model_learns_why() -> None:
    for machine in start_machine(OfflineModel()):
        world = machine.world
        add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
        add_agent(world, "b")
        text = "\n".join(f"/delegate b :: job {i}" for i in range(5))
        # When the master delegates five jobs at once under a budget of 3 runs
        master = machine.wait(run(world, text, budget=Budget(max_runs=3)).run.run_id)
        # Then exactly two children ran (three executions in all), and the answer holds the refusals
        assert master.status is RunStatus.SUCCEEDED
        assert len(master.children) == 2 and len(machine.executions()) == 3
        assert (master.output or "").count("budget_exceeded: max_runs") == 3
        assert (master.output or "").count("offline: job") == 2
        usage = world.deps.ledger.read(master.run_id)
        assert usage is not None and (usage.runs, usage.active) == (3, 0)


def _child_request(model: Recording, text: str) -> dict[str, Any]:
    """The child's first request: its current message's last text block is the delegation input."""

    def current(request: dict[str, Any]) -> str:
        blocks = [b["text"] for b in request["messages"][-1]["content"] if "text" in b]
        return blocks[-1] if blocks else ""

    return next(r for r in model.requests if current(r).startswith(text))


def _first_turn(world: Any, chat: str) -> None:
    run(world, "An earlier question about the budget of project Apollo.", chat_id=chat, agent_id="plain")


def test_an_isolated_child_is_sent_only_the_delegation_input() -> None:
    model = Recording()
    for machine in start_machine(model):
        world = machine.world
        add_agent(world, "plain")
        add_agent(
            world,
            "master",
            tools=["delegate-to-agent"],
            delegates=[DelegateEntry(agent="b", context="isolated")],
        )
        add_agent(world, "b")
        _first_turn(world, "chat1")
        # When the master (in a chat with history) delegates to b, whose entry says isolated
        master = machine.wait(run(world, "/delegate b :: the isolated job", chat_id="chat1").run.run_id)
        # Then b's model was sent one message: the delegation input (with its date suffix) and nothing else
        assert master.status is RunStatus.SUCCEEDED
        messages = _child_request(model, "the isolated job")["messages"]
        assert len(messages) == 1 and messages[0]["role"] == "user"
        texts = [block["text"] for block in messages[0]["content"] if "text" in block]
        assert texts[0].startswith("the isolated job")
        assert "Apollo" not in str(messages) and "/delegate" not in str(messages)


def test_a_full_child_gets_the_parents_history() -> None:
    model = Recording()
    for machine in start_machine(model):
        world = machine.world
        add_agent(world, "plain")
        add_agent(world, "master", tools=["delegate-to-agent"], delegates=["b"])
        add_agent(world, "b")
        _first_turn(world, "chat1")
        machine.wait(run(world, "/delegate b :: the full job", chat_id="chat1").run.run_id)
        messages = _child_request(model, "the full job")["messages"]
        assert "project Apollo" in str(messages) and len(messages) > 1
