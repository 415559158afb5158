"""The caller comes from ``requestContext.authorizer.jwt.claims`` only — never from a body.

* ``sub`` is the user id. One that could collide with a value the key schemes reserve (see
  :func:`mneme.models.common.reserved_user_id`) is refused with a 401, like a missing one.
* ``cognito:groups`` is parsed exactly in the forms it arrives in (:func:`groups_of`), and the admin group
  (a setting, ``MNEME_ADMIN_GROUP``) must be one of the groups, by exact name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mneme.errors import Unauthorized
from mneme.models.common import reserved_user_id
from mneme.models.user import Caller

DEFAULT_ADMIN_GROUP = "admin"


def groups_of(value: Any) -> list[str]:
    """The group names of a ``cognito:groups`` claim, each exactly as named.

    * a JSON list (a token verified locally, a direct invocation): its strings;
    * a string holding a JSON array of strings (``'["admin","users"]'``);
    * API Gateway HTTP API's rendering of an array claim, brackets around names separated by single spaces
      (``'[admin users]'``; Cognito group names contain no white space, so the split is unambiguous there);
    * any other string is one group name.

    Nothing else splits a name: ``x,admin``, ``[admin`` or ``admin]`` stay what they are.
    """
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    if not isinstance(value, str):
        return []
    if value.startswith("[") and value.endswith("]"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return [part for part in value[1:-1].split(" ") if part]
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return list(parsed)
        return []
    return [value] if value else []


def caller_from_claims(claims: Mapping[str, Any] | None, *, admin_group: str = DEFAULT_ADMIN_GROUP) -> Caller:
    sub = (claims or {}).get("sub")
    if not isinstance(sub, str) or not sub.strip():
        raise Unauthorized("a verified token with a 'sub' claim is required")
    reason = reserved_user_id(sub)
    if reason is not None:
        raise Unauthorized(f"the token's 'sub' claim cannot be a user id here: {reason}")
    return Caller(user_id=sub, is_admin=admin_group in groups_of((claims or {}).get("cognito:groups")))


def caller_from_event(event: Mapping[str, Any], *, admin_group: str = DEFAULT_ADMIN_GROUP) -> Caller:
    context = event.get("requestContext") or {}
    claims = ((context.get("authorizer") or {}).get("jwt") or {}).get("claims")
    return caller_from_claims(claims if isinstance(claims, Mapping) else None, admin_group=admin_group)
