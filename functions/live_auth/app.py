"""The WebSocket API's ``$connect`` authorizer: wiring only (:mod:`mneme.api.socket_auth`).

The verifier (issuer, audiences, the issuer's JWKS client) is built on the first call; the JWKS itself is
fetched when the first token arrives and cached for the container's life (an hour per key set).
"""

from __future__ import annotations

import os
from typing import Any

_verifier: Any = None
_admin_group: str = ""


def _get_verifier() -> Any:
    global _verifier, _admin_group  # one verifier (and JWKS cache) per container, created on first use
    if _verifier is None:
        from mneme.composition import build_verifier
        from mneme.settings import Settings

        settings = Settings.from_env(os.environ)
        _verifier, _admin_group = build_verifier(settings), settings.admin_group
    return _verifier


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    from mneme.api.socket_auth import authorize

    verifier = _get_verifier()
    return authorize(verifier, event, admin_group=_admin_group)
