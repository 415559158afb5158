"""The local server models Lambda's 6 MB response limit: a bigger response document is refused (API Gateway
answers 500), so a route that would fail on AWS fails locally too; one just under it is served."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from mneme_local.aws_stand_ins import free_port
from mneme_local.server import LocalHTTPServer
from tests.support.serving import serving

KEY = b"k" * 64
BODY_SIZE = {"size": 0}


def _answer(_event: dict[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": 200,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps("x" * BODY_SIZE["size"]),
    }


@pytest.fixture
def base() -> Iterator[str]:
    port = free_port()
    with serving(LocalHTTPServer(port, KEY, _answer, quiet=True)):
        yield f"http://127.0.0.1:{port}"


def _get(base: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"{base}/v1/health", timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_response_over_6_mb_is_refused_as_lambda_refuses_it(base: str) -> None:
    BODY_SIZE["size"] = LAMBDA_RESPONSE_BYTES
    status, body = _get(base)
    assert (status, json.loads(body)) == (500, {"message": "Internal Server Error"})


def test_a_response_under_the_limit_is_served(base: str) -> None:
    BODY_SIZE["size"] = LAMBDA_RESPONSE_BYTES - 1000
    status, body = _get(base)
    assert status == 200 and len(body) == LAMBDA_RESPONSE_BYTES - 1000 + 2
