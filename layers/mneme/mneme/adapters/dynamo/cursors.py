"""A page's cursor: the key DynamoDB's next query starts after (``ExclusiveStartKey``), as an opaque string.

The key travels to the client and back, so decoding checks it as untrusted input: its attribute names must be
exactly the query's, every value a string, and ``valid`` must hold (the store's own check that the key is one
of the caller's items) — else :class:`InvalidInput` on ``cursor``, never another user's page or a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Collection, Mapping

from mneme.errors import InvalidInput


def encode_cursor(key: Mapping[str, str]) -> str:
    raw = json.dumps(dict(key), separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, names: Collection[str], valid: Callable[[dict[str, str]], bool]) -> dict[str, str]:
    """The start key of ``cursor``, with exactly the attributes ``names``, that ``valid`` accepts."""
    invalid = InvalidInput("cursor is not valid for this query", field="cursor")
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid from None
    if not isinstance(data, dict) or set(data) != set(names) or not all(isinstance(v, str) for v in data.values()):
        raise invalid
    key = {str(name): str(value) for name, value in data.items()}
    if not valid(key):
        raise invalid
    return key
