"""Privacy over the local server (``make run``): an export is downloaded from the server's file route by its
owner only, and an erasure deletes it with the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.functional.local.support import Client, LocalServer

pytestmark = pytest.mark.slow


def test_an_export_downloads_for_its_owner_only_and_is_gone_after_the_erasure(server: LocalServer) -> None:
    erin_token, frank_token = server.token("erin"), server.token("frank")
    erin = Client(server, erin_token)
    erin.call("PUT", "/v1/me/settings", {"name": "Erin"}, expect=200)
    exported = erin.call("POST", "/v1/me/export", expect=202)
    assert exported["status"] == "ready"  # local mode builds it at once
    status = erin.call("GET", f"/v1/me/exports/{exported['export_id']}", expect=200)
    url: str = status["download_url"]
    assert url.startswith(f"{server.base}/_local/exports/")
    path = url.removeprefix(server.base)
    # the owner downloads the archive ...
    download = server.request("GET", path, token=erin_token)
    assert download.status == 200 and download.headers["Content-Type"] == "application/x-ndjson"
    kinds = [json.loads(line)["kind"] for line in download.raw.decode().splitlines()]
    assert kinds[0] == "export_header" and "settings" in kinds and kinds[-1] == "export_end"
    # ... nobody else does
    assert server.request("GET", path, token=frank_token).status == 404
    assert server.request("GET", path).status == 401
    # and the erasure deletes it with everything else
    receipt = erin.call("DELETE", "/v1/me", expect=200)
    assert receipt["status"] == "done" and receipt["counts"]["settings"] == 1 and receipt["verified"]
    assert server.request("GET", path, token=erin_token).status == 404
    assert erin.call("GET", "/v1/me/settings", expect=200)["name"] == ""


def test_an_export_interrupted_before_its_rename_is_erased_and_archives_are_0600(server: LocalServer) -> None:
    erin = Client(server, server.token("erin2"))
    erin.call("PUT", "/v1/me/settings", {"name": "Erin"}, expect=200)
    erin.call("POST", "/v1/me/export", expect=202)
    (archive,) = (server.data_dir / "exports").rglob("exp-*.ndjson")
    assert archive.stat().st_mode & 0o777 == 0o600
    partial = archive.with_suffix(".partial")
    archive.replace(partial)  # what a kill -9 between the last line and the rename leaves
    partial.chmod(0o644)
    receipt = erin.call("DELETE", "/v1/me", expect=200)
    assert receipt["status"] == "done" and receipt["verified"]
    assert not partial.exists() and not archive.exists()


def test_a_restart_removes_the_partial_archive_a_killed_server_left(tmp_path: Path) -> None:
    partial = tmp_path / "exports" / "exports" / ("b" * 32) / "exp-killed.partial"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b'{"kind":"export_header"}\n')  # what kill -9 during an export leaves
    restarted = LocalServer(tmp_path).start()
    try:
        assert not partial.exists()
    finally:
        restarted.stop()


def _left_running(data_dir: Path, user: str, export_id: str) -> Path:
    """What ``kill -9`` in the middle of an export leaves: its record ``running``, a ``.partial`` archive."""
    from mneme.adapters.dynamo.privacy_ledger import ItemPrivacyLedger
    from mneme_local.sqlite_items import open_local_tables

    main, audit = open_local_tables(data_dir)
    try:
        ledger = ItemPrivacyLedger(main)
        status = ledger.get_export(user, export_id)
        assert status is not None
        ledger.put_export(status.model_copy(update={"status": "running", "bytes": 0, "counts": {}}))
        archive = data_dir / "exports" / status.object_key
    finally:
        main.close()
        audit.close()
    partial = archive.with_suffix(".partial")
    archive.replace(partial)
    partial.write_bytes(partial.read_bytes()[:40])  # cut off mid-line
    return archive


def test_an_export_a_killed_server_left_running_is_built_on_restart(tmp_path: Path) -> None:
    first = LocalServer(tmp_path).start()
    try:
        gail = Client(first, first.token("gail"))
        gail.call("PUT", "/v1/me/settings", {"name": "Gail"}, expect=200)
        export_id = gail.call("POST", "/v1/me/export", expect=202)["export_id"]
    finally:
        first.stop()
    archive = _left_running(tmp_path, "gail", export_id)
    restarted = LocalServer(tmp_path).start()
    try:
        status = Client(restarted, restarted.token("gail")).call("GET", f"/v1/me/exports/{export_id}", expect=200)
        assert status["status"] == "ready" and status["counts"]["settings"] == 1
        assert not archive.with_suffix(".partial").exists()
        lines = archive.read_bytes().decode().splitlines()
        assert json.loads(lines[-1])["kind"] == "export_end" and archive.stat().st_mode & 0o777 == 0o600
    finally:
        restarted.stop()
