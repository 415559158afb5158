from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.local.support import LocalServer


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """One real local server (``python -m mneme_local.server``, as ``make run``) for the client's tests, on a
    free port or ``$MNEME_CLIENT_TEST_PORT`` (a machine that hands out fixed ports)."""
    port = int(os.environ["MNEME_CLIENT_TEST_PORT"]) if os.environ.get("MNEME_CLIENT_TEST_PORT") else None
    running = LocalServer(Path(tmp_path_factory.mktemp("client-server")), port).start()
    try:
        yield running
    finally:
        running.stop()
