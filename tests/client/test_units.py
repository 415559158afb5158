"""The client's pieces without a server: the SSE decoder, local tokens, errors, resuming a follow."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from mneme_client import ApiError, AsyncClient, Client, ClientError, TextDelta, imports, local_token, render
from mneme_client.models import EventView
from mneme_client.sse import SSEDecoder
from mneme_local import token as server_token


def _feed(decoder: SSEDecoder, text: str) -> list[tuple[str, str, str | None]]:
    events = [decoder.feed(line) for line in text.split("\n")]
    return [(e.event, e.data, e.id) for e in events if e is not None]


def test_sse_decoder_yields_an_event_at_each_blank_line() -> None:
    decoder = SSEDecoder()
    sent = _feed(decoder, 'id: 3\nevent: run_event\ndata: {"a":1}\n\n: keep-alive\n\nevent: end\ndata: {}\n\n')
    assert sent == [("run_event", '{"a":1}', "3"), ("end", "{}", None)]
    assert decoder.last_event_id == "3"


def test_sse_decoder_joins_data_lines_and_waits_for_the_blank_line() -> None:
    decoder = SSEDecoder()
    assert _feed(decoder, "data: one\ndata: two") == []
    assert _feed(decoder, "") == [("message", "one\ntwo", None)]


def test_local_token_is_accepted_by_the_servers_verifier(tmp_path: Path) -> None:
    key = server_token.signing_key(tmp_path)
    claims = server_token.verify(key, local_token("alice", admin=True, folder=tmp_path))
    assert claims["sub"] == "alice"
    assert claims["cognito:groups"] == ["admin"]
    assert "cognito:groups" not in server_token.verify(key, local_token("bob", folder=tmp_path))


def test_local_token_from_another_key_is_refused(tmp_path: Path) -> None:
    server_token.signing_key(tmp_path / "a")
    key_b = server_token.signing_key(tmp_path / "b")
    with pytest.raises(jwt.InvalidSignatureError):
        server_token.verify(key_b, local_token("alice", folder=tmp_path / "a"))


def test_local_token_without_a_key_says_to_start_the_server(tmp_path: Path) -> None:
    with pytest.raises(ClientError, match="make run"):
        local_token("alice", folder=tmp_path)
    assert not (tmp_path / "jwt-dev-key").exists()


def _client(handler: httpx.MockTransport) -> Client:
    return Client("http://mneme.test", "t0ken", transport=handler)


def test_an_error_answer_raises_api_error_with_its_fields() -> None:
    body = {"error": "invalid_input", "message": "top_k: too big", "field": "top_k"}
    transport = httpx.MockTransport(lambda request: httpx.Response(400, json=body))
    with _client(transport) as client, pytest.raises(ApiError) as caught:
        client.search_memory("x")
    assert (caught.value.status, caught.value.code, caught.value.field) == (400, "invalid_input", "top_k")


def test_requests_carry_the_bearer_token() -> None:
    seen: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("Authorization"))
        return httpx.Response(200, json={"agents": [{"agent_id": "a"}]})

    with _client(httpx.MockTransport(answer)) as client:
        assert client.list_agents() == [{"agent_id": "a"}]
    assert seen == ["Bearer t0ken"]


def _pages(key: str, seen: list[str | None]) -> httpx.MockTransport:
    """A list of five items over three pages of two, recording the cursor each request sent."""
    pages = {None: (["a", "b"], "b"), "b": (["c", "d"], "d"), "d": (["e"], None)}

    def answer(request: httpx.Request) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        seen.append(cursor)
        names, after = pages[cursor]
        return httpx.Response(200, json={key: [{"id": n} for n in names], "cursor": after})

    return httpx.MockTransport(answer)


def test_list_agents_and_chats_follow_the_cursors_to_the_last_page() -> None:
    seen: list[str | None] = []
    with _client(_pages("agents", seen)) as client:
        assert [a["id"] for a in client.list_agents()] == ["a", "b", "c", "d", "e"]
    with _client(_pages("chats", seen)) as client:
        assert [c["id"] for c in client.list_chats()] == ["a", "b", "c", "d", "e"]
    assert seen == [None, "b", "d"] * 2


def test_the_async_client_follows_the_cursors_too() -> None:
    seen: list[str | None] = []

    async def listed() -> list[dict[str, Any]]:
        async with AsyncClient("http://mneme.test", "t0ken", transport=_pages("chats", seen)) as client:
            return await client.list_chats()

    assert [c["id"] for c in asyncio.run(listed())] == ["a", "b", "c", "d", "e"]
    assert seen == [None, "b", "d"]


def _event(seq: int, kind: str) -> str:
    return f"id: {seq}\nevent: run_event\ndata: {json.dumps({'seq': seq, 'type': kind, 'at': 'now'})}\n\n"


def test_follow_resumes_a_closed_stream_after_the_last_event_id() -> None:
    requests: list[str | None] = []
    streams = [
        _event(1, "run_started") + 'event: delta\ndata: {"run_id": "r1", "text": "hel"}\n\n',
        _event(2, "completed") + "event: end\ndata: {}\n\n",
    ]

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request.headers.get("Last-Event-ID"))
        return httpx.Response(200, text=streams[len(requests) - 1], headers={"Content-Type": "text/event-stream"})

    with _client(httpx.MockTransport(answer)) as client:
        items = list(client.follow("r1"))
    assert requests == [None, "1"]
    assert [i.type if isinstance(i, EventView) else i for i in items] == [
        "run_started",
        TextDelta("r1", "hel"),
        "completed",
    ]


def test_follow_gives_up_on_a_stream_that_never_ends() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=""))
    with _client(transport) as client, pytest.raises(ClientError, match="closed"):
        list(client.follow("r1"))


def test_async_follow_resumes_after_the_last_event_id_too() -> None:
    import asyncio

    from mneme_client import AsyncClient

    requests: list[str | None] = []
    streams = [_event(1, "run_started"), _event(2, "completed") + "event: end\ndata: {}\n\n"]

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request.headers.get("Last-Event-ID"))
        return httpx.Response(200, text=streams[len(requests) - 1])

    async def follow() -> list[str]:
        async with AsyncClient("http://mneme.test", "t", transport=httpx.MockTransport(answer)) as client:
            return [item.type async for item in client.follow("r1") if isinstance(item, EventView)]

    assert asyncio.run(follow()) == ["run_started", "completed"]
    assert requests == [None, "1"]


def test_import_batches_are_of_one_hundred_each_entry_with_its_index() -> None:
    batches = list(imports.import_batches(({"content": f"turn {n}"} for n in range(250)), namespace="vector.user.a.m"))
    assert [len(batch) for batch in batches] == [100, 100, 50]
    assert batches[2][0].lines == (200,)
    assert imports.sent(batches[2])[0]["content"] == "turn 200"


def test_an_imported_items_token_is_its_own_else_one_of_its_namespace_moment_and_content() -> None:
    items = [
        {"content": "hi", "namespace": "vector.user.a.m", "client_token": "mine"},
        {"content": "hi", "namespace": "vector.user.a.m"},
        {"content": "hi", "namespace": "vector.user.a.m", "observed_at": "2026-03-01T10:00:00Z"},
        {"content": "hi", "namespace": "vector.user.a.other"},
    ]
    (batch,) = imports.import_batches(items)
    tokens = [item["client_token"] for item in imports.sent(batch)]
    assert tokens[0] == "mine" and len(set(tokens)) == 4
    (again,) = imports.import_batches(items)
    assert [item["client_token"] for item in imports.sent(again)] == tokens


def test_an_imported_item_keeps_its_namespace_and_drops_what_the_route_does_not_take() -> None:
    exported = {"id": "d1", "content": "hi", "namespace": "vector.user.a.own", "metadata": {"x": 1}, "tags": ["t"]}
    (batch,) = imports.import_batches([exported, {"content": "yo"}], namespace="vector.user.a.m")
    with_own, without = imports.sent(batch)
    assert set(with_own) == {"content", "namespace", "tags", "client_token"}
    assert (with_own["namespace"], without["namespace"]) == ("vector.user.a.own", "vector.user.a.m")


def test_a_tree_events_delegation_shows_its_childs_depth_indented_by_its_runs() -> None:
    started = EventView.model_validate(
        {"seq": 4, "type": "delegation_started", "at": "now", "agent_id": "researcher", "child_run_id": "c1",
         "depth": 1, "run_id": "r1", "run_depth": 0}
    )  # fmt: skip
    inner = EventView.model_validate({"seq": 1, "type": "run_started", "at": "now", "depth": 1, "run_depth": 1})
    assert render.event_line(started) == "[4] delegation_started researcher → c1 (depth 1)"
    assert render.event_line(inner) == "  [1] run_started"
