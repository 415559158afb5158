"""An answer larger than Lambda can return (6 MB) is a 413 that says so, not the bare 500 of API Gateway.

A chat of six turns of 100,000 emoji each (SPEC §12: within the limit) made ``POST /v1/context/preview`` in
that chat a request of 14 MB as JSON: the Lambda could not return it and the caller got a 500 naming nothing."""

from __future__ import annotations

import json

from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World

TURN = "\U0001f600" * 99_990  # 400 KB of UTF-8, 1.2 MB as JSON


def test_a_preview_too_large_to_return_is_a_413_and_a_small_one_is_answered(api: Api, world: World) -> None:
    add_agent(world)
    for n in range(6):
        assert api.post("/v1/runs", {"agent_id": "master", "input": f"{TURN}{n}", "chat_id": "long"}).status == 200
    reply = api.post("/v1/context/preview", {"agent_id": "master", "input": TURN, "chat_id": "long"})
    assert (reply.status, reply.body["error"]) == (413, "payload_too_large"), reply.text[:300]
    assert "6 MB" in reply.body["message"]
    assert len(json.dumps(reply.text)) < LAMBDA_RESPONSE_BYTES
    small = api.post("/v1/context/preview", {"agent_id": "master", "input": TURN, "chat_id": "short"})
    assert small.status == 200 and TURN in json.dumps(small.body["request"], ensure_ascii=False)
