"""One time budget (issues 12.9 and 11.5): the fast path checks what is left before every blocking call and
hands off in time, so ``POST /v1/runs`` answers within 25 s with a run id; a state machine step's model call
gets the window that fits the function timeout.

Time is simulated: the world's monotonic clock only moves when a stand-in "takes" time (a model call, a
memory search), so every figure here is the budget's accounting, not a measurement of this machine.
"""

from __future__ import annotations

from typing import Any

from mneme.engine.runs.service import step
from mneme.models.agent import Agent
from mneme.models.run import RunStatus
from mneme.ports.models import ModelResponse
from tests.fakes.model import text_response, tool_use_response
from tests.functional.api.conftest import Api
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER
from tests.support.deps import World, make_world

API_ANSWER_SECONDS = 25.0  # the promise: POST /v1/runs answers within 25 s (mneme.spec_limits.API_ANSWER_SECONDS)


class SimulatedTime:
    """The monotonic clock of one world, moved by the stand-ins."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


class SlowModel:
    """A model stand-in: each call takes the next duration; a call that would take longer than its timeout
    ends at the timeout with ModelTimedOut, as the Bedrock adapter's read timeout does."""

    def __init__(self, time: SimulatedTime, script: list[tuple[float, ModelResponse]]) -> None:
        self.time = time
        self.script = script
        self.timeouts: list[float | None] = []

    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        self.timeouts.append(timeout_seconds)
        duration, response = self.script.pop(0)
        if timeout_seconds is not None and duration > timeout_seconds:
            from mneme.errors import ModelTimedOut  # what the Bedrock adapter raises on a read timeout

            self.time.spend(timeout_seconds)
            self.script.insert(0, (duration, response))  # the state machine's step asks again
            raise ModelTimedOut(f"no answer within {timeout_seconds:.0f} s")
        self.time.spend(duration)
        return response


class SlowSearches:
    """The memory store, each search taking ``seconds`` of simulated time."""

    def __init__(self, inner: Any, time: SimulatedTime, seconds: float) -> None:
        self.inner, self.time, self.seconds = inner, time, seconds
        self.count = 0

    def search(self, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        self.time.spend(self.seconds)
        return self.inner.search(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _world(label: str, model: Any, time: SimulatedTime) -> World:
    world = LEDGER.world(label, make_world(model))
    world.deps.monotonic = time
    world.deps.config.put_agent(
        Agent(
            agent_id="searcher",
            owner="alice",
            label="Searcher",
            tools=["memory-search"],
            memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"], "auto_read_enabled": False},
        )
    )
    return world


def _answered_within(time: SimulatedTime, reply: Any) -> float:
    """The simulated time the answer took; it names a run."""
    assert reply.status in (200, 202) and reply.body["run_id"], reply.text
    return time.now


def test_fifty_slow_searches_in_one_turn_hand_off_before_the_api_gives_up(figures: Figures) -> None:
    # Given one model turn that asks for 50 searches, each taking 0.6 s (30 s in all: over the API's 29 s)
    time = SimulatedTime()
    calls = [("memory-search", {"query": f"question number {n}"}) for n in range(50)]
    model = SlowModel(time, [(1.0, tool_use_response(*calls)), (1.0, text_response("all answered"))])
    world = _world("12.9 searches", model, time)
    searches = SlowSearches(world.deps.memory, time, 0.6)
    world.deps.memory = searches
    # When the run is started over the API
    reply = Api(world).post("/v1/runs", {"agent_id": "searcher", "input": "fifty questions"})
    elapsed = _answered_within(time, reply)
    # Then it was handed off in time, with a run id, and the searches it had no time for wait in the checkpoint
    assert reply.status == 202 and elapsed <= API_ANSWER_SECONDS
    on_fast_path = searches.count
    assert 0 < on_fast_path < 50
    figures.set(
        "budget: 50 searches x 0.6 s, answer after (simulated)", f"{elapsed:.1f} s, {on_fast_path} on the fast path"
    )
    # And the state machine's step runs the others, in order, and the model answers from all 50 results
    done = step(world.deps, reply.body["run_id"])
    assert (done.outcome, done.run.status, done.run.output) == ("done", RunStatus.SUCCEEDED, "all answered")
    assert searches.count == 50
    results = model_results(world, done.run.run_id)
    assert [r["toolResult"]["toolUseId"] for r in results] == [f"call-{n}-memory-search" for n in range(1, 51)]


def model_results(world: World, run_id: str) -> list[dict[str, Any]]:
    last = world.deps.runs.list_requests(run_id)[-1]
    return [block for block in last["messages"][-1]["content"] if "toolResult" in block]


def test_a_slow_model_call_gets_the_time_left_and_hands_off_when_it_runs_out(figures: Figures) -> None:
    # Given a model whose first answer takes 8 s and whose second would take 25 s
    time = SimulatedTime()
    turn = tool_use_response(("memory-search", {"query": "what is due"}))
    model = SlowModel(time, [(8.0, turn), (25.0, text_response("a long answer"))])
    world = _world("12.9 slow model", model, time)
    # When the run starts
    reply = Api(world).post("/v1/runs", {"agent_id": "searcher", "input": "a long job"})
    elapsed = _answered_within(time, reply)
    # Then the second call was given only what the 20 s budget had left, timed out there, and the run went on
    # in the state machine: answered at 20 s with the run id
    assert model.timeouts == [20.0, 12.0]
    assert reply.status == 202 and elapsed == 20.0
    figures.set("budget: model 8 s then 25 s, answer after (simulated)", f"{elapsed:.1f} s (202, run id)")
    # And the step gives the call a state machine step's window (90 s): it finishes the run
    done = step(world.deps, reply.body["run_id"])
    assert model.timeouts[-1] == 90.0
    assert (done.run.status, done.run.output) == (RunStatus.SUCCEEDED, "a long answer")


def test_a_step_starts_a_model_call_only_when_its_whole_window_fits(figures: Figures) -> None:
    # Given a run in the state machine whose model takes 50 s for a turn of tool calls, then answers
    time = SimulatedTime()
    turn = tool_use_response(("memory-search", {"query": "long"}))
    model = SlowModel(time, [(50.0, turn), (5.0, text_response("done"))])
    world = _world("12.9 step window", model, time)
    reply = Api(world).post("/v1/runs", {"agent_id": "searcher", "input": "x"}, headers={})
    assert reply.status == 202  # the first call does not fit the fast path's 20 s: it timed out there
    # When a step runs it
    first = step(world.deps, reply.body["run_id"])
    # Then the step made the 50 s call (a 90 s window), then had 60 s of its 110 s left: too little for another
    # 90 s window, so it ended with "continue" — its invocation never outlives the 120 s function timeout
    assert model.timeouts[-1] == 90.0 and first.outcome == "continue"
    second = step(world.deps, reply.body["run_id"])
    assert second.run.status is RunStatus.SUCCEEDED and model.timeouts[-1] == 90.0
    figures.add("budget step windows checked")


def test_a_read_timeout_inside_a_step_fails_the_run_and_is_not_retried() -> None:
    time = SimulatedTime()
    model = SlowModel(time, [(500.0, text_response("never"))])
    world = _world("12.9 step timeout", model, time)
    reply = Api(world).post("/v1/runs", {"agent_id": "searcher", "input": "x"})
    assert reply.status == 202
    done = step(world.deps, reply.body["run_id"])
    assert done.run.status is RunStatus.FAILED and "ModelTimedOut" in (done.run.error or "")
    assert model.timeouts == [20.0, 90.0]  # the fast path's try, then one call in the step: no retries


def test_max_tokens_is_checked_against_a_model_calls_window_at_put() -> None:
    api = Api(LEDGER.world("12.9 max_tokens", make_world(SlowModel(SimulatedTime(), []))))
    bedrock = {"provider": "bedrock", "model_id": "anthropic.claude-sonnet-4-5-20250929-v1:0"}
    # a generation no model can finish within 90 s is refused, naming the field
    refused = api.put("/v1/agents/long", {"label": "Long", "model": {**bedrock, "inference": {"max_tokens": 64_000}}})
    assert (refused.status, refused.body["field"]) == (400, "model.inference.max_tokens")
    # one a slow model may not finish is saved with a warning; a short one without
    slow = api.put("/v1/agents/mid", {"label": "Mid", "model": {**bedrock, "inference": {"max_tokens": 8_000}}})
    assert slow.status == 200 and any("max_tokens 8000" in w for w in slow.body["warnings"])
    short = api.put("/v1/agents/short", {"label": "Short", "model": {**bedrock, "inference": {"max_tokens": 1_000}}})
    assert short.status == 200 and not any("max_tokens" in w for w in short.body["warnings"])
