"""What the command line is given that cannot be used — a file it cannot read or write, a body that is not
JSON, a value the request's model refuses before anything is sent, or one only the server refuses (its 400 or
422) — said in one line (exit 2), never as a Python traceback; and a missing token, which only the server's 401
reveals, said as what to set (exit 1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mneme_client.client import auth_headers
from mneme_client.errors import ApiError, ClientError


class InputError(Exception):
    """An argument of the command line that cannot be used; its text names it."""


def read_text(source: str) -> str:
    """The text of the file ``source`` (``-``: stdin)."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {source}: {getattr(error, 'strerror', None) or error}") from None


def read_json(source: str) -> Any:
    """The JSON value of the file ``source`` (``-``: stdin)."""
    text = read_text(source)
    try:
        return json.loads(text)
    except ValueError as error:
        raise InputError(f"{'stdin' if source == '-' else source} is not JSON: {error}") from None


def refused(error: ValidationError | OSError) -> str:
    """One line for what was refused: each invalid field and why, or the file and the system's reason."""
    if isinstance(error, OSError):
        return f"{error.filename or 'a file'}: {error.strerror or error}"
    fields = (f"{'.'.join(map(str, item['loc'])) or 'value'}: {item['msg']}" for item in error.errors())
    return f"invalid {error.title}: " + "; ".join(fields)


#: the answers of the server that refuse a value of the request: bad usage, as the client's own refusals
REFUSED_BY_THE_SERVER = (400, 422)


def exit_status(error: ClientError) -> int:
    """2 for a value the server refuses (``mneme runs --limit 0``, ``--since yesterday``, an agent body with
    ``"label": 5``: the client sends them as given), as for one the client refuses itself; 1 for any other error
    (a 401, a 404, a 409, a 5xx, a stream that failed)."""
    return 2 if isinstance(error, ApiError) and error.status in REFUSED_BY_THE_SERVER else 1


def said(error: ClientError, token: str | None) -> str:
    """The line for an error of the API: a 401 when no token was sent says how to give one (the server names the
    ``Authorization`` header, which the command line fills from ``--token`` or ``$MNEME_TOKEN``)."""
    if isinstance(error, ApiError) and error.status == 401 and not auth_headers(token):
        return (
            f"{error.status} {error.code}: no token: set $MNEME_TOKEN or pass --token "
            "(the local server's: export MNEME_TOKEN=$(mneme token <user>))"
        )
    return str(error)
