"""Secrets of MCP servers' auth in local mode: environment variables named ``MNEME_MCP_SECRET_…``.

An agent's ``auth.secret`` names the variable (``MNEME_MCP_SECRET_WEATHER``); no other variable can be read
(an agent can never send the machine's AWS credentials to a server). Local mode has one person at the
keyboard, so the owner's folder of the AWS store (:mod:`mneme.adapters.aws.secrets_manager`) does not apply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mneme.errors import SecretUnavailable

PREFIX = "MNEME_MCP_SECRET_"
_NAME = re.compile(r"^MNEME_MCP_SECRET_[A-Z0-9_]{1,100}$")


class EnvironmentSecrets:
    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ

    def get_secret(self, ref: str, *, owner: str) -> str:
        if not _NAME.match(ref):
            raise SecretUnavailable(
                f"in local mode a secret is an environment variable named {PREFIX}<NAME>, not {ref!r}"
            )
        value = self._environ.get(ref, "")
        if not value.strip():
            raise SecretUnavailable(f"the environment variable {ref} is not set")
        return value
