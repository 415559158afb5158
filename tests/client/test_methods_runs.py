"""A run's context (the requests it sent its model), its audit, and a context preview through the client (sync
and async), against a real local server."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from mneme_client import AsyncClient, Client, local_token
from tests.functional.local.support import LocalServer


@pytest.fixture
def client(server: LocalServer) -> Client:
    made = Client(server.base, local_token(f"runs-{uuid.uuid4().hex[:8]}", folder=server.data_dir))
    made.put_agent("helper", {"label": "Helper", "tools": ["memory-search"]})
    return made


def _messages(request: dict[str, object]) -> str:
    return str(request.get("messages"))


def test_a_runs_context_answers_each_request_it_sent_its_model(client: Client) -> None:
    run = client.start_run("helper", "/search apollo")
    requests = list(client.iter_run_context(run.run_id, page_size=1))
    assert len(requests) >= 2  # the tool call's request and the answer's: one per page, all followed
    assert all("apollo" in _messages(request) for request in requests)
    first = client.run_context(run.run_id, limit=1)
    assert first.requests == requests[:1] and first.cursor is not None


def test_a_runs_audit_lists_its_records(client: Client) -> None:
    client.write_memory(f"vector.user.{client.get_settings()['user_id']}.memory", "Apollo is due in March.")
    run = client.start_run("helper", "/search apollo")
    audit = client.run_audit(run.run_id)
    assert audit.records and {record.run_id for record in audit.records} == {run.run_id}


def test_a_preview_answers_the_request_without_starting_a_run(client: Client) -> None:
    before = client.list_runs().runs
    preview = client.preview_context("helper", "When is the Apollo review?", explain=True)
    assert "When is the Apollo review?" in str(preview.request)
    assert preview.memory_explanation is not None
    assert client.preview_context("helper", "hi").memory_explanation is None
    assert client.list_runs().runs == before


def test_the_async_client_reads_context_audit_and_previews(server: LocalServer) -> None:
    async def scenario() -> tuple[int, int, str]:
        token = local_token(f"runs-async-{uuid.uuid4().hex[:8]}", folder=server.data_dir)
        async with AsyncClient(server.base, token) as client:
            await client.put_agent("helper", {"label": "Helper", "tools": ["memory-search"]})
            run = await client.start_run("helper", "/search apollo")
            requests = [request async for request in client.iter_run_context(run.run_id, page_size=1)]
            page = await client.run_context(run.run_id)
            await client.run_audit(run.run_id)
            preview = await client.preview_context("helper", "hello")
            return len(requests), len(page.requests), str(preview.request)

    many, one_page, request = asyncio.run(scenario())
    assert many == one_page >= 2
    assert "hello" in request
