"""The WebSocket API's ``$connect`` authorizer: wiring only (:mod:`mneme.api.socket_auth`).

The verifier (issuer, audiences, the issuer's JWKS client) is built on the first call; the JWKS itself is
fetched when the first token arrives and cached for the container's life (an hour per key set).
"""

from __future__ import annotations

import os
from typing import Any

_verifier: Any = None


def _get_verifier() -> Any:
    global _verifier  # noqa: PLW0603 - one verifier (and JWKS cache) per container, created on first use
    if _verifier is None:
        from mneme.composition import build_verifier
        from mneme.settings import Settings

        _verifier = build_verifier(Settings.from_env(os.environ))
    return _verifier


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    from mneme.api.socket_auth import authorize

    return authorize(_get_verifier(), event)
