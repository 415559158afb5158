"""The caller's account through the client (sync and async), against a real local server: remembered
approvals, the audit log (paged, filtered, its chain checked), retention, exports and erasure."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from mneme_client import ApiError, AsyncClient, Client, local_token
from mneme_client.models import RememberedApprovalView, RunAcceptedView
from tests.functional.local.support import LocalServer


@pytest.fixture
def user() -> str:
    return f"acct-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(server: LocalServer, user: str) -> Client:
    return Client(server.base, local_token(user, folder=server.data_dir))


def _until(read: object, done: object, seconds: float = 30) -> object:
    deadline = time.monotonic() + seconds
    value = read()  # type: ignore[operator]
    while not done(value) and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)
        value = read()  # type: ignore[operator]
    return value


def test_an_always_approval_is_remembered_and_revoked(client: Client) -> None:
    client.put_agent("careful", {"label": "Careful", "tools": ["memory-search"], "tool_approval_default": "prompt"})
    run = client.start_run("careful", "/search apollo", wait=False)
    assert isinstance(run, RunAcceptedView) or run.status == "waiting_approval"
    waiting = _until(lambda: client.get_run(run.run_id), lambda r: r.pending_approvals)
    client.answer_approval(run.run_id, waiting.pending_approvals[0].call_id, "always")  # type: ignore[attr-defined]
    (remembered,) = client.remembered_approvals()
    assert (remembered.agent_id, remembered.tool) == ("careful", "memory-search")
    client.revoke_approval(remembered.id)
    assert client.remembered_approvals() == []


def test_the_audit_is_followed_page_by_page_and_filtered(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    for n in range(3):
        client.write_memory(namespace, f"Fact number {n}.")
    every = list(client.iter_audit(page_size=1))
    assert len(every) >= 3
    assert [r.model_dump() for r in every] == [r.model_dump() for r in client.audit_page(limit=100).records]
    writes = list(client.iter_audit(namespace=namespace, page_size=2))
    assert writes and {r.namespace for r in writes} == {namespace}
    report = client.verify_audit()
    assert (report.verified, report.first_broken, report.records >= len(every)) == (True, None, True)


def test_retention_says_how_long_each_kind_is_kept(client: Client) -> None:
    retention = client.retention()  # 0: kept until deleted (the local server's default)
    assert retention.exports_days > 0 and retention.runs_days >= 0
    assert {"episodic", "semantic"} <= set(retention.memory_days)


def test_an_export_is_requested_and_read_back(client: Client, user: str) -> None:
    client.write_memory(f"vector.user.{user}.memory", "Exported fact.")
    started = client.request_export()
    ready = _until(lambda: client.get_export(started.export_id), lambda e: e.status in {"ready", "failed"})
    assert ready.status == "ready" and ready.download_url  # type: ignore[attr-defined]


def test_a_user_erases_themselves_and_an_admin_erases_another(server: LocalServer, client: Client) -> None:
    client.write_memory(f"vector.user.{client.get_settings()['user_id']}.memory", "Forget me.")
    erased = client.erase_me()
    done = _until(client.my_erasure, lambda e: e.status == "done")
    assert done.erasure_id == erased.erasure_id and done.verified  # type: ignore[attr-defined]
    other = f"acct-{uuid.uuid4().hex[:8]}"
    Client(server.base, local_token(other, folder=server.data_dir)).put_agent("helper", {"label": "Helper"})
    with pytest.raises(ApiError) as refused:
        Client(server.base, local_token(other, folder=server.data_dir)).erase_user("someone-else")
    assert refused.value.status == 403
    admin = Client(server.base, local_token("root-admin", folder=server.data_dir, admin=True))
    admin.erase_user(other)
    receipt = _until(lambda: admin.user_erasure(other), lambda e: e.status == "done")
    assert receipt.user_id == other  # type: ignore[attr-defined]


def test_the_async_client_has_the_same_account_methods(server: LocalServer, user: str) -> None:
    async def scenario() -> tuple[int, int, list[RememberedApprovalView], str, str]:
        async with AsyncClient(server.base, local_token(user, folder=server.data_dir)) as client:
            await client.write_memory(f"vector.user.{user}.memory", "An async fact.")
            records = [record async for record in client.iter_audit(page_size=1)]
            page = await client.audit_page()
            await client.verify_audit()
            retention = await client.retention()
            approvals = await client.remembered_approvals()
            export = await client.get_export((await client.request_export()).export_id)
            erased = await client.erase_me()
            mine = await client.my_erasure()
            document = await client.openapi()
            assert erased.erasure_id == mine.erasure_id and "/v1/audit" in document["paths"]
            return len(records), len(page.records), approvals, export.export_id, str(retention.chats_days)

    paged, one_page, approvals, export_id, days = asyncio.run(scenario())
    assert paged == one_page >= 1 and approvals == [] and export_id and days.isdigit()
