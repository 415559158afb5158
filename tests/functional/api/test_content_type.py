"""A body not sent as JSON is a 415 naming its content type (issue 33.6), not a misread form whose fields
are "required"; JSON with parameters or a ``+json`` type is JSON; a request without a body needs no type."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.functional.api.conftest import Api, Reply, http_event
from tests.support.deps import World

RUN = {"agent_id": "master", "input": "hello"}


def _send(api: Api, event: dict[str, Any]) -> Reply:
    response = api.runtime.handle(event)
    headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
    return Reply(int(response["statusCode"]), headers, response.get("body") or "")


@pytest.mark.usefixtures("master")
def test_a_form_body_is_a_415_naming_its_type(api: Api, world: World) -> None:
    reply = api.post(
        "/v1/runs", "agent_id=master&input=hello", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert reply.status == 415
    assert (reply.body["error"], reply.body["field"]) == ("unsupported_media_type", "Content-Type")
    assert "'application/x-www-form-urlencoded'" in reply.body["message"]
    assert "Field required" not in reply.body["message"]


@pytest.mark.usefixtures("master")
def test_a_body_without_a_content_type_is_a_415_saying_so(api: Api) -> None:
    event = http_event("POST", "/v1/runs", RUN)
    del event["headers"]["content-type"]
    reply = _send(api, event)
    assert reply.status == 415
    assert "no Content-Type" in reply.body["message"]


@pytest.mark.usefixtures("master")
def test_json_with_a_charset_is_json(api: Api) -> None:
    reply = api.post("/v1/runs", RUN, headers={"content-type": "application/json; charset=utf-8"})
    assert (reply.status, reply.body["output"]) == (200, "offline: hello")


@pytest.mark.usefixtures("master")
def test_the_header_name_is_matched_in_any_case(api: Api) -> None:
    event = http_event("POST", "/v1/runs", RUN)
    del event["headers"]["content-type"]
    event["headers"]["Content-Type"] = "application/json"
    assert _send(api, event).status == 200


def test_a_request_without_a_body_needs_no_content_type(api: Api) -> None:
    event = http_event("GET", "/v1/agents")
    del event["headers"]["content-type"]
    assert _send(api, event).status == 200


def test_an_unauthenticated_form_is_a_401_first(api: Api) -> None:
    reply = api.post("/v1/runs", "a=b", user=None, headers={"content-type": "text/plain"})
    assert reply.status == 401


def test_the_openapi_document_lists_415_among_the_errors(api: Api) -> None:
    document = json.loads(api.get("/v1/openapi.json", user=None).text)
    # a status of its own since each route lists the errors it answers (it was named in `default`'s description)
    assert "415" in document["paths"]["/v1/runs"]["post"]["responses"]


@pytest.mark.usefixtures("master")
@pytest.mark.parametrize("base64_encoded", [False, True])
def test_a_body_behind_a_byte_order_mark_is_read(api: Api, base64_encoded: bool) -> None:
    text = "\ufeff" + json.dumps(RUN)
    event = http_event("POST", "/v1/runs", RUN)
    event["body"] = base64.b64encode(text.encode("utf-8")).decode() if base64_encoded else text
    event["isBase64Encoded"] = base64_encoded
    reply = _send(api, event)
    assert (reply.status, reply.body["output"]) == (200, "offline: hello")


@pytest.mark.usefixtures("master")
def test_a_byte_order_mark_alone_is_no_json_object(api: Api) -> None:
    event = http_event("POST", "/v1/runs", RUN)
    event["body"] = "\ufeff[1]"
    reply = _send(api, event)
    assert (reply.status, reply.body["field"]) == (400, "body")
