"""The opt-in e2e suite's target: a deployed stack. Never part of ``make test`` (not in pytest's testpaths).

Configure one of:

* ``MNEME_E2E_URL`` (the ``ApiUrl`` output) and ``MNEME_E2E_TOKEN`` (a Cognito user's ID token);
* ``make e2e STACK=mneme-dev`` (``MNEME_E2E_STACK``): the outputs are read with boto3 (AWS credentials and
  region from the environment); with ``CREATE_USER=1`` (``MNEME_E2E_CREATE_USER=1``) a test user is created
  in the stack's pool with the Cognito admin APIs for the session and deleted afterwards.

The EventBridge test also needs the stack (its bus name) and credentials allowed to put events on it.
Unconfigured, every test is skipped with one line saying what to set.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.e2e.client import Api
from tests.e2e.stack import stack_outputs

NOT_CONFIGURED = "e2e: set MNEME_E2E_URL and MNEME_E2E_TOKEN, or run `make e2e STACK=<stack> [CREATE_USER=1]`"


@dataclass
class Target:
    url: str
    token: str
    stack: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    session: Any = None


def _configured() -> bool:
    return bool(
        os.environ.get("MNEME_E2E_STACK") or (os.environ.get("MNEME_E2E_URL") and os.environ.get("MNEME_E2E_TOKEN"))
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)
            if not _configured():
                item.add_marker(pytest.mark.skip(reason=NOT_CONFIGURED))


def _cognito_user(session: Any, outputs: dict[str, str]) -> Iterator[str]:
    """A throwaway user of the stack's pool (admin APIs), its ID token; deleted at the end."""
    cognito = session.client("cognito-idp")
    pool, client = outputs["UserPoolId"], outputs["UserPoolClientId"]
    username = f"e2e-{secrets.token_hex(4)}@example.com"
    password = "E2e-" + secrets.token_urlsafe(18) + "9a"
    cognito.admin_create_user(
        UserPoolId=pool,
        Username=username,
        UserAttributes=[{"Name": "email", "Value": username}, {"Name": "email_verified", "Value": "true"}],
        MessageAction="SUPPRESS",
    )
    try:
        cognito.admin_set_user_password(UserPoolId=pool, Username=username, Password=password, Permanent=True)
        auth = cognito.admin_initiate_auth(
            UserPoolId=pool,
            ClientId=client,
            AuthFlow="ADMIN_USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": username, "PASSWORD": password},
        )
        yield str(auth["AuthenticationResult"]["IdToken"])
    finally:
        cognito.admin_delete_user(UserPoolId=pool, Username=username)


@pytest.fixture(scope="session")
def target() -> Iterator[Target]:
    stack = os.environ.get("MNEME_E2E_STACK")
    if not stack:
        yield Target(os.environ["MNEME_E2E_URL"], os.environ["MNEME_E2E_TOKEN"])
        return
    import boto3

    session = boto3.Session(region_name=os.environ.get("MNEME_E2E_REGION") or None)
    outputs = stack_outputs(stack, session=session)
    url = os.environ.get("MNEME_E2E_URL") or outputs["ApiUrl"]
    if os.environ.get("MNEME_E2E_CREATE_USER") == "1":
        for token in _cognito_user(session, outputs):
            yield Target(url, token, stack, outputs, session)
        return
    given = os.environ.get("MNEME_E2E_TOKEN")
    if not given:
        pytest.fail("MNEME_E2E_STACK is set but there is no token: set MNEME_E2E_TOKEN or CREATE_USER=1")
    yield Target(url, given, stack, outputs, session)


@pytest.fixture(scope="session")
def api(target: Target) -> Api:
    return Api(target.url, target.token)


@pytest.fixture(scope="session")
def tag() -> str:
    """A suffix that keeps this session's agents, chats and memories apart from earlier ones."""
    return secrets.token_hex(3)


@pytest.fixture(scope="session")
def agents(api: Api, tag: str) -> Iterator[dict[str, str]]:
    """The session's agents (offline model: deterministic on AWS too); deleted at the end."""
    ids = {"sub": f"e2e-sub-{tag}", "master": f"e2e-master-{tag}", "asker": f"e2e-asker-{tag}"}
    offline = {"provider": "offline", "model_id": "offline"}
    own = "vector.user.${user_id}.*"
    api.call("PUT", f"/v1/agents/{ids['sub']}", {"label": f"Sub {tag}", "model": offline})
    api.call(
        "PUT",
        f"/v1/agents/{ids['master']}",
        {"label": f"Master {tag}", "model": offline, "tools": ["delegate-to-agent"], "delegates": [ids["sub"]]},
    )
    api.call(
        "PUT",
        f"/v1/agents/{ids['asker']}",
        {
            "label": f"Asker {tag}",
            "model": offline,
            "tools": ["memory-search"],
            "tool_approval_default": "prompt",
            "memory_policy": {"tool_read_namespaces": [own]},
        },
    )
    yield ids
    for agent_id in ids.values():
        api.call("DELETE", f"/v1/agents/{agent_id}", expect=(204, 404))
