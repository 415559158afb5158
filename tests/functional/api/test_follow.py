"""Following a run (issue 15.1): ``GET /v1/runs/{id}/events?after=&wait=&tree=`` long-polls through the
handler — it answers at the first new event, waits with back-off (the reads are counted), and follows a
whole delegation tree with a tree cursor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mneme.models.run import RunEvent
from tests.functional.api.conftest import Api, add_agent
from tests.functional.api.run_support import events_of, start, step_event
from tests.support.deps import World


class Time:
    """A fake monotonic clock whose sleep advances it, with a hook run at a chosen sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.hooks: dict[int, Callable[[], None]] = {}

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        hook = self.hooks.pop(len(self.sleeps), None)
        if hook is not None:
            hook()


class CountingRuns:
    """The run store, counting the event reads (one Query each, however many events they return)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.event_reads = 0

    def iter_events(self, run_id: str, *, after: int | None = None) -> Any:
        self.event_reads += 1
        return self.inner.iter_events(run_id, after=after)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def clock(world: World) -> Time:
    time = Time()
    world.deps.monotonic, world.deps.sleep = time.monotonic, time.sleep
    return time


@pytest.fixture
def reads(world: World) -> CountingRuns:
    counting = CountingRuns(world.deps.runs)
    world.deps.runs = counting
    return counting


def _waiting_run(api: Api, world: World) -> tuple[str, int]:
    """A run that waits for an approval, and the seq of its last event."""
    add_agent(world, "master", tools=["memory-search"])
    run_id = start(api, "/search cats", tool_approval="prompt")["run_id"]
    return run_id, events_of(api, run_id)[-1]["seq"]


def _append(world: World, run_id: str, seq: int) -> Callable[[], None]:
    def append() -> None:
        event = RunEvent(seq=seq, type="warning", at=world.clock.now(), data={"message": "something happened"})
        world.deps.runs.append_events(run_id, [event])

    return append


def test_a_long_poll_answers_as_soon_as_the_next_event_exists(api: Api, world: World, clock: Time) -> None:
    # Given a waiting run, and an event that is written during the third pause
    run_id, last = _waiting_run(api, world)
    clock.hooks[3] = _append(world, run_id, last + 1)
    # When a client follows after its last event, willing to wait 20 s
    reply = api.get(f"/v1/runs/{run_id}/events", query={"after": str(last), "wait": "20"})
    # Then the answer is the new event, right after the read that found it (not after 20 s)
    assert reply.status == 200
    assert [e["seq"] for e in reply.body["events"]] == [last + 1]
    assert len(clock.sleeps) == 3 and sum(clock.sleeps) < 1.5


def test_a_long_poll_with_nothing_new_answers_empty_after_the_wait(
    api: Api, world: World, clock: Time, reads: CountingRuns
) -> None:
    run_id, last = _waiting_run(api, world)
    reads.event_reads = 0
    reply = api.get(f"/v1/runs/{run_id}/events", query={"after": str(last), "wait": "20"})
    assert reply.status == 200 and reply.body == {"events": [], "cursor": None}
    # it waited the whole 20 s, sleeping between reads: never more than one read per 0.5 s on average
    assert sum(clock.sleeps) == pytest.approx(20.0)
    assert reads.event_reads <= 20 / 0.5
    assert reads.event_reads == len(clock.sleeps) + 1 == 24  # the figure README.md states
    assert min(clock.sleeps) >= 0.2  # never spinning


def test_without_wait_it_answers_at_once(api: Api, world: World, clock: Time) -> None:
    run_id, last = _waiting_run(api, world)
    reply = api.get(f"/v1/runs/{run_id}/events", query={"after": str(last)})
    assert reply.body["events"] == [] and clock.sleeps == []


def test_a_finished_run_answers_at_once_even_with_wait(api: Api, world: World, clock: Time) -> None:
    add_agent(world, "master")
    run_id = start(api, "hello")["run_id"]
    last = events_of(api, run_id)[-1]["seq"]
    reply = api.get(f"/v1/runs/{run_id}/events", query={"after": str(last), "wait": "20"})
    assert reply.body["events"] == [] and clock.sleeps == []


def test_wait_above_20_seconds_is_refused(api: Api, world: World) -> None:
    run_id, _ = _waiting_run(api, world)
    reply = api.get(f"/v1/runs/{run_id}/events", query={"wait": "21"})
    assert reply.status == 400 and reply.body["field"] == "wait"


@pytest.mark.parametrize("wait", ["nan", "inf", "-inf", "1e999"])
def test_a_wait_that_is_no_finite_number_is_refused_as_such(api: Api, world: World, wait: str) -> None:
    run_id, _ = _waiting_run(api, world)
    reply = api.get(f"/v1/runs/{run_id}/events", query={"wait": wait})
    assert (reply.status, reply.body["field"]) == (400, "wait")
    assert "finite number" in reply.body["message"]


def test_another_users_run_cannot_be_followed(api: Api, world: World, clock: Time) -> None:
    run_id, _ = _waiting_run(api, world)
    assert api.get(f"/v1/runs/{run_id}/events", query={"wait": "5"}, user="bob").status == 404
    assert api.get(f"/v1/runs/{run_id}/events", query={"tree": "true"}, user="bob").status == 404
    assert clock.sleeps == []


# ------------------------------------------------------------------------------------------------- tree
def _tree(api: Api, world: World) -> tuple[str, str]:
    add_agent(world, "helper")
    add_agent(world, "master", tools=["delegate-to-agent"], delegates=["helper"])
    root = start(api, "/delegate helper :: look it up")["run_id"]
    (child,) = api.get(f"/v1/runs/{root}").body["children"]
    return root, child


def test_tree_events_are_tagged_with_their_run_and_depth(api: Api, world: World) -> None:
    root, child = _tree(api, world)
    world.clock.advance(seconds=1)
    step_event(api, child, depth=1)
    events = api.get(f"/v1/runs/{root}/events", query={"tree": "true"}).body["events"]
    assert {(e["run_id"], e["run_depth"]) for e in events} == {(root, 0), (child, 1)}
    # a delegation event keeps its own depth, its child's (SPEC §10), as without tree=true
    started = next(e for e in events if e["type"] == "delegation_started")
    alone = api.get(f"/v1/runs/{root}/events").body["events"]
    assert (started["run_id"], started["run_depth"], started["depth"]) == (root, 0, 1)
    assert started["depth"] == next(e for e in alone if e["type"] == "delegation_started")["depth"]
    assert all(e["depth"] == e["run_depth"] for e in events if not e["type"].startswith("delegation_"))
    # ordered by time: the root's events of the first step come before the child's, each run in seq order
    assert [e["run_id"] for e in events].index(child) > max(i for i, e in enumerate(events) if e["run_id"] == root)
    for run_id in (root, child):
        seqs = [e["seq"] for e in events if e["run_id"] == run_id]
        assert seqs == sorted(seqs)


def test_the_tree_cursor_continues_where_the_last_answer_stopped(api: Api, world: World) -> None:
    root, child = _tree(api, world)
    first = api.get(f"/v1/runs/{root}/events", query={"tree": "true"}).body
    assert {e["run_id"] for e in first["events"]} == {root}
    step_event(api, child, depth=1)
    second = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "cursor": first["cursor"]}).body
    assert second["events"] and {e["run_id"] for e in second["events"]} == {child}
    third = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "cursor": second["cursor"]}).body
    assert third["events"] == []


def test_a_tree_long_poll_returns_the_next_event_of_a_child(api: Api, world: World, clock: Time) -> None:
    # Given the tree read so far, and the child's step running during the second pause
    root, child = _tree(api, world)
    cursor = api.get(f"/v1/runs/{root}/events", query={"tree": "true"}).body["cursor"]

    def run_child() -> None:
        step_event(api, child, depth=1)

    clock.hooks[2] = run_child
    # When the client follows the tree
    reply = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "cursor": cursor, "wait": "20"})
    # Then it answers with the child's events, after two pauses
    assert {e["run_id"] for e in reply.body["events"]} == {child}
    assert len(clock.sleeps) == 2


def test_a_limit_pages_the_tree_without_losing_events(api: Api, world: World) -> None:
    root, child = _tree(api, world)
    step_event(api, child, depth=1)
    everything = api.get(f"/v1/runs/{root}/events", query={"tree": "true"}).body["events"]
    seen: list[tuple[str, int]] = []
    cursor = None
    for _ in range(len(everything)):
        query = {"tree": "true", "limit": "2", **({"cursor": cursor} if cursor else {})}
        page = api.get(f"/v1/runs/{root}/events", query=query).body
        seen += [(e["run_id"], e["seq"]) for e in page["events"]]
        cursor = page["cursor"]
    assert seen == [(e["run_id"], e["seq"]) for e in everything]


@pytest.mark.parametrize("cursor", ["not-base64!", "eyJhIjogLTF9", "W10", "x" * 5000])
def test_a_malformed_tree_cursor_is_a_400(api: Api, world: World, cursor: str) -> None:
    root, _ = _tree(api, world)
    reply = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "cursor": cursor})
    assert reply.status == 400 and reply.body["field"] == "cursor"


def test_after_is_not_a_tree_position(api: Api, world: World) -> None:
    root, _ = _tree(api, world)
    reply = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "after": "3"})
    assert reply.status == 400 and reply.body["field"] == "after"


def test_a_tree_cursor_naming_another_users_run_reads_nothing_of_it(api: Api, world: World) -> None:
    from mneme.engine.views.follow import encode_tree_cursor

    root, _ = _tree(api, world)
    add_agent(world, "master", owner="bob")
    bob_run = api.post("/v1/runs", {"agent_id": "master", "input": "secret"}, user="bob").body["run_id"]
    cursor = encode_tree_cursor({bob_run: 1})
    events = api.get(f"/v1/runs/{root}/events", query={"tree": "true", "cursor": cursor}).body["events"]
    assert {e["run_id"] for e in events} == {root}
