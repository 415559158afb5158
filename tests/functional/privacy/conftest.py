"""Fixtures of the privacy suites: a world per (item backend, memory store) combination."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.adapters.item_backends import make_backend
from tests.functional.api.conftest import api, world  # noqa: F401 - fixtures
from tests.functional.memory.conftest import index_name, os_client, osmem  # noqa: F401 - fixtures
from tests.functional.privacy.support import COMBINATIONS, PrivacyWorld, privacy_world, tmp_store


@pytest.fixture(params=COMBINATIONS, ids=lambda c: f"{c[0]}+{c[1]}")
def pw(request: pytest.FixtureRequest, tmp_path: Any, index_name: str) -> Iterator[PrivacyWorld]:  # noqa: F811
    backend_name, store_kind = request.param
    client = request.getfixturevalue("os_client") if store_kind.startswith("opensearch") else None
    for backend in make_backend(backend_name, tmp_path):
        yield privacy_world(backend, tmp_store(store_kind, tmp_path, client, index_name))
