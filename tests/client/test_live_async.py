"""The asynchronous client against a real local server: the same API, awaited."""

from __future__ import annotations

import asyncio
import uuid

from mneme_client import ApiError, AsyncClient, local_token
from mneme_client.models import EventView, RunAcceptedView, RunView
from tests.functional.local.support import LocalServer


def _client(server: LocalServer) -> tuple[AsyncClient, str]:
    user = f"async-{uuid.uuid4().hex[:8]}"
    return AsyncClient(server.base, local_token(user, folder=server.data_dir)), user


def test_async_run_and_follow(server: LocalServer) -> None:
    async def scenario() -> tuple[RunView | RunAcceptedView, list[str], str | None]:
        client, _ = _client(server)
        async with client:
            await client.put_agent("helper", {"label": "Helper", "tools": ["memory-search"]})
            run = await client.start_run("helper", "/search anything")
            kinds = [item.type async for item in client.follow(run.run_id) if isinstance(item, EventView)]
            return run, kinds, (await client.get_run(run.run_id)).output

    run, kinds, output = asyncio.run(scenario())
    assert run.status == "succeeded"
    assert (kinds[0], kinds[-1]) == ("run_started", "completed")
    assert output is not None and output.startswith("offline")


def test_async_memory_write_search_export(server: LocalServer) -> None:
    async def scenario() -> tuple[list[str], list[str], list[str]]:
        client, user = _client(server)
        async with client:
            ids = (await client.write_memory(f"vector.user.{user}.memory", "Kate moved the kickoff to Monday.")).ids
            hits = (await client.search_memory("When is the kickoff?")).hits
            exported = [document.id async for document in client.export_memory()]
            return ids, [hit.id for hit in hits], exported

    ids, hit_ids, exported = asyncio.run(scenario())
    assert hit_ids[:1] == ids
    assert exported == ids


def test_async_errors_raise_api_error(server: LocalServer) -> None:
    async def scenario() -> ApiError:
        client, _ = _client(server)
        async with client:
            try:
                await client.get_run("no-such-run")
            except ApiError as error:
                return error
        raise AssertionError("no error")

    error = asyncio.run(scenario())
    assert error.status == 404


def test_async_chats_are_listed(server: LocalServer) -> None:
    async def scenario() -> tuple[list[str], int]:
        client, _ = _client(server)
        async with client:
            await client.put_agent("helper", {"label": "Helper"})
            await client.start_run("helper", "hi", chat_id="c-1")
            chats = [chat["chat_id"] for chat in await client.list_chats()]
            return chats, len((await client.get_chat("c-1")).messages)

    chats, messages = asyncio.run(scenario())
    assert chats == ["c-1"]
    assert messages >= 2


def test_async_list_runs_filters_and_pages(server: LocalServer) -> None:
    async def scenario() -> tuple[list[str], list[str], list[str], list[str]]:
        client, _ = _client(server)
        async with client:
            await client.put_agent("helper", {"label": "Helper", "tools": ["memory-search"]})
            failed = await client.start_run("helper", "/search apollo", budget={"max_model_calls": 1})
            started = [failed.run_id] + [(await client.start_run("helper", f"run {n}")).run_id for n in range(3)]
            by_status = [run.run_id for run in (await client.list_runs(status="failed")).runs]
            paged = [run.run_id async for run in client.iter_runs(page_size=1)]
            stranger, _ = _client(server)
            async with stranger:
                strangers = [run.run_id async for run in stranger.iter_runs()]
            return started, by_status, paged, strangers

    started, by_status, paged, strangers = asyncio.run(scenario())
    assert by_status == started[:1]
    assert paged == started[::-1]
    assert strangers == []


def test_async_import_answers_each_item_by_its_index_and_replays_a_second_import(server: LocalServer) -> None:
    async def scenario() -> tuple[list[tuple[int, int]], list[bool]]:
        client, user = _client(server)
        items = [{"content": f"Kate: item {n} of the import"} for n in range(120)]
        async with client:
            first = [r async for r in client.import_memory(items, namespace=f"vector.user.{user}.memory")]
            again = [r async for r in client.import_memory(items, namespace=f"vector.user.{user}.memory")]
        return [(r.index, r.status) for r in first], [bool(r.replayed) for r in again]

    first, replayed = asyncio.run(scenario())
    assert first == [(n, 201) for n in range(120)]
    assert replayed == [True] * 120
