"""Cost per run and per delegation tree (issue 16): every model call is priced by one table; a run's
``usage.cost_usd`` is its own calls (summary included), ``tree_usage.cost_usd`` adds its children's trees."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme import observability
from mneme.adapters.models.summarizer import ModelSummarizer
from mneme.engine.runs.service import step
from mneme.models.chat import Chat, TextMessage
from mneme.models.pricing import DEFAULT_PRICES
from mneme.models.run import Usage
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.fakes.summarizer import FakeSummarizer
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world

SONNET = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
HAIKU = "anthropic.claude-haiku-4-5-20251001-v1:0"
BIG = Usage(input_tokens=1200, output_tokens=300, cache_read_tokens=4000, cache_write_tokens=800)
SMALL = Usage(input_tokens=500, output_tokens=50)


def model_calls(world: World, run_id: str) -> list[dict[str, Any]]:
    return [e.data for e in world.deps.runs.list_events(run_id) if e.type == "model_call"]


def test_a_call_is_priced_by_the_table() -> None:
    world = make_world(ScriptedModel([text_response("hi", usage=BIG)]))
    add_agent(world, model={"provider": "bedrock", "model_id": SONNET})
    result = run(world, "hello")
    price = DEFAULT_PRICES["anthropic.claude-sonnet-4"]
    expected = (1200 * price.input + 300 * price.output + 4000 * price.cache_read + 800 * price.cache_write) / 1000
    assert result.run.usage.cost_usd == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(0.0036 + 0.0045 + 0.0012 + 0.003)  # $3 / $15 / $0.30 / $3.75 per million
    assert model_calls(world, result.run.run_id)[0]["usage"]["cost_usd"] == result.run.usage.cost_usd


def test_the_cost_of_a_delegated_tree_is_the_sum_of_its_model_calls() -> None:
    # Given a master on Sonnet delegating to a helper on Haiku, both with usage
    model = ScriptedModel(
        [
            tool_use_response(("delegate-to-agent", {"agent": "helper", "input": "draft it"}), usage=BIG),
            text_response("draft", usage=SMALL),  # the helper
            text_response("final", usage=BIG),  # the master, after the helper's result
        ]
    )
    world = make_world(model)
    add_agent(
        world, tools=["delegate-to-agent"], delegates=["helper"], model={"provider": "bedrock", "model_id": SONNET}
    )
    add_agent(world, "helper", model={"provider": "bedrock", "model_id": HAIKU})
    # When the tree runs to the end
    started = run(world, "have the helper draft it")
    child_id = started.children[0]["run_id"]
    step(world.deps, child_id)
    master = step(world.deps, started.run.run_id).run
    child = world.deps.runs.get_run(child_id)
    assert child is not None and master.status.value == "succeeded"
    # Then the tree's cost is exactly the sum of every model call of both runs
    calls = model_calls(world, master.run_id) + model_calls(world, child_id)
    assert len(calls) == 3
    assert master.tree_usage.cost_usd == pytest.approx(sum(c["usage"]["cost_usd"] for c in calls), rel=1e-12)
    assert master.usage.cost_usd == pytest.approx(
        sum(c["usage"]["cost_usd"] for c in model_calls(world, master.run_id))
    )
    assert master.tree_usage.cost_usd == pytest.approx(master.usage.cost_usd + child.tree_usage.cost_usd, rel=1e-12)
    assert child.usage.cost_usd == pytest.approx((500 * 0.001 + 50 * 0.005) / 1000)
    assert master.tree_usage.input_tokens == 1200 + 500 + 1200


def test_the_summary_call_is_counted_on_the_run() -> None:
    # Given a chat long enough for a rolling summary, and a summarizer that used tokens
    world = make_world(ScriptedModel([text_response("ok", usage=SMALL)]), MNEME_SUMMARY_TRIGGER_MESSAGES="2")
    world.deps.summarizer = FakeSummarizer(
        usage=Usage(input_tokens=2000, output_tokens=200), model_id="amazon.nova-lite-v1:0"
    )
    add_agent(world, model={"provider": "bedrock", "model_id": HAIKU})
    now = world.clock.now()
    messages = [TextMessage(role=r, text=f"{r} {i}") for i in range(3) for r in ("user", "assistant")]
    world.deps.chats.create_chat(Chat(chat_id="c1", user_id="alice", created_at=now, updated_at=now, messages=messages))
    # When a run continues the chat
    result = run(world, "and now?", chat_id="c1")
    # Then the run's cost is the summary call plus the answer
    summary_cost = (2000 * 0.00006 + 200 * 0.00024) / 1000
    answer_cost = (500 * 0.001 + 50 * 0.005) / 1000
    assert result.run.usage.cost_usd == pytest.approx(summary_cost + answer_cost, rel=1e-9)
    calls = model_calls(world, result.run.run_id)
    assert [c.get("purpose") for c in calls] == ["summary", None]
    assert result.run.usage.input_tokens == 2500


def test_prices_can_be_overridden_by_a_setting() -> None:
    prices = json.dumps({"my-model": {"input": 1.0, "output": 2.0}})
    world = make_world(ScriptedModel([text_response("hi", usage=SMALL)]), MNEME_MODEL_PRICES=prices)
    add_agent(world, model={"provider": "openai-compatible", "model_id": "my-model"})
    assert run(world, "hello").run.usage.cost_usd == pytest.approx(0.5 + 0.1)


def test_a_model_without_a_price_costs_zero_and_says_so() -> None:
    world = make_world(ScriptedModel([text_response("hi", usage=SMALL)]))
    add_agent(world, model={"provider": "openai-compatible", "model_id": "mystery-7b"})
    result = run(world, "hello")
    assert result.run.usage.cost_usd == 0
    warnings = [e.data["message"] for e in world.deps.runs.list_events(result.run.run_id) if e.type == "warning"]
    assert any("no price for model 'mystery-7b'" in w for w in warnings)


def test_an_unpriced_model_says_so_also_after_the_summary_call() -> None:
    # Given a chat long enough for a rolling summary made by a priced model, and an agent on an unpriced one
    world = make_world(ScriptedModel([text_response("ok", usage=SMALL)]), MNEME_SUMMARY_TRIGGER_MESSAGES="2")
    summary_model = ScriptedModel([text_response("the summary", usage=SMALL)])
    world.deps.summarizer = ModelSummarizer(summary_model, HAIKU, provider="bedrock")
    add_agent(world, model={"provider": "openai-compatible", "model_id": "mystery-7b"})
    now = world.clock.now()
    messages = [TextMessage(role=r, text=f"{r} {i}") for i in range(3) for r in ("user", "assistant")]
    world.deps.chats.create_chat(Chat(chat_id="c1", user_id="alice", created_at=now, updated_at=now, messages=messages))
    # When a run continues the chat (the summary's request is the run's first)
    result = run(world, "and now?", chat_id="c1")
    # Then the run's own model is still named as unpriced
    assert [c.get("purpose") for c in model_calls(world, result.run.run_id)] == ["summary", None]
    warnings = [e.data["message"] for e in world.deps.runs.list_events(result.run.run_id) if e.type == "warning"]
    assert [w for w in warnings if "no price for model" in w] == [
        "no price for model 'mystery-7b': its calls count 0 USD (set MNEME_MODEL_PRICES)"
    ]


def test_the_cost_metric_has_the_agent_as_dimension_and_the_user_as_metadata(capsys) -> None:
    world = make_world(ScriptedModel([text_response("hi", usage=BIG)]))
    add_agent(world, model={"provider": "bedrock", "model_id": SONNET})
    capsys.readouterr()
    result = run(world, "hello")
    observability.metrics().clear_metrics()
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"CostUsd"' in line]
    assert len(records) == 1
    record = records[0]
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    assert sorted(directive["Dimensions"][0]) == ["agent_id", "service"]
    assert (record["agent_id"], record["user_id"], record["run_id"]) == ("master", "alice", result.run.run_id)
    assert record["CostUsd"] == [pytest.approx(result.run.usage.cost_usd)]
