"""The per-container cache of tool lists discovered on MCP servers (issue 20).

An entry is keyed by a digest of everything that decides what a server answers: its URL, the auth it is
called with (the resolved credentials, hashed, so a rotated secret is a new entry) and, when the server is
told who the caller is, that user id. Entries live ``ttl`` seconds of the injected monotonic clock; a failed
discovery is never cached, so a server that comes back is used at the next run.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

from mneme.ports.mcp import McpEndpoint, McpToolInfo

MAX_ENTRIES = 256


def catalog_key(endpoint: McpEndpoint) -> str:
    oauth = endpoint.oauth
    material = [
        endpoint.url,
        sorted(endpoint.headers.items()),
        [oauth.token_url, oauth.client_id, oauth.client_secret, oauth.scope] if oauth else None,
    ]
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


class McpCatalog:
    """Thread-safe: the servers of one run are discovered in parallel."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[float, tuple[McpToolInfo, ...]]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, *, now: float) -> tuple[McpToolInfo, ...] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] <= now:
                self._entries.pop(key, None)
                return None
            return entry[1]

    def put(self, key: str, tools: Sequence[McpToolInfo], *, now: float, ttl: float) -> None:
        if ttl <= 0:
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
                while len(self._entries) >= MAX_ENTRIES:
                    self._entries.pop(next(iter(self._entries)))
            self._entries[key] = (now + ttl, tuple(tools))
