"""An error Bedrock sends inside a ConverseStream, as botocore parses it from the wire: the event's
``:exception-type`` is the stream union's member name (``throttlingException``, ``validationException``,
lower camel case), not the operation error's (``ThrottlingException``). Each maps as the same error of
Converse does: throttling is retried (ModelThrottled), a refused request fails the run as such."""

from __future__ import annotations

import binascii
import json
import struct
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse

from mneme.adapters.models.bedrock import BedrockModel, bedrock_client_config
from mneme.errors import ModelRequestRejected, ModelThrottled, ModelUnavailable
from tests.support.raw_body import RawBody

REQUEST: dict[str, Any] = {"modelId": "m1", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}


def _message(headers: dict[str, str], payload: dict[str, Any]) -> bytes:
    """One message of the AWS event stream encoding (string headers only)."""
    head = b"".join(
        struct.pack("B", len(k)) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
        for k, v in headers.items()
    )
    body = json.dumps(payload).encode()
    prelude = struct.pack(">II", 16 + len(head) + len(body), len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + head + body
    return message + struct.pack(">I", binascii.crc32(message))


def _event(kind: str, payload: dict[str, Any]) -> bytes:
    return _message({":message-type": "event", ":event-type": kind, ":content-type": "application/json"}, payload)


def _exception(kind: str, text: str) -> bytes:
    headers = {":message-type": "exception", ":exception-type": kind, ":content-type": "application/json"}
    return _message(headers, {"message": text})


def _streaming(exception: str) -> BedrockModel:
    """A real bedrock-runtime client answering a stream that starts a text, then fails with ``exception``."""
    body = (
        _event("messageStart", {"role": "assistant"})
        + _event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}})
        + _exception(exception, "stream error from the test")
    )
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(1))

    def answer(request: Any, **_: Any) -> Any:
        headers: Any = {"Content-Type": "application/vnd.amazon.eventstream"}
        return AWSResponse(request.url, 200, headers, RawBody(body))

    client.meta.events.register("before-send.bedrock-runtime.ConverseStream", answer)
    return BedrockModel(client)


def test_a_throttling_exception_inside_the_stream_is_model_throttled() -> None:
    shown: list[str] = []
    with pytest.raises(ModelThrottled) as caught:
        _streaming("throttlingException").converse_stream(REQUEST, shown.append)
    assert shown == ["par"]  # the stream really was read from the wire up to the error
    assert caught.value.details["aws_error"] == "ThrottlingException"  # named as Converse names it


def test_a_validation_exception_inside_the_stream_is_a_rejected_request() -> None:
    with pytest.raises(ModelRequestRejected):
        _streaming("validationException").converse_stream(REQUEST, lambda _: None)


@pytest.mark.parametrize(
    "exception", ["serviceUnavailableException", "internalServerException", "modelStreamErrorException"]
)
def test_a_service_error_inside_the_stream_is_unavailable_not_retried(exception: str) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        _streaming(exception).converse_stream(REQUEST, lambda _: None)
    assert type(caught.value) is ModelUnavailable
    assert caught.value.details["aws_error"] == exception[0].upper() + exception[1:]
