"""The model clients by provider (the ``ModelRegistry`` of :class:`mneme.engine.deps.Deps`), used by every root.

A Bedrock call is made with a client whose read timeout fits the run's budget (``bedrock_timed``, one per
whole second, one attempt each; the adapter retries what fits). A client is created on first use and reused
for the container's life (thread-safe: the local server and the state machine's steps share it): one per
provider, and for ``openai-compatible`` one per (base URL, key secret) — the base URL being the agent's
endpoint when the deployment allows it, else the deployment's. ``offline_fallback`` is local mode's choice:
a Bedrock agent without Bedrock here is answered by the deterministic offline model (reported once through
``on_fallback``) instead of failing with :class:`~mneme.errors.ModelUnavailable`. An openai-compatible agent
never is (issue 33.2): without a base URL (its endpoint, or the deployment's default) its run fails, saying so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from mneme.adapters.aws.timed_calls import Attempts, TimedClients
from mneme.adapters.models.traced import TracedModel
from mneme.errors import ModelUnavailable
from mneme.models.agent import ModelSpec
from mneme.ports.models import ModelClient


class OpenAIFactory(Protocol):
    """How a root builds openai-compatible clients: which base URL an agent's endpoint maps to (None: not
    allowed, or no default), and a client for a base URL and an optional per-agent key secret."""

    def base_url_for(self, endpoint: str | None) -> str | None: ...
    def client(self, base_url: str, secret_arn: str | None) -> ModelClient: ...


class OpenAIClients:
    """The roots' :class:`OpenAIFactory`: ``base_url_for`` from the settings' allow list, one client per base
    URL and key source (``keys_for(secret_arn)``); the adapter (and ``requests``) is imported on first use."""

    def __init__(
        self,
        base_url_for: Callable[[str | None], str | None],
        keys_for: Callable[[str | None], Any],
        *,
        allow_private_networks: bool = False,
    ) -> None:
        self._base_url_for, self._keys_for = base_url_for, keys_for
        self._allow_private = allow_private_networks

    def base_url_for(self, endpoint: str | None) -> str | None:
        return self._base_url_for(endpoint)

    def client(self, base_url: str, secret_arn: str | None) -> ModelClient:
        from mneme.adapters.models.openai import OpenAICompatibleModel

        return OpenAICompatibleModel(base_url, self._keys_for(secret_arn), allow_private=self._allow_private)


class ModelClients:
    def __init__(
        self,
        bedrock: Callable[[], Any] | None,
        *,
        openai: OpenAIFactory | None = None,
        bedrock_timed: TimedClients | None = None,
        offline_fallback: bool = False,
        on_fallback: Callable[[str], None] | None = None,
    ) -> None:
        self._bedrock = bedrock
        self._openai = openai
        self._bedrock_timed = bedrock_timed
        self._offline_fallback = offline_fallback
        self._on_fallback = on_fallback
        self._cache: dict[tuple[str, ...], ModelClient] = {}
        self._lock = threading.Lock()

    def client_for(self, spec: ModelSpec) -> ModelClient:
        key: tuple[str, ...] = (spec.provider,)
        base_url = None
        if spec.provider == "openai-compatible" and self._openai is not None:
            base_url = self._openai.base_url_for(spec.endpoint)
            key = (spec.provider, base_url or "", spec.api_key_secret_arn or "")
        with self._lock:
            if key not in self._cache:
                self._cache[key] = TracedModel(self._create(spec, base_url), spec.provider)
            return self._cache[key]

    def _create(self, spec: ModelSpec, base_url: str | None) -> ModelClient:
        from mneme.adapters.models.offline import OfflineModel

        provider = spec.provider
        if provider == "offline":
            return OfflineModel()
        if provider == "bedrock" and self._bedrock is not None:
            from mneme.adapters.models.bedrock import BedrockModel

            return BedrockModel(self._bedrock(), timed=self._bedrock_timed, attempts=Attempts())
        if provider == "openai-compatible":
            if self._openai is not None and base_url is not None:
                return self._openai.client(base_url, spec.api_key_secret_arn)
            raise ModelUnavailable(
                f"the openai-compatible model {spec.model_id!r} has no base URL here: its endpoint "
                f"{spec.endpoint!r} is not allowed, or the deployment's default MNEME_OPENAI_BASE_URL is unset"
                if spec.endpoint
                else f"the openai-compatible model {spec.model_id!r} has no base URL here: the deployment's "
                "default MNEME_OPENAI_BASE_URL is unset (set it, or the agent's model.endpoint)"
            )
        if self._offline_fallback:
            if self._on_fallback is not None:
                self._on_fallback(provider)
            return OfflineModel()
        raise ModelUnavailable(f"the model provider {provider!r} is not available here")
