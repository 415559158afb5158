"""Measure 7 — peer comparison: one scripted delegated conversation through mneme's core and through the
Strands Agents SDK, framework overhead per turn side by side.

The conversation: TURNS user messages in one chat; in each, the master's model asks to delegate to a
specialist, the specialist's model answers, the master's model answers the user — three model calls per
turn. Both frameworks get stub models that return these turns instantly, so the wall time is the
framework's own overhead.

* mneme: ``start_run`` → the run hands off (``delegate``) → ``step`` of the child → ``step`` of the master,
  over in-memory fakes of the stores (``tests.support.deps.make_world``), i.e. what the run function does in
  its invocations minus the AWS round trips (those are measure 3).
* Strands: ``Agent(model=stub, tools=[specialist])`` where ``specialist`` is a ``@tool`` that calls a second
  ``Agent`` (the SDK's agent-as-tool pattern); no callback handler (no printing).

Measured alternately, REPEATS fresh conversations each; median per turn. Needs ``strands-agents``
(requirements/bench.txt); without it the measure is skipped with a message.
Run: ``.venv/bin/python bench/peer_strands.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Skip, header, median, use_repo_paths, verdict

use_repo_paths()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

TURNS, REPEATS = 10, 15
ANSWER = "Green tea has less caffeine than coffee and is rich in antioxidants. "


def user_text(turn: int) -> str:
    return f"Turn {turn}: ask the specialist what they know about green tea, then summarise."


# ------------------------------------------------------------------------------------------- mneme
def mneme_conversation() -> float:
    from tests.fakes.model import text_response, tool_use_response
    from tests.functional.engine.conftest import run
    from tests.support.deps import make_world

    from mneme import observability
    from mneme.engine.runs import service
    from mneme.models.agent import Agent

    def reply(request: dict[str, Any]) -> Any:
        system = " ".join(b.get("text", "") for b in request.get("system", []))
        if "specialist" in system.lower():
            return text_response("specialist: " + ANSWER)
        last = request["messages"][-1]["content"]
        if any("toolResult" in block for block in last):
            return text_response("master: " + ANSWER)
        ids.append(f"call-{len(ids)}")  # a real model never repeats a toolUseId within a chat
        return tool_use_response(
            ("delegate-to-agent", {"agent": "specialist", "input": "What about green tea?"}, ids[-1])
        )

    class StubModel:
        """Like the Strands stub: answers at once and records nothing (ScriptedModel deep-copies every
        request for tests, which is the fake's cost, not the framework's)."""

        calls = 0

        def converse(self, request: dict[str, Any], **options: Any) -> Any:
            StubModel.calls += 1
            return reply(request)

    ids: list[str] = []
    model = StubModel()
    world = make_world(model, memory=False)
    world.deps.config.put_agent(
        Agent(agent_id="master", owner="alice", label="Master", tools=["delegate-to-agent"], delegates=["specialist"])
    )
    world.deps.config.put_agent(Agent(agent_id="specialist", owner="alice", label="Specialist"))
    chat_id = None
    start = time.perf_counter()
    for turn in range(TURNS):
        observability.start_invocation()  # as the handler does around each invocation (EMF flushed at the end)
        result = run(world, user_text(turn), chat_id=chat_id)
        chat_id = result.run.chat_id
        assert result.outcome == "delegate", result.outcome
        for child in result.children:
            assert service.step(world.deps, child["run_id"]).outcome == "done"
        final = service.step(world.deps, result.run.run_id)
        assert final.outcome == "done" and "master:" in (final.run.output or ""), final.run
        observability.end_invocation()
    elapsed = time.perf_counter() - start
    assert model.calls == 3 * TURNS, model.calls
    return elapsed / TURNS


# ------------------------------------------------------------------------------------------- Strands
def strands_conversation() -> float:
    from strands import Agent, tool
    from strands.models.model import Model

    class StubModel(Model):
        """Returns the scripted turn as Bedrock-shaped stream events, instantly."""

        def __init__(self, role: str) -> None:
            self.role = role
            self.calls = 0

        def update_config(self, **model_config: Any) -> None:
            pass

        def get_config(self) -> Any:
            return {}

        def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise TypeError("the benchmark's stub model answers scripted turns only, no structured output")

        async def stream(
            self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **_: Any
        ) -> AsyncIterator[Any]:
            self.calls += 1
            last = messages[-1]["content"]
            yield {"messageStart": {"role": "assistant"}}
            if self.role == "master" and not any("toolResult" in block for block in last):
                tool_input = json.dumps({"query": "What about green tea?"})
                yield {
                    "contentBlockStart": {"start": {"toolUse": {"toolUseId": f"t{self.calls}", "name": "specialist"}}}
                }
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": tool_input}}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "tool_use"}}
            else:
                yield {"contentBlockDelta": {"delta": {"text": f"{self.role}: " + ANSWER}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "end_turn"}}
            usage = {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120}
            yield {"metadata": {"usage": usage, "metrics": {"latencyMs": 0}}}

    sub_model = StubModel("specialist")

    @tool
    def specialist(query: str) -> str:
        """Ask the specialist agent.

        Args:
            query: the question for the specialist
        """
        sub = Agent(model=sub_model, system_prompt="You are the Specialist.", callback_handler=None)
        return str(sub(query))

    master_model = StubModel("master")
    master = Agent(model=master_model, system_prompt="You are the Master.", tools=[specialist], callback_handler=None)
    start = time.perf_counter()
    for turn in range(TURNS):
        answer = str(master(user_text(turn)))
        assert "master:" in answer, answer
    elapsed = time.perf_counter() - start
    assert master_model.calls + sub_model.calls == 3 * TURNS
    return elapsed / TURNS


def main() -> dict[str, float]:
    header(f"peer comparison: delegated conversation, {TURNS} turns × 3 model calls, {REPEATS} repeats each")
    try:
        import strands  # noqa: F401
    except ImportError:
        raise Skip("strands-agents is not installed (pip install -r requirements/bench.txt)") from None
    samples: dict[str, list[float]] = {"mneme": [], "strands": []}
    with Path(os.devnull).open("w") as sink, contextlib.redirect_stdout(sink):  # EMF metric lines go to stdout
        mneme_conversation()  # warm both (imports, caches)
        strands_conversation()
        for _ in range(REPEATS):
            samples["mneme"].append(mneme_conversation())
            samples["strands"].append(strands_conversation())
    m, s = median(samples["mneme"]), median(samples["strands"])
    print(f"  mneme core (engine + in-memory stores): {m * 1000:8.2f} ms per turn (median)")
    print(f"  Strands Agents (agent + agent-as-tool): {s * 1000:8.2f} ms per turn (median)")
    print(f"  ratio mneme / Strands: {m / s:.2f}× → goal ≤ 0.5×: {verdict(m / s <= 0.5)}")
    return {"mneme_ms": m * 1000, "strands_ms": s * 1000, "ratio": m / s}


def bench(full: bool) -> dict[str, float]:
    return main()


if __name__ == "__main__":
    main()
