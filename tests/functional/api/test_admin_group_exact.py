"""Issue 31.11: the admin group is matched by exact name through the HTTP API, whatever API Gateway's
rendering of ``cognito:groups`` (``["ops admin"]`` and ``["ops", "admin"]`` both arrive as ``[ops admin]``):
the rendering is settled by the verified token in the ``Authorization`` header."""

from __future__ import annotations

from typing import Any

import jwt
import pytest

from mneme_local.auth import claims_for_event
from tests.functional.api.conftest import Api

ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/pool"
GLOBAL_AGENT = {"label": "Helpdesk", "global": True}


def _put_global(api: Api, groups: Any, *, token_sub: str = "ops", header: str | None = None) -> int:
    """PUT a global agent as ``ops`` with these groups: the claims rendered as API Gateway passes them, the
    token (signature already checked by the authorizer) in the Authorization header."""
    token = {"sub": token_sub, "iss": ISSUER, "jti": "j-1", "exp": 4_000_000_000, "cognito:groups": groups}
    claims = claims_for_event({**token, "sub": "ops"})
    authorization = header or f"Bearer {jwt.encode(token, 'a-test-key-of-32-bytes-at-least!', algorithm='HS256')}"
    return api.put("/v1/agents/helpdesk", GLOBAL_AGENT, claims=claims, headers={"authorization": authorization}).status


@pytest.mark.parametrize("groups", [["ops admin"], ["admin "], [" admin"], ["ops admin", "users"]])
def test_a_group_name_holding_the_admin_group_and_a_space_is_not_admin(api: Api, world: Any, groups: Any) -> None:
    assert _put_global(api, groups) == 403
    assert world.deps.config.list_agents("__global__") == []


def test_the_admin_group_among_other_groups_is_admin(api: Api) -> None:
    assert _put_global(api, ["ops", "admin"]) == 200


def test_an_ambiguous_rendering_without_a_readable_token_grants_nothing(api: Api) -> None:
    assert _put_global(api, ["ops", "admin"], header="Bearer eyJ.test.jwt") == 403


def test_a_header_token_of_another_subject_is_not_used(api: Api) -> None:
    assert _put_global(api, ["ops", "admin"], token_sub="mallory") == 403


def test_a_single_group_rendering_is_exact_without_the_token(api: Api) -> None:
    # "[admin]" cannot hide a space: it is read as is (the functional tests' claims have no real token)
    assert _put_global(api, ["admin"], header="Bearer eyJ.test.jwt") == 200
