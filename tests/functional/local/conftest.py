from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.local.support import LocalServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """One local server per test module, in a fresh data folder on a free port."""
    running = LocalServer(Path(tmp_path_factory.mktemp("local-data"))).start()
    try:
        yield running
    finally:
        running.stop()
