"""The unit tier never touches the network: every test runs with sockets blocked (pytest-socket).

No host is allowed, not even a Unix socket, and name resolution is blocked too; a unit test cannot opt out
(``socket_enabled``, ``@pytest.mark.enable_socket`` or ``allow_hosts`` here stop the collection). A test that
needs a socket does not belong here: put it in ``tests/functional``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

UNIT = Path(__file__).parent
OPT_OUTS = ("enable_socket", "allow_hosts")


@pytest.fixture(autouse=True)
def _no_network(socket_disabled: None) -> None:
    """Requesting pytest-socket's ``socket_disabled`` blocks ``socket.socket``, ``getaddrinfo`` and
    ``gethostbyname`` for the test (restored at teardown)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(UNIT):
            continue
        fixtures = getattr(item, "fixturenames", ())
        if "socket_enabled" in fixtures or any(item.get_closest_marker(mark) for mark in OPT_OUTS):
            raise pytest.UsageError(f"{item.nodeid}: a unit test may not open sockets (move it to tests/functional)")
