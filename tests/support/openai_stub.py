"""A local OpenAI-compatible server for tests: a threaded ``http.server`` on an OS-assigned loopback port that
answers ``POST /v1/chat/completions`` with queued replies and keeps every request it got.

Replies are recorded real Chat Completions responses and error bodies (provenance on each constant):

* ``TEXT``: a non-streaming gpt-4o reply as printed by the OpenAI Python SDK (repository CtwoC/agent_kit,
  ``client/output_style/openai_output.md``); ``TEXT_CACHED`` is the same reply with the cached-token count
  a prompt-cache hit reports in ``usage.prompt_tokens_details.cached_tokens``;
* ``PARALLEL_TOOL_CALLS``: the two parallel calls of the OpenAI cookbook's "How to call functions with chat
  models" (``get_n_day_weather_forecast`` for San Francisco and Glasgow, ids ``call_pFdK…`` / ``call_Veey…``)
  in the envelope of a recorded gpt-4o tool-call reply (CtwoC/agent_kit, same file);
* ``ERROR_401``: OpenAI's ``invalid_api_key`` body (as reported in continuedev/continue issues #9358 and
  #10398); ``ERROR_429`` / ``ERROR_500``: OpenAI's ``rate_limit_exceeded`` and ``server_error`` bodies.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TEXT: dict[str, Any] = {
    "id": "chatcmpl-BcO1gPfCFAf86O5CyQ9CTeEyoc8KG",
    "choices": [
        {
            "finish_reason": "stop",
            "index": 0,
            "logprobs": None,
            "message": {
                "content": "Why don't skeletons fight each other? They don't have the guts.",
                "refusal": None,
                "role": "assistant",
                "annotations": [],
                "audio": None,
                "function_call": None,
                "tool_calls": None,
            },
        }
    ],
    "created": 1748488520,
    "model": "gpt-4o-2024-08-06",
    "object": "chat.completion",
    "service_tier": "default",
    "system_fingerprint": "fp_a288987b44",
    "usage": {
        "completion_tokens": 14,
        "prompt_tokens": 23,
        "total_tokens": 37,
        "completion_tokens_details": {
            "accepted_prediction_tokens": 0,
            "audio_tokens": 0,
            "reasoning_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
        "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 0},
    },
}

TEXT_CACHED = copy.deepcopy(TEXT)
TEXT_CACHED["usage"].update(prompt_tokens=2006, total_tokens=2020)
TEXT_CACHED["usage"]["prompt_tokens_details"]["cached_tokens"] = 1920

PARALLEL_TOOL_CALLS: dict[str, Any] = {
    "id": "chatcmpl-BcQ8ko2nz9B7CRvV0uVbcowidHpQU",
    "choices": [
        {
            "finish_reason": "tool_calls",
            "index": 0,
            "logprobs": None,
            "message": {
                "content": None,
                "refusal": None,
                "role": "assistant",
                "annotations": [],
                "audio": None,
                "function_call": None,
                "tool_calls": [
                    {
                        "id": "call_pFdKcCu5taDTtOOfX14vEDRp",
                        "function": {
                            "arguments": '{"location": "San Francisco, CA", "format": "fahrenheit", "num_days": 4}',
                            "name": "get_n_day_weather_forecast",
                        },
                        "type": "function",
                    },
                    {
                        "id": "call_Veeyp2hYJOKp0wT7ODxmTjaS",
                        "function": {
                            "arguments": '{"location": "Glasgow, UK", "format": "celsius", "num_days": 4}',
                            "name": "get_n_day_weather_forecast",
                        },
                        "type": "function",
                    },
                ],
            },
        }
    ],
    "created": 1748496646,
    "model": "gpt-4o-2024-08-06",
    "object": "chat.completion",
    "service_tier": "default",
    "system_fingerprint": "fp_76544d79cb",
    "usage": {
        "completion_tokens": 14,
        "prompt_tokens": 91,
        "total_tokens": 105,
        "completion_tokens_details": {
            "accepted_prediction_tokens": 0,
            "audio_tokens": 0,
            "reasoning_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
        "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 0},
    },
}

ERROR_401: dict[str, Any] = {
    "error": {
        "message": "Incorrect API key provided: sk-test-*******************zzzz. "
        "You can find your API key at https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}
ERROR_429: dict[str, Any] = {
    "error": {
        "message": "Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, "
        "Used 29760, Requested 1200. Please try again in 1.92s.",
        "type": "tokens",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}
ERROR_500: dict[str, Any] = {
    "error": {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": None,
    }
}


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class StubServer:
    base_url: str
    replies: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)

    def reply(self, *replies: dict[str, Any] | tuple[int, dict[str, Any]]) -> StubServer:
        for item in replies:
            self.replies.append(item if isinstance(item, tuple) else (200, item))
        return self


@contextmanager
def openai_stub() -> Iterator[StubServer]:
    """Serve until the block ends; a request without a queued reply gets a 500 naming that."""
    state = StubServer(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            state.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status, reply = state.replies.pop(0) if state.replies else (500, {"error": {"message": "no reply queued"}})
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
