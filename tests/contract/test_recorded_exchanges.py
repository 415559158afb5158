"""Contract tests: exchanges recorded with a real OpenAI-compatible server (llama.cpp's, through
llama-cpp-python, with SmolLM2-135M-Instruct; ``make interop RECORD=1``), replayed through the adapter.

* what the adapter sends today is exactly what the server accepted when recorded (else: re-record);
* the server's answers — text, tool calls with its own call ids, cut answers, usage — read as it meant them;
* its refusals become the adapter's errors; and the shapes it refused or crashed on are never sent.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from mneme.adapters.models.openai import OpenAICompatibleModel, StaticKey
from mneme.adapters.models.openai_wire import STOP_REASONS, to_chat_completions
from mneme.errors import MnemeError, ModelRequestRejected, ModelUnavailable
from mneme.ports.models import ModelResponse
from tests.contract.replay import ReplaySession, recording, recordings

ADAPTER = recordings("adapter")
ANSWERED = [r for r in ADAPTER if r["response"].get("status") == 200]
REFUSED = [r for r in recordings("raw") + ADAPTER if r["response"].get("status") != 200]
BASE_URL = "http://recorded.invalid/v1"


def _calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = record["response"]["body"]["choices"][0]["message"].get("tool_calls") or []
    return calls


def _name(record: dict[str, Any]) -> str:
    return str(record["name"])


def _replay(record: dict[str, Any]) -> tuple[ReplaySession, ModelResponse | MnemeError]:
    session = ReplaySession(record["response"])
    # recorded on loopback: the local policy (private networks allowed) replays them
    model = OpenAICompatibleModel(BASE_URL, StaticKey(None), allow_private=True, session=session)
    try:
        return session, model.converse(copy.deepcopy(record["converse_request"]))
    except MnemeError as error:
        return session, error


def test_the_recordings_cover_answers_tool_calls_and_refusals() -> None:
    assert len(ANSWERED) >= 5
    assert any(r["response"]["body"]["choices"][0]["message"].get("tool_calls") for r in ANSWERED)
    assert {r["name"] for r in REFUSED} >= {"null_content", "schema_limits", "context_overflow", "not_json"}


@pytest.mark.parametrize("record", ADAPTER, ids=_name)
def test_the_adapter_sends_exactly_the_recorded_request(record: dict[str, Any]) -> None:
    session, _ = _replay(record)
    assert [sent["body"] for sent in session.sent] == [record["request"]]
    assert session.sent[0]["url"] == BASE_URL + record["path"]


@pytest.mark.parametrize("record", ANSWERED, ids=_name)
def test_a_recorded_answer_reads_as_the_server_meant_it(record: dict[str, Any]) -> None:
    _, response = _replay(record)
    assert isinstance(response, ModelResponse)
    body = record["response"]["body"]
    message, reason = body["choices"][0]["message"], body["choices"][0]["finish_reason"]
    calls = message.get("tool_calls") or []
    assert response.text == (message.get("content") or "")
    assert [(use["name"], use["input"]) for use in response.tool_uses] == [
        (call["function"]["name"], _json_object(call["function"]["arguments"])) for call in calls
    ]
    assert response.stop_reason == ("tool_use" if calls else STOP_REASONS[reason])
    usage = body["usage"]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )


def _json_object(arguments: str) -> Any:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


@pytest.mark.parametrize("record", [r for r in ANSWERED if _calls(r)], ids=_name)
def test_the_servers_call_ids_become_converse_tool_use_ids(record: dict[str, Any]) -> None:
    _, response = _replay(record)
    assert isinstance(response, ModelResponse)
    for use, call in zip(response.tool_uses, _calls(record), strict=True):
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", use["toolUseId"])
        assert (use["toolUseId"] == call["id"]) is bool(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", call["id"]))


@pytest.mark.parametrize("record", REFUSED, ids=_name)
def test_a_refusal_becomes_the_adapters_error(record: dict[str, Any]) -> None:
    _, outcome = _replay(record)
    status = record["response"].get("status")
    expected = ModelRequestRejected if status in (400, 404, 413, 422) else ModelUnavailable
    assert isinstance(outcome, expected), outcome
    assert not isinstance(outcome, ModelRequestRejected) or expected is ModelRequestRejected


def test_the_context_overflow_names_the_servers_reason() -> None:
    _, outcome = _replay(recording("context_overflow"))
    assert isinstance(outcome, ModelRequestRejected)
    assert "context_length_exceeded" in str(outcome)
    # issue 31.8: an endpoint's answer is named by its status and short code, never quoted
    assert "maximum context length" not in str(outcome)


def test_the_server_refused_a_null_content_and_the_adapter_sends_an_empty_string() -> None:
    record = recording("null_content")
    assert record["response"]["status"] >= 400
    refused = record["request"]
    ours = to_chat_completions(record["converse_request"])
    nulls = [i for i, m in enumerate(refused["messages"]) if m["role"] == "assistant" and m["content"] is None]
    assert nulls
    assert [ours["messages"][i]["content"] for i in nulls] == [""] * len(nulls)
    for i in nulls:
        refused["messages"][i]["content"] = ""
    assert ours == refused  # that is the only difference


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for item in value for k in _keys(item)}
    return set()


def test_the_server_crashed_on_schema_limits_and_the_adapter_sends_none() -> None:
    record = recording("schema_limits")
    assert "error" in record["response"]  # the server dropped the connection (it crashed)
    crashed = [tool["function"]["parameters"] for tool in record["request"]["tools"]]
    ours = [tool["function"]["parameters"] for tool in to_chat_completions(record["converse_request"])["tools"]]
    assert "maxLength" in _keys(crashed)
    assert not _keys(ours) & {"maxLength", "minLength", "pattern", "maxItems", "minItems", "maxProperties"}
    assert [sorted(p["properties"]) for p in ours] == [sorted(p["properties"]) for p in crashed]


def test_tools_without_tool_choice_were_ignored_and_the_adapter_sends_auto() -> None:
    ignored = recording("no_tool_choice")
    chose = recording("tools_offered")
    assert ignored["request"]["tools"] == chose["request"]["tools"]
    assert "tool_choice" not in ignored["request"]
    assert not ignored["response"]["body"]["choices"][0]["message"].get("tool_calls")
    assert chose["response"]["body"]["choices"][0]["message"].get("tool_calls")
    assert to_chat_completions(ignored["converse_request"])["tool_choice"] == "auto"
