"""What a run needs from the config store, loaded in one batch read (settings, agent, task, skills)."""

from __future__ import annotations

from dataclasses import dataclass

from mneme.models.agent import Agent, Skill, Task
from mneme.models.user import UserSettings
from mneme.ports import ConfigStore


@dataclass(frozen=True)
class RunConfig:
    settings: UserSettings
    agent: Agent
    task: Task | None
    skills: dict[str, Skill]  # the agent's assigned skills that exist, by name, in the agent's order


def load_run_config(config: ConfigStore, user_id: str, agent_id: str, task_id: str | None) -> RunConfig:
    """The agent must be the user's own or global; a named task must exist (404 otherwise)."""
    loaded = config.load_run_config(user_id, agent_id, task_id)
    return RunConfig(loaded.settings, loaded.agent, loaded.task, {skill.name: skill for skill in loaded.skills})
