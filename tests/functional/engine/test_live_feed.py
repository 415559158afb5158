"""What following costs a run (issue 15.2): nothing on the fast path (nobody can follow a run before its id is
answered), one listener check per model call and one push per commit in the state machine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs import service
from mneme.models.run import Run, RunEvent
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import make_world


class CountingFeed:
    def __init__(self, listening: bool) -> None:
        self.answer = listening
        self.checks = 0
        self.published: list[list[int]] = []
        self.deltas: list[str] = []

    def listening(self, run: Run) -> bool:
        self.checks += 1
        return self.answer

    def publish(self, run: Run, events: Sequence[RunEvent]) -> None:
        self.published.append([e.seq for e in events])

    def publish_delta(self, run: Run, request_seq: int, text: str) -> None:
        self.deltas.append(text)


def _world(feed: CountingFeed) -> Any:
    world = make_world(OfflineModel())
    world.deps.live = feed
    add_agent(world, "helper")
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"])
    return world


def test_the_fast_path_asks_nobody_and_pushes_nothing() -> None:
    feed = CountingFeed(listening=True)
    world = _world(feed)
    assert run(world, "hello", agent_id="helper").run.status.finished
    assert (feed.checks, feed.published, feed.deltas) == (0, [], [])


def test_a_state_machine_step_checks_once_per_model_call_and_pushes_its_commit() -> None:
    feed = CountingFeed(listening=True)
    world = _world(feed)
    root = run(world, "/delegate helper :: hi").run
    step = service.step(world.deps, root.children[0])
    stored = [e.seq for e in world.deps.runs.list_events(step.run.run_id)]
    assert feed.checks == 1  # the child made one model call
    assert [seq for batch in feed.published for seq in batch] == stored
    assert "".join(feed.deltas) == step.run.output


def test_without_listeners_the_model_call_is_not_streamed() -> None:
    feed = CountingFeed(listening=False)
    world = _world(feed)
    root = run(world, "/delegate helper :: hi").run
    service.step(world.deps, root.children[0])
    assert feed.checks == 1 and feed.deltas == []


def test_a_run_the_state_machine_fails_pushes_its_last_events() -> None:
    from mneme.runtime import Runtime

    feed = CountingFeed(listening=True)
    world = _world(feed)
    root = run(world, "/delegate helper :: hi").run
    child = root.children[0]
    Runtime(world.deps).handle({"action": "fail", "run_id": child, "error": {"Error": "Boom", "Cause": "x"}})
    kinds = [e.type for e in world.deps.runs.list_events(child)]
    assert kinds[-2:] == ["error", "completed"]
    assert [seq for batch in feed.published for seq in batch] == [e.seq for e in world.deps.runs.list_events(child)]
