"""An export's archive downloaded through the client: its records, from a real local server (sync and async);
nothing before it is ready; the caller's token never sent to a presigned URL on another origin."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import httpx
import pytest

from mneme_client import AsyncClient, Client, ClientError, local_token
from mneme_client.models import ExportView
from tests.functional.local.support import LocalServer


def _ready(client: Client) -> ExportView:
    export = client.request_export()
    deadline = time.monotonic() + 30
    while export.status not in {"ready", "failed"} and time.monotonic() < deadline:
        time.sleep(0.1)
        export = client.get_export(export.export_id)
    assert export.status == "ready"
    return export


def test_a_ready_export_is_downloaded_record_by_record(server: LocalServer) -> None:
    user = f"dl-{uuid.uuid4().hex[:8]}"
    client = Client(server.base, local_token(user, folder=server.data_dir))
    client.write_memory(f"vector.user.{user}.memory", "The Apollo review is due on March 15.")
    export = _ready(client)
    records = list(client.download_export(export))
    assert "The Apollo review is due on March 15." in str(records)
    assert str(list(client.download_export(export.export_id))) == str(records)

    async def download() -> list[dict[str, Any]]:
        async with AsyncClient(server.base, local_token(user, folder=server.data_dir)) as aclient:
            return [record async for record in aclient.download_export(export.export_id)]

    assert str(asyncio.run(download())) == str(records)


def test_an_export_not_ready_has_nothing_to_download() -> None:
    pending = {"export_id": "e1", "status": "pending", "counts": {}, "created_at": "now", "expires_at": "later"}
    answer = httpx.MockTransport(lambda request: httpx.Response(200, json=pending))
    with Client("http://mneme.test", "t", transport=answer) as client, pytest.raises(ClientError):
        list(client.download_export(ExportView.model_validate(pending)))


@pytest.mark.parametrize(
    ("url", "authorized"),
    [("https://bucket.s3.amazonaws.com/exports/e1?X-Amz-Signature=x", False), ("http://mneme.test/_local/e1", True)],
)
def test_the_token_goes_only_to_the_apis_own_origin(url: str, authorized: bool) -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, text='{"kind": "memory"}\n\n{"kind": "run"}\n')

    ready = ExportView(
        export_id="e1", status="ready", counts={}, created_at="now", expires_at="later", download_url=url
    )
    with Client("http://mneme.test", "secret", transport=httpx.MockTransport(answer)) as client:
        assert list(client.download_export(ready)) == [{"kind": "memory"}, {"kind": "run"}]
    assert ("Authorization" in sent[0].headers) is authorized
