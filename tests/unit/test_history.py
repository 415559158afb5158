"""Rolling summary (SPEC §4): trigger, cut, summary pair, failures, tool pairs and skill re-attachment."""

from __future__ import annotations

import pytest

from mneme.history import (
    SUMMARY_ACKNOWLEDGEMENT,
    SUMMARY_PREFIX,
    compress,
    estimate_tokens,
    find_cut,
    needs_compression,
)
from mneme.models import ChatMessage, Skill, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.skills import skill_envelope
from tests.fakes.summarizer import FakeSummarizer


def user(text: str = "question") -> TextMessage:
    return TextMessage(role="user", text=text)


def assistant(text: str = "answer") -> TextMessage:
    return TextMessage(role="assistant", text=text)


def call(call_id: str, tool: str = "memory-search", **arguments: object) -> ToolCallMessage:
    return ToolCallMessage(call_id=call_id, tool=tool, arguments=dict(arguments))


def result(call_id: str, content: str = "ok", tool: str = "memory-search") -> ToolResultMessage:
    return ToolResultMessage(call_id=call_id, tool=tool, content=content)


def turns(count: int) -> list[ChatMessage]:
    """``count`` short alternating messages, starting with a user message."""
    return [user(f"q{i}") if i % 2 == 0 else assistant(f"a{i}") for i in range(count)]


NO_SKILLS: dict[str, Skill] = {}


# ------------------------------------------------------------------------------------------- estimate
@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("abcd", 1), ("abcde", 2), ("x" * 32_000, 8_000)],
)
def test_tokens_are_estimated_as_characters_divided_by_four(text: str, tokens: int) -> None:
    # Given a text  # When estimated  # Then characters ÷ 4, rounded up
    assert estimate_tokens([user(text)]) == tokens


# ------------------------------------------------------------------------------------------- trigger
@pytest.mark.parametrize(
    ("history", "covers", "expected"),
    [
        pytest.param([user("x" * 32_001)], 0, True, id="tokens-above-8000"),
        pytest.param([user("x" * 32_000)], 0, False, id="tokens-at-8000"),
        pytest.param(turns(41), 0, True, id="messages-above-40"),
        pytest.param(turns(40), 0, False, id="messages-at-40"),
        pytest.param(turns(60), 20, False, id="covered-messages-do-not-count"),
    ],
)
def test_needs_compression_above_either_trigger(history: list[ChatMessage], covers: int, expected: bool) -> None:
    # Given a history and the count of covered messages
    # When checked against the default triggers
    # Then it triggers only when the uncovered part exceeds 8,000 tokens or 40 messages
    assert needs_compression(history, covers) is expected


def test_triggers_are_configurable() -> None:
    # Given five short messages
    history = turns(5)
    # When the message trigger is 4
    # Then compression is due
    assert needs_compression(history, trigger_messages=4)


def test_compression_triggered_by_tokens() -> None:
    # Given three messages of more than 8,000 estimated tokens together
    history: list[ChatMessage] = [user("x" * 20_000), assistant("y" * 20_000), user("latest")]
    summarizer = FakeSummarizer(reply="the gist")
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then everything before the last user message is summarized
    assert (compressed.changed, compressed.new_covers, compressed.new_summary) == (True, 2, "the gist")


def test_compression_triggered_by_message_count() -> None:
    # Given 41 short messages, the last a user message
    history = turns(41)
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then the 40 messages before it are covered
    assert (compressed.changed, compressed.new_covers) == (True, 40)


def test_no_compression_below_both_triggers() -> None:
    # Given 40 short messages and no summary
    history = turns(40)
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then nothing is summarized and the history passes as it is
    assert (summarizer.calls, compressed.messages, compressed.changed) == ([], history, False)


# ------------------------------------------------------------------------------------------- cut
def test_cut_is_before_the_last_user_message() -> None:
    # Given 44 messages whose last user message is at index 42
    history = turns(44)
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then the summarizer sees the 42 messages before it and the tail starts with it
    assert summarizer.calls[0].messages == history[:42]
    assert compressed.new_covers == 42
    assert compressed.messages[2:] == history[42:]


def test_previous_summary_is_passed_to_the_summarizer() -> None:
    # Given a stored summary covering 4 messages and 45 uncovered messages after them
    history = turns(49)
    summarizer = FakeSummarizer()
    # When compressed
    compress(history, summary="earlier gist", covers=4, summarizer=summarizer, skills=NO_SKILLS)
    # Then the summarizer gets the previous summary and only the uncovered messages before the cut
    assert summarizer.calls[0].previous_summary == "earlier gist"
    assert summarizer.calls[0].messages == history[4:48]


def test_summary_is_capped_at_8000_characters() -> None:
    # Given a summarizer that answers 9,000 characters
    summarizer = FakeSummarizer(reply="s" * 9_000)
    # When compressed
    compressed = compress(turns(41), summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then the stored summary is cut to 8,000 characters, marked
    assert compressed.new_summary is not None
    assert len(compressed.new_summary) == 8_000
    assert compressed.new_summary.endswith("…")


def test_model_sees_summary_message_acknowledgement_and_tail() -> None:
    # Given a history due for compression
    history = turns(43)
    # When compressed
    compressed = compress(
        history, summary=None, covers=0, summarizer=FakeSummarizer(reply="the gist"), skills=NO_SKILLS
    )
    # Then: the summary as a user message, an assistant acknowledgement, then the retained tail
    first, second, *tail = compressed.messages
    assert isinstance(first, TextMessage) and first.role == "user"
    assert first.text == f"{SUMMARY_PREFIX}\n\nthe gist"
    assert first.text.startswith("[Context Summary — compressed history of this conversation]")
    assert second == assistant(SUMMARY_ACKNOWLEDGEMENT)
    assert tail == history[42:]


def test_stored_summary_is_shown_without_a_new_trigger() -> None:
    # Given a stored summary covering 2 of 6 messages
    history = turns(6)
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary="stored", covers=2, summarizer=summarizer, skills=NO_SKILLS)
    # Then the summary pair replaces the covered messages, nothing new is summarized or stored
    assert summarizer.calls == []
    assert compressed.messages[0] == user(f"{SUMMARY_PREFIX}\n\nstored")
    assert compressed.messages[2:] == history[2:]
    assert (compressed.changed, compressed.new_summary, compressed.new_covers) == (False, "stored", 2)


@pytest.mark.parametrize(
    "summarizer",
    [
        pytest.param(FakeSummarizer(error=RuntimeError("model down")), id="raises"),
        pytest.param(FakeSummarizer(reply="   "), id="empty"),
    ],
)
def test_failing_summarizer_leaves_history_unchanged_with_warning(summarizer: FakeSummarizer) -> None:
    # Given a history due for compression and a summarizer that fails
    history = turns(41)
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then the history passes through unchanged, nothing is stored and a warning is returned
    assert compressed.messages == history
    assert (compressed.changed, compressed.new_summary, compressed.new_covers) == (False, None, 0)
    assert compressed.warning is not None and "rolling summary failed" in compressed.warning


def test_failing_summarizer_keeps_the_stored_summary() -> None:
    # Given a stored summary and a failing summarizer
    history = turns(47)
    summarizer = FakeSummarizer(error=TimeoutError("slow"))
    # When compressed
    compressed = compress(history, summary="stored", covers=4, summarizer=summarizer, skills=NO_SKILLS)
    # Then the model still sees the stored summary and every uncovered message
    assert compressed.messages[2:] == history[4:]
    assert (compressed.changed, compressed.new_covers) == (False, 4)
    assert compressed.warning is not None


def test_tool_call_and_result_are_not_split_by_the_cut() -> None:
    # Given a user message sitting between a tool call (index 40) and its result (index 42)
    history = [*turns(40), call("c1"), user("meanwhile"), result("c1"), assistant("done")]
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then the cut moves before the tool call so the pair stays in the retained tail
    assert compressed.new_covers == 40
    assert compressed.messages[2:] == history[40:]


def test_no_cut_when_the_tail_is_one_turn() -> None:
    # Given one user message followed by 45 tool messages
    history: list[ChatMessage] = [user("go")]
    for i in range(15):
        history += [call(f"c{i}"), result(f"c{i}"), assistant(f"step {i}")]
    summarizer = FakeSummarizer()
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=summarizer, skills=NO_SKILLS)
    # Then there is nothing before the last user message to summarize
    assert (find_cut(history), summarizer.calls, compressed.messages) == (0, [], history)


def test_skills_activated_in_the_compressed_part_are_reattached() -> None:
    # Given "writing" activated in the part to compress and "review" in the retained tail
    skills = {name: Skill(name=name, description=name, content=f"{name} rules") for name in ("writing", "review")}
    history: list[ChatMessage] = [
        user("write"),
        call("s1", "activate_skill", name="writing"),
        result("s1", skill_envelope("writing", "writing rules"), "activate_skill"),
        *turns(40),
        call("s2", "activate_skill", name="review"),
        result("s2", skill_envelope("review", "review rules"), "activate_skill"),
    ]
    # When compressed
    compressed = compress(history, summary=None, covers=0, summarizer=FakeSummarizer(), skills=skills)
    # Then only "writing" is re-attached, in its envelope
    assert compressed.new_covers == 41
    assert compressed.reattached_skill_blocks == [skill_envelope("writing", "writing rules")]
