"""Converse packing of the chat history."""

from __future__ import annotations

from typing import Any

from mneme.context.packing import pack
from mneme.models import ChatMessage, ReasoningMessage, SystemMessage, TextMessage, ToolCallMessage, ToolResultMessage
from tests.unit.context.fixtures import build, master_input


def _user(text: str) -> TextMessage:
    return TextMessage(role="user", text=text)


def _assistant(text: str) -> TextMessage:
    return TextMessage(role="assistant", text=text)


def _call(call_id: str, tool: str = "crm-lookup") -> ToolCallMessage:
    return ToolCallMessage(call_id=call_id, tool=tool, arguments={"name": call_id})


def _result(call_id: str, tool: str = "crm-lookup") -> ToolResultMessage:
    return ToolResultMessage(call_id=call_id, tool=tool, content=f"result {call_id}")


def _kinds(messages: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    return [(m["role"], [next(iter(block)) for block in m["content"]]) for m in messages]


def test_consecutive_tool_results_are_merged_into_one_user_turn() -> None:
    # Given two tool calls answered by two results
    history: list[ChatMessage] = [_user("look both up"), _call("a"), _call("b"), _result("a"), _result("b")]

    # When the history is packed with a current message
    messages = pack(history, "now").messages

    # Then both calls share one assistant turn and both results one user turn, followed by the current text
    assert _kinds(messages) == [
        ("user", ["text"]),
        ("assistant", ["toolUse", "toolUse"]),
        ("user", ["toolResult", "toolResult", "text"]),
    ]


def test_roles_alternate_and_start_with_a_user_turn() -> None:
    # Given a history with repeated roles and a leading assistant greeting
    history: list[ChatMessage] = [
        _assistant("Hello!"),
        _user("one"),
        _user("two"),
        _assistant("three"),
        _assistant("four"),
    ]

    # When it is packed
    messages = pack(history, "five").messages

    # Then the leading assistant turn is dropped and user / assistant alternate
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "user"]
    assert _kinds(messages)[0] == ("user", ["text", "text"])


def test_a_tool_call_without_result_is_dropped() -> None:
    # Given an assistant turn whose tool call was never answered
    history: list[ChatMessage] = [_user("hi"), _assistant("let me check"), _call("lost")]

    # When it is packed
    messages = pack(history, "and?").messages

    # Then the call is gone, the assistant text stays
    assert _kinds(messages) == [("user", ["text"]), ("assistant", ["text"]), ("user", ["text"])]


def test_a_tool_result_without_call_is_dropped() -> None:
    # Given a result whose call is not in the history
    history: list[ChatMessage] = [_user("hi"), _assistant("hello"), _result("stray")]

    # When it is packed
    messages = pack(history, "next").messages

    # Then the result is gone
    assert "toolResult" not in str(messages)
    assert _kinds(messages) == [("user", ["text"]), ("assistant", ["text"]), ("user", ["text"])]


def test_a_result_that_does_not_follow_its_call_turn_is_an_orphan() -> None:
    # Given a call, then user and assistant text, then its result much later
    history: list[ChatMessage] = [_user("q"), _call("x"), _user("wait"), _assistant("ok"), _result("x")]

    # When it is packed
    messages = pack(history, "now").messages

    # Then neither the call nor the result survives
    assert "toolUse" not in str(messages)
    assert "toolResult" not in str(messages)


def test_system_messages_in_the_history_are_dropped() -> None:
    # Given a history with a stored system message
    history: list[ChatMessage] = [SystemMessage(text="old instructions"), _user("hi"), _assistant("hello")]

    # When it is packed
    messages = pack(history, "next").messages

    # Then no message carries the system text and no message has the system role
    assert "old instructions" not in str(messages)
    assert {m["role"] for m in messages} == {"user", "assistant"}


def test_history_ending_with_a_user_turn_gets_the_current_text_as_its_last_block() -> None:
    # Given a history that ends with tool results
    history: list[ChatMessage] = [_user("q"), _call("a"), _result("a")]

    # When it is packed
    packed = pack(history, "current")

    # Then the current text is the last block of that same user turn
    assert packed.messages[-1]["content"][-1] == {"text": "current"}
    assert (packed.current_turn, packed.current_block) == (2, 1)


def test_tool_results_come_before_text_in_a_user_turn() -> None:
    # Given a user text that arrived between a call and its result
    history: list[ChatMessage] = [_user("q"), _call("a"), _user("also this"), _result("a")]

    # When it is packed
    messages = pack(history, "current").messages

    # Then the result leads its user turn
    assert _kinds(messages)[-1] == ("user", ["toolResult", "text", "text"])


def test_tool_blocks_have_the_converse_shape() -> None:
    # Given a call with unsorted arguments and an error result
    history: list[ChatMessage] = [
        _user("q"),
        ToolCallMessage(call_id="c1", tool="crm-lookup", arguments={"b": 1, "a": 2}),
        ToolResultMessage(call_id="c1", tool="crm-lookup", content="boom", status="error"),
    ]

    # When it is packed
    messages = pack(history, "current").messages

    # Then toolUse / toolResult blocks are as Bedrock expects, with sorted input keys
    assert messages[1]["content"][0] == {
        "toolUse": {"toolUseId": "c1", "name": "crm-lookup", "input": {"a": 2, "b": 1}}
    }
    assert list(messages[1]["content"][0]["toolUse"]["input"]) == ["a", "b"]
    assert messages[2]["content"][0] == {
        "toolResult": {"toolUseId": "c1", "content": [{"text": "boom"}], "status": "error"}
    }


def test_continuation_follows_the_current_message() -> None:
    # Given the run's own tool call and result after the current message
    continuation: list[ChatMessage] = [_call("r1"), _result("r1")]

    # When it is packed
    packed = pack([_user("earlier"), _assistant("ok")], "current", continuation)

    # Then the current message keeps its place and the run's turns follow
    assert _kinds(packed.messages)[2:] == [
        ("user", ["text"]),
        ("assistant", ["toolUse"]),
        ("user", ["toolResult"]),
    ]
    assert packed.current_turn == 2


def test_tool_config_is_sent_when_the_history_has_tool_blocks_but_no_tools_are_offered() -> None:
    # Given an agent without tools or skills whose chat history holds a tool turn
    ctx = master_input(enabled_tools=(), external_tools=(), skills=())

    # When the context is assembled
    assembled = build(ctx)

    # Then toolConfig carries a stand-in spec for the used tool, which is not offered for calling
    names = [t["toolSpec"]["name"] for t in assembled.request["toolConfig"]["tools"] if "toolSpec" in t]
    assert names == ["memory-search"]
    assert assembled.offered_tools == ()
    assert all("When you call a tool" not in block.get("text", "") for block in assembled.request["system"])


def test_no_tool_config_without_tools_and_without_tool_blocks() -> None:
    # Given an agent without tools and a plain text history
    ctx = master_input(enabled_tools=(), external_tools=(), skills=(), history=(_user("a"), _assistant("b")))

    # When the context is assembled
    # Then no toolConfig is sent
    assert "toolConfig" not in build(ctx).request


# ------------------------------------------------------------------------------ reasoning (issue 16)
def _thought(text: str) -> ReasoningMessage:
    return ReasoningMessage(text=text, signature=f"sig-{text}")


def test_the_run_s_reasoning_goes_first_in_its_assistant_turn() -> None:
    # Given the run's own turn: text, a call, then (recorded out of order) its reasoning block
    continuation: list[ChatMessage] = [_assistant("let me look"), _call("a"), _thought("why"), _result("a")]
    messages = pack([], "question", continuation).messages
    assert _kinds(messages) == [
        ("user", ["text"]),
        ("assistant", ["reasoningContent", "text", "toolUse"]),
        ("user", ["toolResult"]),
    ]
    assert messages[1]["content"][0] == {"reasoningContent": {"reasoningText": {"text": "why", "signature": "sig-why"}}}


def test_reasoning_in_history_is_never_replayed() -> None:
    # Given a history (an earlier turn, a summary tail, a parent's conversation) holding a signed block
    history: list[ChatMessage] = [_user("earlier"), _thought("old"), _call("a"), _result("a"), _assistant("done")]
    messages = pack(history, "now").messages
    assert "reasoningContent" not in [kind for _, kinds in _kinds(messages) for kind in kinds]
    assert ("assistant", ["toolUse"]) in _kinds(messages)  # the tool pair itself stays


def test_reasoning_whose_tool_calls_were_dropped_is_dropped_too() -> None:
    # Given a run turn whose only call has no result (an orphan)
    continuation: list[ChatMessage] = [_thought("plan"), _assistant("thinking aloud"), _call("a")]
    messages = pack([], "question", continuation).messages
    assert _kinds(messages) == [("user", ["text"]), ("assistant", ["text"])]
