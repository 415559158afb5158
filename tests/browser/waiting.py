"""Runs that stay unfinished for the browser tests: an agent whose memory-search call waits for a person."""

from __future__ import annotations

import uuid

from tests.functional.local.support import Client


def careful_agent(alice: Client) -> str:
    """An agent whose every memory-search call asks a person first (no auto-inject)."""
    agent_id = f"careful-{uuid.uuid4().hex[:6]}"
    policy = {"tool_read_namespaces": ["vector.user.${user_id}.*"], "auto_read_enabled": False}
    body = {"label": agent_id, "tools": ["memory-search"], "tool_approval_default": "prompt", "memory_policy": policy}
    alice.call("PUT", f"/v1/agents/{agent_id}", body, expect=200)
    return agent_id


def waiting_run(alice: Client, agent_id: str, text: str) -> str:
    """A run started with ``/search <text>``: it stops at ``waiting_approval``."""
    started = alice.call("POST", "/v1/runs", {"agent_id": agent_id, "input": text}, expect=202)
    assert started["status"] == "waiting_approval", started
    return str(started["run_id"])
