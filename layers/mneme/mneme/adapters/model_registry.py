"""The model clients by provider (the ``ModelRegistry`` of :class:`mneme.engine.deps.Deps`), used by every root.

A Bedrock call is made with a client whose read timeout fits the run's budget (``bedrock_timed``, one per
whole second, one attempt each; the adapter retries what fits). A client is created on first use and reused
for the container's life (thread-safe: the local server and the state machine's steps share it).
``offline_fallback`` is local mode's choice: an agent whose provider is not available here is answered by the
deterministic offline model (reported once through ``on_fallback``) instead of failing with
:class:`~mneme.errors.ModelUnavailable`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mneme.adapters.timed_calls import Attempts, TimedClients
from mneme.errors import ModelUnavailable
from mneme.models.agent import ModelSpec
from mneme.ports import ModelClient


class ModelClients:
    def __init__(
        self,
        bedrock: Callable[[], Any] | None,
        *,
        bedrock_timed: TimedClients | None = None,
        offline_fallback: bool = False,
        on_fallback: Callable[[str], None] | None = None,
    ) -> None:
        self._bedrock = bedrock
        self._bedrock_timed = bedrock_timed
        self._offline_fallback = offline_fallback
        self._on_fallback = on_fallback
        self._cache: dict[str, ModelClient] = {}
        self._lock = threading.Lock()

    def client_for(self, spec: ModelSpec) -> ModelClient:
        with self._lock:
            if spec.provider not in self._cache:
                self._cache[spec.provider] = self._create(spec.provider)
            return self._cache[spec.provider]

    def _create(self, provider: str) -> ModelClient:
        from mneme.adapters.offline_model import OfflineModel

        if provider == "offline":
            return OfflineModel()
        if provider == "bedrock" and self._bedrock is not None:
            from mneme.adapters.bedrock_model import BedrockModel

            return BedrockModel(self._bedrock(), timed=self._bedrock_timed, attempts=Attempts())
        if self._offline_fallback:
            if self._on_fallback is not None:
                self._on_fallback(provider)
            return OfflineModel()
        raise ModelUnavailable(f"the model provider {provider!r} is not available here")
