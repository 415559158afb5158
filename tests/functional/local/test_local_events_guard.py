"""``POST /_local/events`` (the local stand-in of the event bus) against hostile bodies and tokens (issue 31.11,
31.12): a deeply nested body is a clear 400 before any parser recurses, and only the admin group, matched by
exact name, may send events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jwt
import pytest

from mneme_local.local_events import deliver
from mneme_local.token import ALGORITHM, AUDIENCE, ISSUER, issue, signing_key

EVENT = {"detail-type": "mneme.RunRequested", "detail": {"user_id": "alice", "agent_id": "a", "input": "hi"}}


def _send(tmp_path: Path, body: bytes, token: str) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    handled: list[dict[str, Any]] = []

    def handle(event: dict[str, Any]) -> dict[str, Any]:
        handled.append(event)
        return {"run_id": "run-1"}

    answer = deliver(
        handle, signing_key(tmp_path), method="POST", authorization=f"Bearer {token}", body=body, region="eu-west-1"
    )
    return answer["statusCode"], json.loads(answer["body"]), handled


def _token(tmp_path: Path, groups: Any) -> str:
    """A token of the local key whose ``cognito:groups`` is ``groups`` as given."""
    claims = {"sub": "ops", "iss": ISSUER, "aud": AUDIENCE, "iat": 1, "exp": 4_000_000_000, "cognito:groups": groups}
    return jwt.encode(claims, signing_key(tmp_path), algorithm=ALGORITHM)


def test_a_body_nested_2000_levels_deep_is_a_400_and_reaches_no_handler(tmp_path: Path) -> None:
    body = ("[" * 2000 + "]" * 2000).encode()
    status, answer, handled = _send(tmp_path, body, issue(tmp_path, "ops", admin=True))
    assert (status, answer["error"]) == (400, "invalid_input") and "nest" in answer["message"]
    assert handled == []


def test_an_event_nested_a_few_levels_is_delivered(tmp_path: Path) -> None:
    status, _, handled = _send(tmp_path, json.dumps(EVENT).encode(), issue(tmp_path, "ops", admin=True))
    assert status == 200 and [e["detail-type"] for e in handled] == ["mneme.RunRequested"]


@pytest.mark.parametrize("groups", [["ops admin"], ["admin "], "ops admin", "administrators"])
def test_a_group_that_only_contains_the_admin_groups_name_cannot_send_events(tmp_path: Path, groups: Any) -> None:
    status, _, handled = _send(tmp_path, json.dumps(EVENT).encode(), _token(tmp_path, groups))
    assert status == 403 and handled == []


def test_the_admin_group_among_others_may_send_events(tmp_path: Path) -> None:
    status, _, handled = _send(tmp_path, json.dumps(EVENT).encode(), _token(tmp_path, ["ops", "admin"]))
    assert status == 200 and len(handled) == 1
