"""Secrets of MCP servers' auth on AWS Secrets Manager (issue 20).

A secret is usable by an agent only when its name lies in the owner's folder under the deployment's prefix,
``<prefix><owner>/…`` (``<prefix>__global__/…`` for global agents): one user's agent can never send another
user's token to a server of its choosing. The run function's IAM policy allows ``GetSecretValue`` on
``<prefix>*`` only. Values are kept per container for :data:`TTL_SECONDS` (a rotation is seen after that).
A failed read is told by its error code (``ResourceNotFoundException``, ``AccessDeniedException``), never by
AWS's text, which names the function's role and the account (the reason reaches run events).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import SecretUnavailable
from mneme.observability import traced

TTL_SECONDS = 300.0
_OWNER = re.compile(r"^[A-Za-z0-9_.@+=-]{1,128}$")  # a folder name: no '/', so folders never nest


def secret_name(ref: str) -> str:
    """The name part of a secret ARN (``arn:…:secret:<name>-<6 random characters>``), or the name itself."""
    if ref.startswith("arn:"):
        parts = ref.split(":", 6)
        if len(parts) != 7 or parts[5] != "secret":
            raise SecretUnavailable(f"{ref!r} is not a Secrets Manager secret ARN")
        return parts[6]
    return ref


def owner_folder(prefix: str, owner: str) -> str:
    if not _OWNER.match(owner):
        raise SecretUnavailable("secrets cannot be used by this user id (it cannot name a secret folder)")
    return f"{prefix}{owner}/"


class SecretsManagerStore:
    def __init__(self, client: Any, prefix: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._client, self._prefix, self._clock = client, prefix, clock
        self._cache: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    @traced("secretsmanager.get")
    def get_secret(self, ref: str, *, owner: str) -> str:
        folder = owner_folder(self._prefix, owner)
        if not secret_name(ref).startswith(folder):
            raise SecretUnavailable(f"secret {ref!r} is not in this agent owner's folder {folder!r}")
        now = self._clock()
        with self._lock:
            cached = self._cache.get(ref)
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            value = self._client.get_secret_value(SecretId=ref).get("SecretString")
        except ClientError as exc:  # its text names the function's role and the account: only the code is told
            code = exc.response.get("Error", {}).get("Code") or "ClientError"
            raise SecretUnavailable(f"secret {ref!r} cannot be read ({code})") from exc
        except BotoCoreError as exc:
            raise SecretUnavailable(f"secret {ref!r} cannot be read ({type(exc).__name__})") from exc
        if not isinstance(value, str) or not value.strip():
            raise SecretUnavailable(f"secret {ref!r} holds no text")
        with self._lock:
            self._cache[ref] = (now + TTL_SECONDS, value)
        return value
