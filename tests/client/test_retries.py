"""The clients send a call again after a 429/503's Retry-After or a lost answer only when that is safe, and a run
start retried never starts two runs (its Idempotency-Key is the same on every attempt)."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest

from mneme_client import ApiError, AsyncClient, Client, cli, local_token
from tests.functional.local.support import LocalServer

UNAVAILABLE = {"error": "store_unavailable", "message": "the store cannot be reached"}
RUN = {"run_id": "r1", "status": "queued"}
LIMITED = {"error": "rate_limited", "message": "you started 60 runs in the last minute, the limit; retry in 7 s"}


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    return waits


def _answers(*answers: httpx.Response) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return answers[len(sent) - 1]

    return httpx.MockTransport(answer), sent


def test_a_run_start_refused_429_is_sent_again_after_retry_after_with_the_same_idempotency_key(
    slept: list[float],
) -> None:
    transport, sent = _answers(
        httpx.Response(429, json=LIMITED, headers={"Retry-After": "7"}), httpx.Response(202, json=RUN)
    )
    with Client("http://mneme.test", "t", transport=transport) as client:
        started = client.start_run("helper", "hello")
    assert started.run_id == "r1"
    assert slept == [7.0]
    keys = [request.headers.get("Idempotency-Key") for request in sent]
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1]


def test_each_run_start_has_its_own_idempotency_key_and_a_given_one_is_sent_as_given() -> None:
    transport, sent = _answers(*[httpx.Response(202, json=RUN)] * 3)
    with Client("http://mneme.test", "t", transport=transport) as client:
        client.start_run("helper", "hello")
        client.start_run("helper", "hello")
        client.start_run("helper", "hello", idempotency_key="mine-1")
    keys = [request.headers.get("Idempotency-Key") for request in sent]
    assert keys[0] and keys[1] and keys[0] != keys[1]
    assert keys[2] == "mine-1"


def test_a_429_still_refused_after_the_retries_raises_the_servers_code_and_message(slept: list[float]) -> None:
    limited = httpx.Response(429, json=LIMITED, headers={"Retry-After": "1"})
    transport, sent = _answers(*[limited] * 3)
    with Client("http://mneme.test", "t", transport=transport, retries=2) as client, pytest.raises(ApiError) as caught:
        client.start_run("helper", "hello")
    assert (caught.value.status, caught.value.code, caught.value.message) == (429, "rate_limited", LIMITED["message"])
    assert len(sent) == 3 and slept == [1.0, 1.0]


def test_a_retry_after_longer_than_the_clients_bound_is_raised_at_once(slept: list[float]) -> None:
    unavailable = httpx.Response(503, json=UNAVAILABLE, headers={"Retry-After": "600"})
    transport, sent = _answers(unavailable)
    with Client("http://mneme.test", "t", transport=transport, max_retry_wait=30) as client, pytest.raises(ApiError):
        client.list_runs()
    assert len(sent) == 1 and slept == []


def test_a_503_of_a_write_that_is_not_repeatable_is_not_sent_again(slept: list[float]) -> None:
    unavailable = httpx.Response(503, json=UNAVAILABLE, headers={"Retry-After": "1"})
    transport, sent = _answers(unavailable, httpx.Response(201, json={"ids": ["d1"]}))
    with Client("http://mneme.test", "t", transport=transport) as client, pytest.raises(ApiError) as caught:
        client.write_memory("vector.user.a.memory", "a fact")
    assert caught.value.status == 503 and len(sent) == 1 and slept == []


def test_a_read_refused_503_is_read_again_after_retry_after(slept: list[float]) -> None:
    unavailable = httpx.Response(503, json=UNAVAILABLE, headers={"Retry-After": "2"})
    transport, sent = _answers(unavailable, httpx.Response(200, json={"runs": [], "cursor": None}))
    with Client("http://mneme.test", "t", transport=transport) as client:
        assert client.list_runs().runs == []
    assert len(sent) == 2 and slept == [2.0]


def test_the_async_client_retries_a_429_with_the_same_idempotency_key(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    transport, sent = _answers(
        httpx.Response(429, json=LIMITED, headers={"Retry-After": "3"}), httpx.Response(202, json=RUN)
    )

    async def start() -> str:
        async with AsyncClient("http://mneme.test", "t", transport=httpx.MockTransport(transport.handler)) as client:
            return (await client.start_run("helper", "hello")).run_id

    assert asyncio.run(start()) == "r1"
    assert waits == [3.0]
    assert sent[0].headers["Idempotency-Key"] == sent[1].headers["Idempotency-Key"]


class LosesFirstAnswer(httpx.HTTPTransport):
    """Sends every request to the server; the first ``POST /v1/runs``'s answer is lost on the way back."""

    def __init__(self) -> None:
        super().__init__()
        self.lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST" and request.url.path == "/v1/runs" and not self.lost:
            self.lost += 1
            response.read()
            response.close()
            raise httpx.ReadError("connection reset by peer", request=request)
        return response


def test_a_run_start_whose_answer_was_lost_is_sent_again_and_starts_one_run(
    server: LocalServer, slept: list[float]
) -> None:
    user = f"retry-{uuid.uuid4().hex[:8]}"
    transport = LosesFirstAnswer()
    with Client(server.base, local_token(user, folder=server.data_dir), transport=transport) as client:
        client.put_agent("helper", {"label": "Helper"})
        started = client.start_run("helper", "hello")
        runs = client.list_runs().runs
    assert transport.lost == 1 and len(slept) == 1
    assert [run.run_id for run in runs] == [started.run_id]


def _lost_once(answer: httpx.Response) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """The first request reaches the server but its answer is lost (a reset connection); the next is answered."""
    sent: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if len(sent) == 1:
            raise httpx.ReadError("connection reset by peer", request=request)
        return answer

    return httpx.MockTransport(handle), sent


AGENT = {"agent_id": "helper", "label": "Helper"}


def test_a_save_whose_answer_was_lost_is_sent_again(slept: list[float]) -> None:
    transport, sent = _lost_once(httpx.Response(200, json=AGENT, headers={"ETag": '"2"'}))
    with Client("http://mneme.test", "t", transport=transport) as client:
        assert client.put_agent("helper", {"label": "Helper"}).etag == '"2"'
    assert len(sent) == 2


def test_a_conditional_save_whose_answer_was_lost_is_not_sent_again(slept: list[float]) -> None:
    transport, sent = _lost_once(httpx.Response(412, json={"error": "precondition_failed", "message": "changed"}))
    with Client("http://mneme.test", "t", transport=transport) as client, pytest.raises(httpx.ReadError):
        client.put_agent("helper", {"label": "Helper"}, if_match='"1"')
    assert len(sent) == 1  # sent again, it would find its own change: a 412 for a save that worked


def test_a_delete_whose_answer_was_lost_is_not_sent_again(slept: list[float]) -> None:
    transport, sent = _lost_once(httpx.Response(404, json={"error": "not_found", "message": "no agent 'helper'"}))
    with Client("http://mneme.test", "t", transport=transport) as client, pytest.raises(httpx.ReadError):
        client.delete_agent("helper")
    assert len(sent) == 1  # sent again, it would find nothing: a 404 for a delete that worked


def test_the_cli_says_why_and_how_long_it_waits_before_a_retry(
    slept: list[float], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    transport, sent = _answers(
        httpx.Response(429, json=LIMITED, headers={"Retry-After": "7"}), httpx.Response(202, json=RUN)
    )
    real = httpx.Client.__init__

    def mocked(self: httpx.Client, **options: object) -> None:
        real(self, **(options | {"transport": transport}))  # type: ignore[arg-type]

    monkeypatch.setattr(httpx.Client, "__init__", mocked)
    assert cli.main(["--url", "http://mneme.test", "--token", "t", "run", "helper", "hello"]) == 0
    said = capsys.readouterr().err
    assert "POST /v1/runs: 429 rate_limited: you started 60 runs" in said and "retrying in 7 s" in said
    assert len(sent) == 2 and slept == [7.0]
