"""Calls that fit a deadline (issue 11.5): Bedrock and Lambda clients by read timeout, retries that fit,
and no retry of a read timeout (a long generation is billed once)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from mneme.adapters.aws.lambda_tools import LambdaToolInvoker
from mneme.adapters.aws.timed_calls import CONNECT_TIMEOUT_SECONDS, Attempts, TimedClients
from mneme.adapters.models.bedrock import BedrockModel
from mneme.errors import ModelThrottled, ModelTimedOut, ToolError

REQUEST = {"modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0", "messages": [{"role": "user", "content": []}]}
OK = {"output": {"message": {"content": [{"text": "hi"}]}}, "stopReason": "end_turn", "usage": {}}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class FakeClient:
    """Answers from a script: an exception is raised, anything else returned; each call takes ``seconds``."""

    def __init__(self, clock: Clock, script: list[Any], seconds: float = 1.0) -> None:
        self.clock, self.script, self.seconds = clock, script, seconds
        self.calls = 0

    def converse(self, **_: Any) -> Any:
        return self._next()

    def invoke(self, **_: Any) -> Any:
        return self._next()

    def _next(self) -> Any:
        self.calls += 1
        self.clock.now += self.seconds
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def _throttle() -> ClientError:
    return ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "Converse")


def _timed(client: FakeClient) -> tuple[TimedClients, list[float]]:
    made: list[float] = []

    def create(config: Any) -> FakeClient:
        made.append(config.read_timeout)
        assert config.retries == {"mode": "standard", "total_max_attempts": 1}
        return client

    return TimedClients(create), made


def _model(client: FakeClient, clock: Clock) -> tuple[BedrockModel, list[float]]:
    timed, made = _timed(client)
    attempts = Attempts(max_attempts=3, monotonic=clock.monotonic, sleep=clock.sleep)
    return BedrockModel(client, timed=timed, attempts=attempts), made  # type: ignore[arg-type]


def test_a_call_is_made_with_a_client_whose_read_timeout_fits_the_time_given() -> None:
    clock = Clock()
    client = FakeClient(clock, [OK])
    model, made = _model(client, clock)
    assert model.converse(REQUEST, timeout_seconds=12.7).text == "hi"
    assert made == [float(int(12.7 - CONNECT_TIMEOUT_SECONDS))]  # whole seconds, rounded down


def test_a_read_timeout_is_not_retried() -> None:
    clock = Clock()
    client = FakeClient(clock, [ReadTimeoutError(endpoint_url="https://bedrock"), OK])
    model, _ = _model(client, clock)
    with pytest.raises(ModelTimedOut):
        model.converse(REQUEST, timeout_seconds=90)
    assert client.calls == 1


def test_throttling_is_retried_while_another_attempt_fits() -> None:
    clock = Clock()
    client = FakeClient(clock, [_throttle(), _throttle(), OK])
    model, made = _model(client, clock)
    assert model.converse(REQUEST, timeout_seconds=20).text == "hi"
    assert client.calls == 3 and clock.slept == [0.5, 1.0]
    # each attempt's read timeout is what is left of the 20 s (less the connect timeout), in whole seconds
    assert made == [18.0, 16.0, 14.0]


def test_no_retry_is_started_that_the_deadline_cannot_hold() -> None:
    clock = Clock()
    client = FakeClient(clock, [_throttle(), OK], seconds=3.0)
    model, _ = _model(client, clock)
    with pytest.raises(ModelThrottled):
        model.converse(REQUEST, timeout_seconds=5)  # 3 s spent, 0.5 s pause, 2 s connect: no room left
    assert client.calls == 1 and clock.slept == []


def test_an_external_tool_that_does_not_answer_in_time_is_a_tool_error() -> None:
    clock = Clock()
    client = FakeClient(clock, [ReadTimeoutError(endpoint_url="https://lambda")])
    timed, made = _timed(client)
    with pytest.raises(ToolError, match="did not answer within 9 s"):
        LambdaToolInvoker(client, timed=timed).invoke("arn:fn", {}, timeout_seconds=9)
    assert made == [7.0] and client.calls == 1  # never retried: the function may have acted
