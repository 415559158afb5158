"""Record Chat Completions exchanges with a real OpenAI-compatible server for the contract tests.

``python -m scripts.contract_record --base-url http://127.0.0.1:8936/v1`` (``make interop`` runs it against
llama.cpp's server with SmolLM2-135M-Instruct) writes one JSON file per exchange to
``tests/contract/recordings/``: the Converse-shaped request mneme recorded, the Chat Completions request that
went on the wire and the server's answer, as received. Two kinds:

* ``adapter``: the request is what :class:`OpenAICompatibleModel` sends for the Converse request (captured
  on its way out); ``tests/contract`` replays the answer through the adapter and checks the adapter still
  sends exactly that request;
* ``raw``: a request mneme must not send (or a malformed one), sent as is, to record how the server refuses
  it (``defect`` names what it shows); the tests check the adapter never sends that shape and reads such an
  answer as the right error.

Needs ``PYTHONPATH=layers/mneme`` (mneme's tool specs and adapter). Generation is greedy (temperature 0).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import requests

from mneme.adapters.models.openai import OpenAICompatibleModel, StaticKey
from mneme.adapters.models.openai_wire import to_chat_completions
from mneme.context.tools import build_tool_specs
from mneme.errors import MnemeError

REPO = Path(__file__).resolve().parents[1]
RECORDINGS = REPO / "tests/contract/recordings"
MODEL = "smollm2-135m-instruct"
SYSTEM = [{"text": "You are a helpful assistant. Use the tools when they help."}]
INFERENCE = {"maxTokens": 64, "temperature": 0.0}
SEARCH_CALL = {"toolUseId": "call_1", "name": "memory-search", "input": {"query": "When is the Apollo review due?"}}
RESULT = '[{"content": "The Apollo review is due on March 15.", "namespace": "vector.user.alice.memory"}]'


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"text": text}]}


def _request(messages: list[dict[str, Any]], *, tools: bool = False, **inference: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"modelId": MODEL, "system": SYSTEM, "messages": messages}
    request["inferenceConfig"] = {**INFERENCE, **inference}
    if tools:
        request["toolConfig"] = {"tools": build_tool_specs(["memory-search", "memory-write"])}
    return request


def _after_tool(status: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"toolUseId": "call_1", "content": [{"text": RESULT}]}
    if status:
        result = {**result, "status": status, "content": [{"text": "Error: the memory store is unavailable"}]}
    return _request(
        [
            _user("When is the Apollo review due?"),
            {"role": "assistant", "content": [{"toolUse": SEARCH_CALL}]},
            {"role": "user", "content": [{"toolResult": result}]},
        ],
        tools=True,
    )


ADAPTER_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "plain_text": ("a system block and one user message, no tools", _request([_user("Say hello in one word.")])),
    "tools_offered": (
        "mneme's memory tools offered (limits stripped, tool_choice auto): the model may call one",
        _request([_user("Search your memory: when is the Apollo review due?")], tools=True),
    ),
    "tool_result": (
        'an assistant turn with only a tool call (content "") and its result: the model answers from it',
        _after_tool(),
    ),
    "tool_result_error": ("a tool result marked error", _after_tool("error")),
    "max_tokens": (
        "maxTokens 3: the answer is cut (finish_reason length)",
        _request([_user("Count to 100.")], maxTokens=3),
    ),
    "context_overflow": (
        "a prompt longer than the server's context window (n_ctx 8192): refused",
        _request([_user("Summarize: " + "The review moved again. " * 2500)]),
    ),
    "stop_sequence": (
        "a stop sequence",
        _request([_user("List the days of the week, one per line.")], stopSequences=["Wednesday"]),
    ),
}


def _raw_cases() -> dict[str, tuple[str, str, dict[str, Any], Any]]:
    """name -> (about, defect, the equivalent Converse request, the body sent as is)."""
    tools = ADAPTER_CASES["tools_offered"][1]
    followup = _after_tool()
    null_content = to_chat_completions(followup)
    for message in null_content["messages"]:
        if message["role"] == "assistant":
            message["content"] = None
    with_limits = to_chat_completions(tools)
    with_limits["tools"] = [
        {"type": "function", "function": {**spec["toolSpec"], "parameters": spec["toolSpec"]["inputSchema"]["json"]}}
        for spec in tools["toolConfig"]["tools"]
    ]
    for tool in with_limits["tools"]:
        tool["function"].pop("inputSchema")
    no_choice = to_chat_completions(tools)
    no_choice.pop("tool_choice")
    return {
        "null_content": ("an assistant message whose content is null", "null_content", followup, null_content),
        "no_tool_choice": ("tools without tool_choice", "no_tool_choice", tools, no_choice),
        "not_json": ("a body that is not JSON", "malformed", {}, "{not json"),
        # last: the server may crash on it
        "schema_limits": ("tool schemas with mneme's length limits", "schema_limits", tools, with_limits),
    }


class RecordingSession:
    """Passes the adapter's POST to the server and keeps the request and the answer."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []

    def post(self, url: str, *, data: bytes, headers: dict[str, str], timeout: Any) -> requests.Response:
        reply = requests.post(url, data=data, headers=headers, timeout=(5, 300))
        self.exchanges.append({"request": json.loads(data), "response": _answer(reply)})
        return reply


def _answer(reply: requests.Response) -> dict[str, Any]:
    try:
        body: Any = reply.json()
    except ValueError:
        body = reply.text
    return {"status": reply.status_code, "content_type": reply.headers.get("Content-Type", ""), "body": body}


def _write(name: str, record: dict[str, Any]) -> None:
    RECORDINGS.mkdir(parents=True, exist_ok=True)
    path = RECORDINGS / f"{name}.json"
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    answer = record["response"]
    sys.stdout.write(f"  {name}: {answer.get('status', answer.get('error'))}\n")


def record(base_url: str, server: str) -> None:
    for name, (about, converse) in ADAPTER_CASES.items():
        session = RecordingSession()
        model = OpenAICompatibleModel(base_url, StaticKey(None), session=session)
        started = time.monotonic()
        try:
            model.converse(copy.deepcopy(converse), timeout_seconds=300)
        except MnemeError as error:
            sys.stdout.write(f"  ({name}: the adapter raised {type(error).__name__}: {error})\n")
        exchange = session.exchanges[-1]
        record_: dict[str, Any] = {"name": name, "kind": "adapter", "about": about, "server": server}
        record_["converse_request"] = converse
        record_ |= {"seconds": round(time.monotonic() - started, 2), "path": "/chat/completions", **exchange}
        _write(name, record_)
    for name, (about, defect, converse, body) in _raw_cases().items():
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        try:
            reply = requests.post(
                base_url.rstrip("/") + "/chat/completions",
                data=data,
                headers={"Content-Type": "application/json"},
                timeout=(5, 120),
            )
            answer = _answer(reply)
        except requests.RequestException as error:  # the server crashed or hung up
            answer = {"error": type(error).__name__}
        record_ = {"name": name, "kind": "raw", "about": about, "defect": defect, "server": server}
        record_ |= {"converse_request": converse, "path": "/chat/completions", "request": body, "response": answer}
        _write(name, record_)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.contract_record", description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the server's OpenAI base URL, e.g. http://127.0.0.1:8936/v1")
    parser.add_argument("--server", required=True, help="what the server is (stored in each recording)")
    args = parser.parse_args(argv)
    record(args.base_url, args.server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
