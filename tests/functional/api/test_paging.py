"""GET /v1/runs/{id}/context, /v1/runs/{id}/events and /v1/chats/{id} page: a run whose recorded requests
total more than Lambda's 6 MB response limit reads back completely, every page under the limit (measured
as the Lambda response document API Gateway receives), on each ItemTable backend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.models import Chat, Run, RunEvent, TextMessage
from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from tests.functional.adapters.item_backends import BACKENDS
from tests.functional.api.conftest import Api
from tests.functional.api.paging_support import all_pages, lambda_bytes, paged_api
from tests.support.deps import make_world

# quotes and non-ASCII text: each is escaped twice on its way into the Lambda response (\" -> \\\")
PROSE = 'He said "the tea is ready" — über grün, 5\\6. '


@pytest.fixture(params=BACKENDS)
def paged(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Api]:
    yield from paged_api(request.param, tmp_path)


def _run(api: Api, run_id: str = "run-big", user: str = "alice") -> str:
    at = api.world.clock.now()
    api.world.deps.runs.create_run(
        Run(run_id=run_id, user_id=user, agent_id="helper", root_run_id=run_id, created_at=at, updated_at=at)
    )
    return run_id


def _request(seq: int, chars: int) -> dict[str, Any]:
    text = (f"[{seq}] " + PROSE * (chars // len(PROSE) + 1))[:chars]
    return {"modelId": "us.amazon.nova-lite-v1:0", "messages": [{"role": "user", "content": [{"text": text}]}]}


def test_a_run_whose_requests_total_more_than_6_mb_reads_back_completely(paged: Api) -> None:
    # Given a run with 16 recorded model requests of 450,000 characters each (each spills over chunks)
    run_id = _run(paged)
    stored = [_request(seq, 450_000) for seq in range(1, 17)]
    for seq, request in enumerate(stored, start=1):
        paged.world.deps.runs.put_request(run_id, seq, request)
    recorded = sum(len(json.dumps(r).encode()) for r in stored)
    assert recorded > 6 * 1024 * 1024, recorded
    unpaged = len(json.dumps(json.dumps({"requests": stored})))
    assert unpaged > LAMBDA_RESPONSE_BYTES, "one response with every request would be refused by Lambda"
    # When the client follows the cursor from the first page to the last
    requests, sizes = all_pages(paged, f"/v1/runs/{run_id}/context", "requests")
    # Then it got every request, in order, exactly once, and no page came near Lambda's limit
    assert requests == stored
    assert len(sizes) >= 3
    assert max(sizes) < LAMBDA_RESPONSE_BYTES


def test_a_single_request_larger_than_a_response_is_a_413_that_says_so(paged: Api) -> None:
    run_id = _run(paged)
    paged.world.deps.runs.put_request(run_id, 1, {"modelId": "m", "text": '"' * 1_400_000})
    status, _size, body = lambda_bytes(paged, f"/v1/runs/{run_id}/context")
    assert status == 413
    assert body["error"] == "payload_too_large" and "model request 1" in body["message"]


def test_events_page_by_limit_and_the_cursor_is_the_last_seq(paged: Api) -> None:
    run_id = _run(paged)
    at = paged.world.clock.now()
    paged.world.deps.runs.append_events(
        run_id, [RunEvent(seq=s, type="warning", at=at, data={"message": f"w{s}"}) for s in range(1, 251)]
    )
    path = f"/v1/runs/{run_id}/events"
    _, _, first = lambda_bytes(paged, path, limit="100")
    assert [e["seq"] for e in first["events"]] == list(range(1, 101))
    assert first["cursor"] == "100"
    _, _, by_after = lambda_bytes(paged, path, limit="100", after="100")  # the long-poll form of the cursor
    _, _, by_cursor = lambda_bytes(paged, path, limit="100", cursor="100")
    assert by_after == by_cursor
    assert [e["seq"] for e in by_after["events"]] == list(range(101, 201))
    events, _ = all_pages(paged, path, "events", limit="100")
    assert [e["seq"] for e in events] == list(range(1, 251))
    _, _, past = lambda_bytes(paged, path, after="250")
    assert past == {"events": [], "cursor": None}


def test_a_chat_larger_than_a_response_reads_back_completely(paged: Api) -> None:
    # Given alice's chat of 80 messages of 90,000 characters
    at = paged.world.clock.now()
    stored = [TextMessage(role="user" if i % 2 == 0 else "assistant", text=f"[{i}] " + PROSE * 1900) for i in range(80)]
    paged.world.deps.chats.create_chat(
        Chat(chat_id="c-big", user_id="alice", title="long", created_at=at, updated_at=at, messages=stored)
    )
    # When every page is read
    messages, sizes = all_pages(paged, "/v1/chats/c-big", "messages")
    # Then the messages are all there, in order, and each page fit
    assert [m["text"] for m in messages] == [m.text for m in stored]
    assert len(sizes) >= 3 and max(sizes) < LAMBDA_RESPONSE_BYTES
    _, _, page = lambda_bytes(paged, "/v1/chats/c-big", limit="5")
    assert (page["chat_id"], page["title"], len(page["messages"]), page["cursor"]) == ("c-big", "long", 5, "4")


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("/v1/runs/run-big/events", {"cursor": "abc"}, "cursor"),
        ("/v1/runs/run-big/events", {"cursor": "3", "after": "4"}, "after"),
        ("/v1/runs/run-big/events", {"limit": "0"}, "limit"),
        ("/v1/runs/run-big/context", {"cursor": "-1"}, "cursor"),
        ("/v1/runs/run-big/context", {"limit": "1001"}, "limit"),
        ("/v1/chats/c1", {"cursor": "１２"}, "cursor"),
    ],
)
def test_a_bad_page_argument_is_a_400_naming_it(paged: Api, path: str, query: dict[str, str], field: str) -> None:
    _run(paged)
    at = paged.world.clock.now()
    paged.world.deps.chats.create_chat(Chat(chat_id="c1", user_id="alice", title="t", created_at=at, updated_at=at))
    status, _size, body = lambda_bytes(paged, path, **query)
    assert (status, body["field"]) == (400, field), body


def test_another_users_pages_are_not_found(paged: Api) -> None:
    run_id = _run(paged, user="bob")
    paged.world.deps.runs.put_request(run_id, 1, _request(1, 10))
    for path in (f"/v1/runs/{run_id}/context", f"/v1/runs/{run_id}/events"):
        status, _size, body = lambda_bytes(paged, path)
        assert (status, body["error"]) == (404, "not_found")


def test_the_openapi_document_describes_the_paging() -> None:
    api = Api(make_world(None))  # type: ignore[arg-type]
    document = api.get("/v1/openapi.json").body
    for path in ("/v1/runs/{run_id}/events", "/v1/runs/{run_id}/context", "/v1/chats/{chat_id}"):
        parameters = {p["name"] for p in document["paths"][path]["get"]["parameters"]}
        assert {"limit", "cursor"} <= parameters, path
    assert "after" in {p["name"] for p in document["paths"]["/v1/runs/{run_id}/events"]["get"]["parameters"]}
    schemas = document["components"]["schemas"]
    for view in ("EventsView", "RequestsView", "ChatView"):
        assert "cursor" in schemas[view]["properties"], view
