"""Local development tokens, as ``make token USER=alice`` prints them, without the server's code.

The local server (``make run``) verifies HS256 JWTs signed with the key in ``<data dir>/jwt-dev-key``
(``$MNEME_DATA_DIR``, else ``.local-data``): ``sub`` is the user, ``iss`` ``mneme-local``, ``aud`` ``mneme``,
and ``cognito:groups: ["admin"]`` makes an admin. This module signs the same claims with the standard library.
The key is created by the server (or ``make token``) on first use; it is never created here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from pathlib import Path
from typing import Any

from mneme_client.errors import ClientError

KEY_FILE = "jwt-dev-key"
DEFAULT_DATA_DIR = ".local-data"
DEFAULT_HOURS = 12.0


def data_dir() -> Path:
    return Path(os.environ.get("MNEME_DATA_DIR") or DEFAULT_DATA_DIR)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def read_key(folder: str | Path | None = None) -> bytes:
    path = Path(folder if folder is not None else data_dir()) / KEY_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise ClientError(f"no development key at {path}: start the local server (make run) once first") from None
    if len(key) < 32:
        raise ClientError(f"the development key {path} is empty or truncated")
    return key.encode("ascii")


def local_token(
    user: str,
    *,
    admin: bool = False,
    hours: float = DEFAULT_HOURS,
    folder: str | Path | None = None,
    now: float | None = None,
) -> str:
    """A token the local server accepts for ``user`` (signed with the data folder's development key)."""
    if not user or user != user.strip():
        raise ClientError("the user id must be a non-empty string without surrounding spaces")
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "sub": user,
        "iss": "mneme-local",
        "aud": "mneme",
        "iat": issued,
        "exp": issued + int(hours * 3600),
        "token_use": "access",
    }
    if admin:
        claims["cognito:groups"] = ["admin"]
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(read_key(folder), f"{header}.{payload}".encode("ascii"), hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64(signature)}"
