"""What an openai-compatible endpoint's answer may cost the run function: the whole answer arrives within the
call's timeout (a server that sends its body a byte at a time never outlasts it), and an answer larger than
MODEL_REPLY_MAX_BYTES is refused, not read into memory (a 300 MB answer took a 1024 MB function down)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mneme.adapters.models.openai import OpenAICompatibleModel, StaticKey
from mneme.errors import ModelTimedOut, ModelUnavailable
from mneme.spec_limits import MODEL_REPLY_MAX_BYTES
from tests.support.openai_stub import TEXT
from tests.support.serving import serving

REQUEST: dict[str, Any] = {"modelId": "m", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
DRIP_SECONDS = 5.0  # how long the dripping server takes over its whole answer


def _big_answer(size: int) -> bytes:
    return json.dumps({**TEXT, "choices": [{**TEXT["choices"][0], "message": {"content": "a" * size}}]}).encode()


class _Server(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = ""  # "drip", or "sized" (announces its length) / "unannounced" (a body until the connection closes)
    size = 0  # the characters of the answer's text ("sized" and "unannounced")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps(TEXT).encode() if self.mode == "drip" else _big_answer(self.size)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        if self.mode == "unannounced":
            self.send_header("connection", "close")
            self.close_connection = True
        else:
            self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            if self.mode == "drip":  # the answer a byte at a time, each byte well within any read timeout
                pause = DRIP_SECONDS / len(body)
                for position in range(len(body)):
                    self.wfile.write(body[position : position + 1])
                    self.wfile.flush()
                    time.sleep(pause)
            else:
                self.wfile.write(body)
        except OSError:  # the client gave up
            pass

    def log_message(self, *args: object) -> None:
        return None


@contextmanager
def _serve(mode: str, size: int = 0) -> Iterator[str]:
    handler = type("Handler", (_Server,), {"mode": mode, "size": size})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    with serving(server):
        yield f"http://127.0.0.1:{server.server_port}/v1"


@pytest.fixture
def dripping() -> Iterator[str]:
    with _serve("drip") as url:
        yield url


def test_an_answer_dripping_in_past_the_timeout_is_a_timeout_at_the_timeout(dripping: str) -> None:
    model = OpenAICompatibleModel(dripping, StaticKey(None), allow_private=True)
    started = time.monotonic()
    with pytest.raises(ModelTimedOut):
        model.converse(REQUEST, timeout_seconds=1.0)
    assert time.monotonic() - started < 2.5  # not DRIP_SECONDS: each byte came within the read timeout


def test_an_answer_dripping_in_within_the_timeout_is_read(dripping: str) -> None:
    model = OpenAICompatibleModel(dripping, StaticKey(None), allow_private=True)
    assert model.converse(REQUEST, timeout_seconds=DRIP_SECONDS + 10).text == TEXT["choices"][0]["message"]["content"]


#: the characters of an answer text that makes the whole answer exactly MODEL_REPLY_MAX_BYTES long
AT_THE_LIMIT = MODEL_REPLY_MAX_BYTES - len(_big_answer(0))


@pytest.mark.parametrize("mode", ["sized", "unannounced"])
def test_an_answer_over_the_byte_limit_is_refused(mode: str) -> None:
    with _serve(mode, AT_THE_LIMIT + 1) as url, pytest.raises(ModelUnavailable) as failure:
        OpenAICompatibleModel(url, StaticKey(None), allow_private=True).converse(REQUEST)
    assert type(failure.value) is ModelUnavailable
    assert f"larger than {MODEL_REPLY_MAX_BYTES} bytes" in failure.value.message


@pytest.mark.parametrize("mode", ["sized", "unannounced"])
def test_an_answer_of_the_byte_limit_is_read(mode: str) -> None:
    with _serve(mode, AT_THE_LIMIT) as url:
        assert (
            len(OpenAICompatibleModel(url, StaticKey(None), allow_private=True).converse(REQUEST).text) == AT_THE_LIMIT
        )
