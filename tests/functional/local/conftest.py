from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mneme_local.server import LocalHTTPServer
from tests.functional.local.support import LocalServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """One local server per test module, in a fresh data folder on a free port."""
    running = LocalServer(Path(tmp_path_factory.mktemp("local-data"))).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def stub_server() -> Iterator[LocalHTTPServer]:
    """The local HTTP server in this process, every event answered ``{"ok": 1}``: its own wire, no API behind."""

    def handle_event(event: dict[str, Any]) -> dict[str, Any]:
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps({"ok": 1})}

    httpd = LocalHTTPServer(0, b"k" * 32, handle_event, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
