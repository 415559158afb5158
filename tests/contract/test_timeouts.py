"""A server that is slower than the call's budget (llama.cpp with a small CPU, `make interop`) is a timeout,
which the fast path hands to the state machine — not an unreachable endpoint, which fails the run."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from mneme.adapters.models.openai import OpenAICompatibleModel, StaticKey
from mneme.errors import ModelTimedOut, ModelUnavailable
from mneme_local.aws_stand_ins import free_port

REQUEST = {"modelId": "smollm2", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and reads the request, never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


def test_an_answer_slower_than_the_budget_is_a_timeout(silent_server: str) -> None:
    model = OpenAICompatibleModel(silent_server, StaticKey(None), allow_private=True)
    with pytest.raises(ModelTimedOut):
        model.converse(REQUEST, timeout_seconds=0.3)


def test_an_endpoint_nobody_listens_on_is_unavailable_not_a_timeout() -> None:
    model = OpenAICompatibleModel(f"http://127.0.0.1:{free_port()}/v1", StaticKey(None), allow_private=True)
    with pytest.raises(ModelUnavailable) as caught:
        model.converse(REQUEST, timeout_seconds=0.3)
    assert not isinstance(caught.value, ModelTimedOut)
