"""Extended thinking in the tool loop (issue 16), against a real bedrock-runtime client (Stubber).

With thinking on, Bedrock rejects a tool result whose assistant turn lost its signed thinking block: every
reasoning block of the run's tool loop goes back verbatim and first in its assistant turn. Nothing else
(a later turn of the chat, a sub-agent's inherited history) replays a signed block.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from mneme.adapters.models.bedrock import BedrockModel, bedrock_client_config
from mneme.models.chat import ReasoningMessage
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world

MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"
REDACTED = b"\x00\x01encrypted-thinking\xff"
THINK_1 = {"reasoningText": {"text": "The user asks about tea; search memory first.", "signature": "sig-one=="}}
THINK_3 = {"reasoningText": {"text": "I have both results; answer now.", "signature": "sig-three=="}}
MODEL = {
    "provider": "bedrock",
    "model_id": MODEL_ID,
    "inference": {"max_tokens": 4096, "reasoning": {"budget_tokens": 2048}},
}


def converse_reply(content: list[dict[str, Any]], stop_reason: str, **extra: Any) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
        "metrics": {"latencyMs": 10},
        **extra,
    }


def search(call_id: str, query: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call_id, "name": "memory-search", "input": {"query": query}}}


class Bedrock:
    """A bedrock-runtime client whose Converse replies are stubbed and whose sent parameters are kept."""

    def __init__(self) -> None:
        self.client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(1))
        self.sent: list[dict[str, Any]] = []
        self.client.meta.events.register("before-parameter-build.bedrock-runtime.Converse", self._keep)
        self.stub = Stubber(self.client)

    def _keep(self, params: dict[str, Any], **_: Any) -> None:
        self.sent.append(copy.deepcopy(params))

    def reply(self, *replies: dict[str, Any]) -> Bedrock:
        for reply in replies:
            self.stub.add_response("converse", reply)
        return self


@pytest.fixture
def bedrock() -> Bedrock:
    return Bedrock()


@pytest.fixture
def thinking_world(bedrock: Bedrock) -> World:
    world = make_world(BedrockModel(bedrock.client))
    add_agent(
        world,
        tools=["memory-search", "delegate-to-agent"],
        delegates=["helper"],
        model=MODEL,
        memory_policy={"tool_read_namespaces": ["vector.user.${user_id}.*"]},
    )
    add_agent(world, "helper", model=MODEL)
    return world


def three_turns(bedrock: Bedrock) -> None:
    bedrock.reply(
        converse_reply([{"reasoningContent": THINK_1}, search("t1", "tea")], "tool_use"),
        converse_reply([{"reasoningContent": {"redactedContent": REDACTED}}, search("t2", "green tea")], "tool_use"),
        converse_reply([{"reasoningContent": THINK_3}, {"text": "Green tea it is."}], "end_turn"),
    )


def assistant_turns(request: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [m["content"] for m in request["messages"] if m["role"] == "assistant"]


def test_each_reasoning_block_goes_back_verbatim_and_first_in_its_assistant_turn(thinking_world, bedrock) -> None:
    # Given a model that thinks before each of two tool calls and before its answer
    three_turns(bedrock)
    # When the run loops through the three model calls
    with bedrock.stub:
        result = run(thinking_world, "Which tea should I buy?")
        bedrock.stub.assert_no_pending_responses()
    # Then the second call replays turn one's signed block first, the third replays both blocks first
    first, second, third = bedrock.sent
    assert assistant_turns(first) == []
    assert assistant_turns(second) == [[{"reasoningContent": THINK_1}, search("t1", "tea")]]
    assert assistant_turns(third) == [
        [{"reasoningContent": THINK_1}, search("t1", "tea")],
        [{"reasoningContent": {"redactedContent": REDACTED}}, search("t2", "green tea")],
    ]
    # and thinking was requested on every call, the answer is the text alone
    assert all(
        r["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 2048}}
        for r in bedrock.sent
    )
    assert result.run.status is RunStatus.SUCCEEDED and result.run.output == "Green tea it is."


def test_the_recorded_requests_show_the_reasoning_blocks(thinking_world, bedrock) -> None:
    three_turns(bedrock)
    with bedrock.stub:
        run_id = run(thinking_world, "Which tea should I buy?").run.run_id
    third = thinking_world.deps.runs.list_requests(run_id)[2]
    blocks = [block for turn in assistant_turns(third) for block in turn if "reasoningContent" in block]
    encoded = base64.b64encode(REDACTED).decode()
    assert blocks == [{"reasoningContent": THINK_1}, {"reasoningContent": {"redactedContent": encoded}}]


def test_a_later_turn_of_the_chat_never_replays_a_signed_block(thinking_world, bedrock) -> None:
    # Given a finished thinking run in a chat
    three_turns(bedrock)
    bedrock.reply(converse_reply([{"reasoningContent": THINK_3}, {"text": "Sencha."}], "end_turn"))
    with bedrock.stub:
        first = run(thinking_world, "Which tea should I buy?").run
        # When the chat goes on
        run(thinking_world, "And which one for the evening?", chat_id=first.chat_id)
    # Then the chat kept the tool turns but no reasoning, and the next request carries no reasoning block
    chat = thinking_world.deps.chats.get_chat("alice", first.chat_id or "")
    assert chat is not None and not any(isinstance(m, ReasoningMessage) for m in chat.messages)
    later = bedrock.sent[-1]
    assert [b for m in later["messages"] for b in m["content"] if "reasoningContent" in b] == []
    assert any("toolUse" in b for m in later["messages"] for b in m["content"])  # the history is there


def test_a_sub_agent_never_inherits_the_parent_s_reasoning(thinking_world, bedrock) -> None:
    # Given a parent that thinks and then delegates
    delegate = {
        "toolUse": {"toolUseId": "d1", "name": "delegate-to-agent", "input": {"agent": "helper", "input": "Pick a tea"}}
    }
    bedrock.reply(
        converse_reply([{"reasoningContent": THINK_1}, search("t1", "tea")], "tool_use"),
        converse_reply([{"reasoningContent": THINK_3}, delegate], "tool_use"),
        converse_reply([{"text": "Oolong."}], "end_turn"),
    )
    with bedrock.stub:
        parent = run(thinking_world, "Ask the helper which tea to buy.")
        assert parent.outcome == "delegate"
        from mneme.engine.runs.service import step

        step(thinking_world.deps, parent.children[0]["run_id"])
    # Then the child's request carries the parent's tool pair but none of its reasoning blocks
    child_request = bedrock.sent[-1]
    assert [b for m in child_request["messages"] for b in m["content"] if "reasoningContent" in b] == []
    assert any("toolUse" in b for m in child_request["messages"] for b in m["content"])
