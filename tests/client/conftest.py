from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.local.support import LocalServer


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """One real local server (``python -m mneme_local.server``, as ``make run``) for the client's tests."""
    running = LocalServer(Path(tmp_path_factory.mktemp("client-server"))).start()
    try:
        yield running
    finally:
        running.stop()
