"""A body sent compressed (``Content-Encoding``) is a 415 naming the coding. An HTTP API passes such a body on
undecoded (only REST APIs decompress, with their own 415 when they cannot), so a gzip body answered "the body is
not UTF-8 text" and a ``br`` label on a plain body was ignored and the body stored: now both are refused, the
answer saying to send the body uncompressed. ``identity`` and a request without a body are taken as before."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest

from tests.functional.api.conftest import Api, Reply, http_event
from tests.support.deps import World

WRITE = {"namespace": "vector.user.${user_id}.memory", "content": "Alice likes tea."}


def send(api: Api, event: dict[str, Any]) -> Reply:
    response = api.runtime.handle(event)
    headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
    return Reply(int(response["statusCode"]), headers, response.get("body") or "")


def test_a_gzip_body_is_a_415_naming_the_coding(api: Api, world: World) -> None:
    event = http_event("POST", "/v1/memory/documents", headers={"content-encoding": "gzip"})
    event["body"] = base64.b64encode(gzip.compress(json.dumps(WRITE).encode())).decode()
    event["isBase64Encoded"] = True
    reply = send(api, event)
    assert (reply.status, reply.body["error"], reply.body["field"]) == (
        415,
        "unsupported_media_type",
        "Content-Encoding",
    )
    assert "'gzip'" in reply.body["message"] and "uncompressed" in reply.body["message"]
    assert world.memory.documents == {}


@pytest.mark.parametrize("coding", ["br", "deflate", "GZIP", "identity, gzip"])
def test_a_body_labelled_with_a_coding_is_not_stored_as_if_plain(api: Api, world: World, coding: str) -> None:
    reply = api.post("/v1/memory/documents", WRITE, headers={"content-encoding": coding})
    assert (reply.status, reply.body["field"]) == (415, "Content-Encoding")
    assert world.memory.documents == {}


def test_identity_is_a_plain_body(api: Api) -> None:
    assert api.post("/v1/memory/documents", WRITE, headers={"content-encoding": "identity"}).status == 201


def test_a_request_without_a_body_is_not_refused_for_its_coding(api: Api) -> None:
    assert api.get("/v1/memory/namespaces", headers={"content-encoding": "gzip"}).status == 200


def test_an_mcp_request_sent_compressed_is_a_415(api: Api) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"accept": "application/json, text/event-stream", "content-encoding": "br"}
    reply = api.post("/mcp", message, headers=headers)
    assert (reply.status, reply.body["field"]) == (415, "Content-Encoding")
