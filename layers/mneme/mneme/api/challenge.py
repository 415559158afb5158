"""The ``WWW-Authenticate`` challenge of a 401 (RFC 6750 §3, issue 33.6): MCP clients and other HTTP clients
read it to tell "send a token" from "your token is not valid" — without it they guess (an MCP client started an
OAuth flow). API Gateway's JWT authorizer sends the same scheme on AWS; the local server and the run function
send this one.

No ``resource_metadata`` (the MCP authorization spec's pointer to RFC 9728 metadata): mneme's tokens come from
Cognito on AWS and ``make token`` locally, not from an OAuth flow an MCP client could run, so pointing a client
at one would only start a flow that cannot finish.
"""

from __future__ import annotations

REALM = "mneme"


def bearer_challenge(problem: str | None) -> str:
    """``Bearer realm="mneme"`` when no token was sent (``problem`` None), else with ``invalid_token`` and the
    reason (quotes and backslashes left out, as the header's quoted-string needs)."""
    if problem is None:
        return f'Bearer realm="{REALM}"'
    description = "".join(c for c in problem if c not in '"\\' and (c == " " or c.isprintable()))[:200]
    return f'Bearer realm="{REALM}", error="invalid_token", error_description="{description}"'
