"""A run's configuration, pinned when its first step loaded it.

A run that waits — for a person's approval, a delegated child, or its next step after the fast path's budget — is
resumed by the state machine, possibly hours later. Each later step runs the agent, task, skills and settings the
run started with, carried in its checkpoint, not whatever an edit saved since: the run's ``agent_version`` names
what its steps ran, and a mid-run edit never mixes two system prompts in one conversation (nor breaks its prompt
cache). A new run, and a child delegated later, run the agent as it is when they are created.

**A revocation applies at once** (:func:`narrowed`): a tool, external tool, MCP server or delegate taken off the
agent since is no longer offered to or callable by the run, and an MCP server or external tool still on it is
reached as it is configured now (its address, its credentials); nothing added since is offered. A run whose
agent was deleted meanwhile fails at its next step, as before — also when an agent of that id of another owner is
found in its place (the global one once the user's own is deleted, the user's own saved over a global one): the
run never takes its tools, servers or credentials from an agent it did not start with.

Pinned only when a checkpoint is written (a run that finishes in its first step writes none), as the stored JSON
of each item (nulls left out, as the configuration store keeps them), read back ignoring fields a later release
added."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from mneme.errors import NotFound
from mneme.models.agent import Agent, Skill, Task
from mneme.models.common import GLOBAL_OWNER, STORED
from mneme.models.user import UserSettings
from mneme.ports.stores import RunConfig


def _stored(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_none=True)


def pin(config: RunConfig) -> dict[str, Any]:
    """The configuration as the checkpoint keeps it."""
    return {
        "settings": _stored(config.settings),
        "agent": _stored(config.agent),
        "task": _stored(config.task) if config.task is not None else None,
        "skills": {name: _stored(skill) for name, skill in config.skills.items()},
    }


def unpin(pinned: dict[str, Any]) -> RunConfig:
    """The configuration a checkpoint kept (:func:`pin`)."""
    task = pinned.get("task")
    return RunConfig(
        UserSettings.model_validate(pinned["settings"], extra="ignore", context=STORED),
        Agent.model_validate(pinned["agent"], extra="ignore"),
        Task.model_validate(task, extra="ignore") if task is not None else None,
        {name: Skill.model_validate(skill, extra="ignore") for name, skill in pinned["skills"].items()},
    )


def narrowed(pinned: RunConfig, current: RunConfig) -> RunConfig:
    """``pinned`` with only the capabilities ``current`` (the configuration as stored now) still grants."""
    agent, now = pinned.agent, current.agent
    if now.owner != agent.owner:
        started = "the global agent" if agent.owner == GLOBAL_OWNER else "your agent"
        found = "a global one" if now.owner == GLOBAL_OWNER else "your own"
        raise NotFound(
            f"agent {agent.agent_id!r} not found: {started} this run started with was deleted or is hidden by "
            f"{found} of that id",
            field="agent_id",
        )
    servers = {server.name: server for server in now.mcp_servers}
    external = {tool.name: tool for tool in now.external_tools}
    delegates = set(now.delegate_names)
    kept = agent.model_copy(
        update={
            "tools": [tool for tool in agent.tools if tool in now.tools],
            "external_tools": [external[tool.name] for tool in agent.external_tools if tool.name in external],
            "mcp_servers": [servers[server.name] for server in agent.mcp_servers if server.name in servers],
            "delegates": [entry for entry in agent.delegate_entries if entry.agent in delegates],
        }
    )
    return RunConfig(pinned.settings, kept, pinned.task, pinned.skills)
