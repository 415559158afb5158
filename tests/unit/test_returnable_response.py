"""The HTTP entry measures every answer Lambda might not return (6 MB as the JSON document the runtime sends),
also a body that keeps UTF-8 (MCP's), whose astral characters take 12 bytes each once escaped again."""

from __future__ import annotations

import json

from mneme.api.entry import _returnable
from mneme.spec_limits import LAMBDA_RESPONSE_BYTES


def _response(body: str) -> dict[str, object]:
    return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": body}


def test_a_utf8_body_over_the_limit_once_escaped_is_a_413() -> None:
    body = json.dumps({"result": "\U0001f600" * 600_000}, ensure_ascii=False)  # 2.4 MB of UTF-8, 7.2 MB escaped
    answer = _returnable(_response(body))
    assert answer["statusCode"] == 413
    assert json.loads(str(answer["body"]))["error"] == "payload_too_large"


def test_a_utf8_body_under_the_limit_once_escaped_is_answered_as_it_is() -> None:
    body = json.dumps({"result": "\U0001f600" * 400_000}, ensure_ascii=False)  # 4.8 MB escaped
    response = _response(body)
    assert len(json.dumps(response)) < LAMBDA_RESPONSE_BYTES
    assert _returnable(response) is response
