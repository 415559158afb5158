"""Where the openai-compatible adapter may connect (issue 31 defect 8): MCP's egress rules, for model endpoints.

Unless the deployment allows private networks (``MNEME_MODEL_ALLOW_PRIVATE_NETWORKS``: local mode's default,
so ``make run`` reaches a model server on this machine; never on AWS unless set), a base URL must be
``https``, and each new connection resolves the endpoint's name once, checks every address it resolves to
(:mod:`mneme.egress`: loopback, private, link-local — the instance metadata service —, reserved, NAT64,
IPv4-mapped/compatible IPv6, numeric hosts such as ``127.1`` or ``2852039166``) and connects its socket to
the address it checked. The connection keeps the name for everything else — TLS's SNI and certificate check,
the ``Host`` header — so a DNS answer that changes between the check and the connection (rebinding) is never
used. Proxies from the environment are not used then (a proxy would resolve the name itself). A refused
destination is :class:`~mneme.errors.ModelRequestRejected` (retrying cannot help) and nothing is sent.

Redirects are never followed (the adapter posts with ``allow_redirects=False``; a 3xx is refused too).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from mneme.adapters.models.deadline import deadline_connection
from mneme.egress import public_https_problem, resolve_public
from mneme.errors import ModelRequestRejected


def check_base_url(url: str, *, allow_private: bool) -> None:
    """Refuse what the URL itself says (the scheme, an IP literal, ``localhost``, a numeric host)."""
    problem = None if allow_private else public_https_problem(url)
    if problem:
        raise ModelRequestRejected(
            f"the model endpoint is refused in this deployment: {problem}", details={"host": urlsplit(url).hostname}
        )


def _pinned(connection: type) -> type:
    class Pinned(connection):  # type: ignore[misc]
        """A urllib3 connection whose socket goes to the address checked, the name kept for TLS and Host."""

        def _new_conn(self) -> Any:
            address, problem = resolve_public(self.host, self.port)
            if address is None:
                raise ModelRequestRejected(
                    f"the model endpoint is refused in this deployment: {problem}", details={"host": self.host}
                )
            name: str = self._dns_host  # type: ignore[has-type]
            self._dns_host = address  # what urllib3 opens the socket to (else the name, resolved again) ...
            try:
                return super()._new_conn()
            finally:
                self._dns_host = name  # ... and only that: ``host`` (TLS's SNI and check, Host) is the name

    return Pinned


def _pools(*, pinned: bool) -> dict[str, type]:
    """Pools whose connections honour a :func:`~mneme.adapters.models.deadline.bounded` deadline, and when
    ``pinned`` connect to the address checked."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    def connection(cls: type) -> type:
        bounded = deadline_connection(cls)
        return _pinned(bounded) if pinned else bounded

    class Pool(HTTPConnectionPool):
        ConnectionCls = connection(HTTPConnection)

    class TlsPool(HTTPSConnectionPool):
        ConnectionCls = connection(HTTPSConnection)

    return {"http": Pool, "https": TlsPool}


def guarded_session(*, allow_private: bool, retry: Any, pool_size: int) -> Any:
    """A ``requests`` session for a model endpoint: retries as given, every connection bounded by the running
    call's deadline, and every new connection checked and pinned unless private networks are allowed."""
    import requests
    from requests.adapters import HTTPAdapter

    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry, pool_maxsize=pool_size)
    adapter.poolmanager.pool_classes_by_scheme = _pools(pinned=not allow_private)
    if not allow_private:
        session.trust_env = False
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session
