"""Tasks, skills and the caller's settings through the client (sync and async), against a real local server."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from mneme_client import ApiError, AsyncClient, Client, local_token
from tests.functional.local.support import LocalServer


@pytest.fixture
def client(server: LocalServer) -> Client:
    return Client(server.base, local_token(f"cfg-{uuid.uuid4().hex[:8]}", folder=server.data_dir))


def _status(error: pytest.ExceptionInfo[ApiError]) -> int:
    return error.value.status


def test_an_agents_tasks_are_saved_listed_read_revised_and_deleted(client: Client) -> None:
    client.put_agent("helper", {"label": "Helper"})
    first = client.put_task("helper", "triage", {"name": "Triage", "context_prompt": "Sort the inbox."})
    client.put_task("helper", "digest", {"name": "Digest"})
    assert sorted(task["task_id"] for task in client.list_tasks("helper")) == ["digest", "triage"]
    read = client.get_task("helper", "triage")
    assert (read["name"], read.etag) == ("Triage", first.etag)
    client.put_task("helper", "triage", {"name": "Triage v2"}, if_match=read.etag)
    with pytest.raises(ApiError) as stale:
        client.put_task("helper", "triage", {"name": "Lost"}, if_match=read.etag)
    assert _status(stale) == 412
    assert [r["task"]["name"] for r in client.task_revisions("helper", "triage")] == ["Triage v2", "Triage"]
    with pytest.raises(ApiError) as refused:
        client.delete_task("helper", "triage", if_match=read.etag)
    assert _status(refused) == 412
    client.delete_task("helper", "triage", if_match=client.get_task("helper", "triage").etag)
    with pytest.raises(ApiError) as gone:
        client.get_task("helper", "triage")
    assert _status(gone) == 404


def test_skills_are_saved_listed_read_revised_and_deleted(client: Client) -> None:
    name = f"sk-{uuid.uuid4().hex[:6]}"
    saved = client.put_skill(name, {"description": "Summarise", "content": "Write three bullets."})
    assert name in [skill["name"] for skill in client.list_skills()]
    assert client.get_skill(name)["content"] == "Write three bullets."
    client.put_skill(name, {"description": "Summarise", "content": "Write five bullets."}, if_match=saved.etag)
    with pytest.raises(ApiError) as stale:
        client.put_skill(name, {"description": "x", "content": "y"}, if_match=saved.etag)
    assert _status(stale) == 412
    assert [r["change"] for r in client.skill_revisions(name)] == ["saved", "saved"]
    client.delete_skill(name)
    assert name not in [skill["name"] for skill in client.list_skills()]


def test_settings_are_read_and_saved_and_a_stale_save_refused(client: Client) -> None:
    read = client.get_settings()
    assert read.etag is not None
    saved = client.put_settings({"name": "Alice", "timezone": "Europe/Paris"}, if_match=read.etag)
    assert (saved["name"], saved["timezone"]) == ("Alice", "Europe/Paris")
    with pytest.raises(ApiError) as stale:
        client.put_settings({"name": "Mallory"}, if_match=read.etag)
    assert _status(stale) == 412
    assert client.get_settings()["name"] == "Alice"


def test_the_async_client_has_the_same_configuration_methods(server: LocalServer) -> None:
    async def scenario() -> tuple[list[str], str, str, list[str]]:
        token = local_token(f"cfg-async-{uuid.uuid4().hex[:8]}", folder=server.data_dir)
        async with AsyncClient(server.base, token) as client:
            await client.put_agent("helper", {"label": "Helper"})
            saved = await client.put_task("helper", "triage", {"name": "Triage"})
            tasks = [task["task_id"] for task in await client.list_tasks("helper")]
            revised = await client.task_revisions("helper", "triage")
            await client.delete_task("helper", "triage", if_match=saved.etag)
            await client.put_skill("sk", {"description": "d", "content": "c"})
            skill = (await client.get_skill("sk"))["content"]
            await client.skill_revisions("sk")
            await client.delete_skill("sk")
            settings = await client.put_settings({"name": "Bob"}, if_match=(await client.get_settings()).etag)
            left = [task["task_id"] for task in await client.list_tasks("helper")]
            return tasks, skill, settings["name"], left + [r["change"] for r in revised]

    assert asyncio.run(scenario()) == (["triage"], "c", "Bob", ["saved"])
