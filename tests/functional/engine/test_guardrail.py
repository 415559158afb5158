"""A Bedrock guardrail named by the agent (issue 16): sent as ``guardrailConfig``; an intervention ends the
run failed with a ``guardrail_intervened`` event, and nothing of the exchange reaches memory or the chat."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.bedrock import BedrockModel
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.test_reasoning import Bedrock, converse_reply
from tests.support.deps import World, make_world

GUARDRAIL = {"id": "gr7x2k9q1abc", "version": "3", "trace": "enabled"}
BLOCKED_MESSAGE = "Sorry, I can't help with that."
LONG_INPUT = "Please tell me, in a lot of detail, how I would go about a thing that the guardrail blocks entirely."


@pytest.fixture
def bedrock() -> Bedrock:
    return Bedrock()


@pytest.fixture
def guarded(bedrock: Bedrock) -> World:
    world = make_world(BedrockModel(bedrock.client))
    add_agent(
        world,
        model={"provider": "bedrock", "model_id": "amazon.nova-lite-v1:0", "guardrail": GUARDRAIL},
        memory_policy={"allow_write": True},
    )
    return world


def intervened() -> dict[str, Any]:
    trace = {"guardrail": {"actionReason": "Guardrail blocked.", "modelOutput": [BLOCKED_MESSAGE]}}
    return converse_reply([{"text": BLOCKED_MESSAGE}], "guardrail_intervened", trace=trace)


def test_the_guardrail_is_sent_with_every_model_call(guarded, bedrock) -> None:
    bedrock.reply(converse_reply([{"text": "fine"}], "end_turn"))
    with bedrock.stub:
        result = run(guarded, LONG_INPUT)
    assert bedrock.sent[0]["guardrailConfig"] == {
        "guardrailIdentifier": "gr7x2k9q1abc",
        "guardrailVersion": "3",
        "trace": "enabled",
    }
    assert result.run.status is RunStatus.SUCCEEDED
    assert len(guarded.queue.jobs) == 2  # without an intervention the exchange is remembered


def test_an_intervention_fails_the_run_with_a_clear_event(guarded, bedrock) -> None:
    bedrock.reply(intervened())
    with bedrock.stub:
        result = run(guarded, LONG_INPUT)
    run_ = result.run
    assert run_.status is RunStatus.FAILED and run_.output is None
    assert run_.error is not None and run_.error.startswith("guardrail_intervened")
    events = guarded.deps.runs.list_events(run_.run_id)
    blocked = [e.data for e in events if e.type == "guardrail_intervened"]
    assert blocked == [
        {"request_seq": 1, "guardrail_id": "gr7x2k9q1abc", "guardrail_version": "3", "message": BLOCKED_MESSAGE}
    ]
    assert [e.type for e in events][-2:] == ["error", "completed"]


def test_an_intervention_writes_nothing_to_memory_or_to_the_chat(guarded, bedrock) -> None:
    bedrock.reply(intervened())
    with bedrock.stub:
        result = run(guarded, LONG_INPUT)
    assert guarded.queue.jobs == []
    assert not any(e.type == "memory_write_queued" for e in guarded.deps.runs.list_events(result.run.run_id))
    chat = guarded.deps.chats.get_chat("alice", result.run.chat_id or "")
    assert chat is None or chat.messages == []
