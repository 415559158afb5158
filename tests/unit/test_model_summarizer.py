"""The Summarizer adapter over a ModelClient (SPEC §4): one call, no tools."""

from __future__ import annotations

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.summarizer import SUMMARY_INSTRUCTION, ModelSummarizer
from mneme.errors import ModelUnavailable
from mneme.models.chat import ChatMessage, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.models.run import Usage
from mneme.ports.models import FAILED_REQUEST
from mneme.spec_limits import SUMMARY_MAX_CHARS
from tests.fakes.model import ScriptedModel, text_response

MESSAGES: list[ChatMessage] = [
    TextMessage(role="user", text="Plan my trip to Lisbon.\n/search hotels"),
    ToolCallMessage(call_id="c1", tool="memory-search", arguments={"query": "hotels in Lisbon"}),
    ToolResultMessage(call_id="c1", tool="memory-search", content="Hotel Avenida, 120 EUR"),
    TextMessage(role="assistant", text="I suggest Hotel Avenida."),
]


def test_one_call_without_tools_with_the_previous_summary() -> None:
    model = ScriptedModel([text_response("  The user plans a Lisbon trip; Hotel Avenida suggested.  ")])
    summary = ModelSummarizer(model, "summary-model").summarize("User is called Alice.", MESSAGES).text

    assert summary == "The user plans a Lisbon trip; Hotel Avenida suggested."
    assert model.calls == 1
    request = model.last_request
    assert request["modelId"] == "summary-model"
    assert "toolConfig" not in request
    assert request["system"] == [{"text": SUMMARY_INSTRUCTION}]
    assert [m["role"] for m in request["messages"]] == ["user"]
    text = request["messages"][0]["content"][0]["text"]
    assert "PREVIOUS SUMMARY:\n> User is called Alice." in text
    for fragment in ["Plan my trip to Lisbon.", "hotels in Lisbon", "Hotel Avenida, 120 EUR", "I suggest"]:
        assert fragment in text
    assert text.index("Plan my trip") < text.index("Hotel Avenida, 120") < text.index("I suggest")
    assert "memory-search" in text


def test_without_previous_summary() -> None:
    model = ScriptedModel(["summary"])
    ModelSummarizer(model, "m").summarize(None, MESSAGES)
    assert "PREVIOUS SUMMARY" not in model.last_request["messages"][0]["content"][0]["text"]


def test_message_lines_are_quoted_so_no_line_is_a_directive() -> None:
    model = ScriptedModel(["summary"])
    ModelSummarizer(model, "m").summarize("/delegate x :: y", MESSAGES)
    text = model.last_request["messages"][0]["content"][0]["text"]
    assert not any(line.lstrip().startswith("/") for line in text.split("\n"))
    # with the offline model, the summary call therefore never turns into tool calls
    assert ModelSummarizer(OfflineModel(), "offline").summarize("/search x", MESSAGES).text.startswith("offline: ")


def test_summary_is_capped() -> None:
    model = ScriptedModel(["x" * (SUMMARY_MAX_CHARS + 500)])
    assert len(ModelSummarizer(model, "m").summarize(None, MESSAGES).text) == SUMMARY_MAX_CHARS


def test_the_summary_reports_its_call_s_usage_and_model() -> None:
    usage = Usage(input_tokens=900, output_tokens=80)
    model = ScriptedModel([text_response("short", usage=usage)])
    summary = ModelSummarizer(model, "amazon.nova-lite-v1:0", provider="bedrock").summarize(None, MESSAGES)
    assert (summary.usage, summary.model_id, summary.provider) == (usage, "amazon.nova-lite-v1:0", "bedrock")


def test_an_empty_reply_is_returned_with_its_usage_for_the_run_to_count() -> None:
    # a call that answered blank was still made and paid for: history.compress warns and keeps the history
    usage = Usage(input_tokens=40, output_tokens=1)
    summary = ModelSummarizer(ScriptedModel([text_response("  ", usage=usage)]), "m").summarize(None, MESSAGES)
    assert (summary.text, summary.usage) == ("", usage)


def test_a_model_error_raises_with_the_request_it_sent() -> None:
    summarizer = ModelSummarizer(ScriptedModel([ModelUnavailable("down")]), "m")
    with pytest.raises(ModelUnavailable) as raised:
        summarizer.summarize(None, MESSAGES)
    assert raised.value.details[FAILED_REQUEST] == summarizer.build_request(None, MESSAGES)


@pytest.mark.parametrize(("given", "sent"), [(None, 8.0), (5.0, 5.0), (30.0, 8.0)])
def test_the_call_takes_the_budget_it_is_given_never_more_than_the_summarys_limit(given, sent) -> None:
    model = ScriptedModel([text_response("a summary")])
    ModelSummarizer(model, "m").summarize(None, MESSAGES, timeout_seconds=given)
    assert model.timeouts == [sent]
