"""The synchronous client: ``Client(base_url, token)``; every method is one call of :mod:`mneme_client.calls`,
sent by :class:`mneme_client.transport.SyncBase`; the methods are mixins, one per group of routes
(:mod:`mneme_client.methods`)."""

from __future__ import annotations

from mneme_client.methods.account import Account
from mneme_client.methods.chats import Chats
from mneme_client.methods.config import Agents
from mneme_client.methods.documents import Documents
from mneme_client.methods.memory import Memory
from mneme_client.methods.skills import Skills
from mneme_client.methods.streams import Streams
from mneme_client.transport import DEFAULT_URL, api_base, auth_headers, default_url

__all__ = ["DEFAULT_URL", "Client", "api_base", "auth_headers", "default_url"]


class Client(Agents, Skills, Streams, Memory, Documents, Chats, Account):
    """mneme's HTTP API. ``base_url`` (its ``/v1`` may be given) defaults to ``$MNEME_URL`` (else
    ``127.0.0.1:$MNEME_PORT``, else ``:8000``), ``token`` to ``$MNEME_TOKEN``. Errors raise
    :class:`mneme_client.ApiError`; a 429/503 is sent again after its ``Retry-After`` (at most ``retries``
    times, each wait at most ``max_retry_wait`` seconds) when sending it twice is safe (:mod:`mneme_client.retry`)."""

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
