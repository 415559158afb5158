"""Calls of the configuration: agents, their tasks, skills, the caller's settings."""

from __future__ import annotations

from typing import Any

from mneme_client import models
from mneme_client.calls.base import (
    Call,
    ListPage,
    Tagged,
    as_dict,
    as_nothing,
    as_page,
    as_tagged,
    body_of,
    compact,
    seg,
)


def health() -> Call[dict[str, Any]]:
    return Call("GET", "/v1/health", as_dict)


def list_agents(cursor: str | None = None) -> Call[ListPage]:
    """A page of the caller's agents (the clients' ``list_agents`` follows the cursors to the last)."""
    return Call("GET", "/v1/agents", as_page("agents"), params=compact(cursor=cursor))


def get_agent(agent_id: str) -> Call[Tagged]:
    return Call("GET", f"/v1/agents/{seg(agent_id)}", as_tagged)


def put_agent(agent_id: str, agent: models.AgentBody | dict[str, Any], *, if_match: str | None = None) -> Call[Tagged]:
    """``if_match``: the ``etag`` of what was read (412 if it changed since), or ``"*"`` (412 if it does not exist)."""
    headers = {"If-Match": if_match} if if_match else {}
    return Call("PUT", f"/v1/agents/{seg(agent_id)}", as_tagged, body=body_of(agent), headers=headers)


def agent_revisions(agent_id: str, cursor: str | None = None) -> Call[ListPage]:
    """A page of the agent's revisions, newest first (each ``{at, change, by, etag, agent}``)."""
    return Call("GET", f"/v1/agents/{seg(agent_id)}/revisions", as_page("revisions"), params=compact(cursor=cursor))


def delete_agent(agent_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/agents/{seg(agent_id)}", as_nothing)
