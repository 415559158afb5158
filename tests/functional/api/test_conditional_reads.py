"""Conditional GETs (RFC 9110 §13.2.2): ``If-None-Match`` naming the current ETag (or ``*``) answers ``304 Not
Modified`` with the tag and no body, so a client that keeps what it read asks again without fetching it again;
``If-Match`` that no longer holds is a 412. Before, both headers were ignored on a GET (200, the whole body)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

AGENTS = "/v1/agents/researcher"
NS = "vector.user.alice.notes"


def _saved(api: Api) -> dict[str, str]:
    """Each conditional resource, saved once: its path."""
    api.put(AGENTS, AGENT)
    api.put(f"{AGENTS}/tasks/daily", {"name": "Daily"})
    api.put("/v1/skills/tone", {"description": "Tone", "content": "Write plainly."})
    api.put("/v1/me/settings", {"name": "Alice"})
    doc_id = api.post("/v1/memory/documents", {"namespace": NS, "content": "Tea at four."}).body["ids"][0]
    return {
        "agent": AGENTS,
        "task": f"{AGENTS}/tasks/daily",
        "skill": "/v1/skills/tone",
        "settings": "/v1/me/settings",
        "memory": f"/v1/memory/documents/{doc_id}",
    }


def _get(api: Api, path: str, **headers: str) -> Any:
    return api.get(path, headers={k.replace("_", "-"): v for k, v in headers.items()})


@pytest.mark.parametrize("kind", ["agent", "task", "skill", "settings", "memory"])
def test_if_none_match_with_the_current_tag_is_304_without_a_body(api: Api, kind: str) -> None:
    path = _saved(api)[kind]
    tag = api.get(path).headers["etag"]
    reply = _get(api, path, if_none_match=tag)
    assert (reply.status, reply.text, reply.headers["etag"]) == (304, "", tag)


@pytest.mark.parametrize("kind", ["agent", "memory"])
def test_if_none_match_with_an_older_tag_answers_the_resource(api: Api, kind: str) -> None:
    path = _saved(api)[kind]
    reply = _get(api, path, if_none_match='"0123456789abcdef0123"')
    assert reply.status == 200 and reply.body and reply.headers["etag"] != '"0123456789abcdef0123"'


def test_if_none_match_compares_weakly_and_takes_a_list_and_a_star(api: Api) -> None:
    path = _saved(api)["agent"]
    tag = api.get(path).headers["etag"]
    assert _get(api, path, if_none_match=f"W/{tag}").status == 304
    assert _get(api, path, if_none_match=f'"0123456789abcdef0123", {tag}').status == 304
    assert _get(api, path, if_none_match="*").status == 304


def test_a_changed_agent_is_sent_again(api: Api) -> None:
    path = _saved(api)["agent"]
    tag = api.get(path).headers["etag"]
    api.put(path, {**AGENT, "label": "Changed"})
    reply = _get(api, path, if_none_match=tag)
    assert reply.status == 200 and reply.body["label"] == "Changed"


def test_if_match_that_no_longer_holds_is_412_with_the_current_tag(api: Api) -> None:
    path = _saved(api)["agent"]
    old = api.get(path).headers["etag"]
    current = api.put(path, {**AGENT, "label": "Changed"}).headers["etag"]
    reply = _get(api, path, if_match=old)
    assert (reply.status, reply.headers["etag"]) == (412, current)
    assert _get(api, path, if_match=current).status == 200


def test_a_malformed_if_none_match_on_a_get_is_a_400(api: Api) -> None:
    path = _saved(api)["agent"]
    reply = _get(api, path, if_none_match="not-a-tag")
    assert (reply.status, reply.body["field"]) == (400, "if-none-match")


@pytest.mark.parametrize("path", ["/v1/me/settings", "/v1/agents/nobody", "/v1/health", "/v1/memory/search"])
def test_no_answer_is_kept_by_a_browser_or_a_proxy(api: Api, path: str) -> None:
    reply = api.post(path, {"query": "tea"}) if path.endswith("search") else api.get(path)
    assert reply.headers["cache-control"] == "no-store"


def test_a_304_is_not_kept_either(api: Api) -> None:
    path = _saved(api)["settings"]
    reply = _get(api, path, if_none_match=api.get(path).headers["etag"])
    assert (reply.status, reply.headers["cache-control"]) == (304, "no-store")
