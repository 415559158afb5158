"""Development tokens of the local server: ``python -m mneme_local.token --user alice [--admin]``.

Tokens are HS256 JWTs signed with a random 256-bit key generated once and kept in
``<MNEME_DATA_DIR>/jwt-dev-key`` (mode 0600), so tokens survive restarts of ``make run`` and deleting the
data folder invalidates them. Claims: ``sub`` (the user id), ``iss`` = ``mneme-local``, ``aud`` =
``mneme``, ``iat``, ``exp`` (12 h by default) and, with ``--admin``, ``cognito:groups: ["admin"]`` — the
claims a Cognito user pool would put in the token the deployed API's JWT authorizer verifies.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jwt

from mneme.models.common import reserved_user_id
from mneme_local.files import private_dir

DEFAULT_DATA_DIR = ".local-data"
ISSUER = "mneme-local"
AUDIENCE = "mneme"
ALGORITHM = "HS256"
KEY_FILE = "jwt-dev-key"
DEFAULT_HOURS = 12.0


def data_dir_from_env() -> Path:
    return Path(os.environ.get("MNEME_DATA_DIR") or DEFAULT_DATA_DIR)


def signing_key(data_dir: str | Path) -> bytes:
    """The local development key of ``data_dir``: created on first use (atomically), then read back."""
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        private_dir(path.parent)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it meanwhile
        else:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(32) + "\n")
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 32:
        raise RuntimeError(f"the development key {path} is empty or truncated: delete it to create a new one")
    return key.encode("ascii")


def issue(
    data_dir: str | Path,
    user: str,
    *,
    admin: bool = False,
    hours: float = DEFAULT_HOURS,
    now: float | None = None,
) -> str:
    """A signed token for ``user``."""
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "sub": user,
        "iss": ISSUER,
        "aud": AUDIENCE,
        "iat": issued,
        "exp": issued + int(hours * 3600),
        "token_use": "access",
    }
    if admin:
        claims["cognito:groups"] = ["admin"]
    return jwt.encode(claims, signing_key(data_dir), algorithm=ALGORITHM)


def verify(key: bytes, token: str) -> dict[str, Any]:
    """The verified claims of ``token``; raises :class:`jwt.InvalidTokenError` (expired, bad signature…)."""
    claims: dict[str, Any] = jwt.decode(
        token,
        key,
        algorithms=[ALGORITHM],
        audience=AUDIENCE,
        issuer=ISSUER,
        options={"require": ["sub", "exp", "iat"]},
    )
    return claims


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mneme_local.token", description=__doc__.splitlines()[0])
    parser.add_argument("--user", required=True, help="the user id (the token's sub claim)")
    parser.add_argument("--admin", action="store_true", help="add the admin group (cognito:groups)")
    parser.add_argument("--hours", type=float, default=DEFAULT_HOURS, help="validity in hours (default 12)")
    parser.add_argument("--data-dir", default=None, help="the data folder (default: $MNEME_DATA_DIR or .local-data)")
    args = parser.parse_args(argv)
    user = str(args.user).strip()
    reason = reserved_user_id(user)
    if reason is not None:  # the server would refuse such a token (401): say so now
        parser.error(f"--user cannot be a user id: {reason}")
    data_dir = Path(args.data_dir) if args.data_dir else data_dir_from_env()
    sys.stdout.write(issue(data_dir, user, admin=args.admin, hours=args.hours) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
