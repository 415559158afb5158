from __future__ import annotations

from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.runs.service import StepResult, start_run
from mneme.models.agent import Agent, Skill, Task
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller, UserSettings
from tests.support.deps import World, make_world

ALICE = Caller(user_id="alice")
BOB = Caller(user_id="bob")


@pytest.fixture
def world() -> World:
    return make_world(OfflineModel())


def add_agent(world: World, agent_id: str = "master", owner: str = "alice", **fields: Any) -> Agent:
    agent = Agent(agent_id=agent_id, owner=owner, label=fields.pop("label", agent_id.title()), **fields)
    world.deps.config.put_agent(agent)
    return agent


def add_task(world: World, agent: Agent, task_id: str = "default", **fields: Any) -> Task:
    task = Task(task_id=task_id, agent_id=agent.agent_id, owner=agent.owner, **fields)
    world.deps.config.put_task(task)
    return task


def add_skill(world: World, name: str, owner: str = "alice", **fields: Any) -> Skill:
    skill = Skill(
        name=name,
        owner=owner,
        description=fields.pop("description", f"{name} skill"),
        content=fields.pop("content", f"Do {name} well."),
        **fields,
    )
    world.deps.config.put_skill(skill)
    return skill


def run(world: World, text: str, caller: Caller = ALICE, agent_id: str = "master", **fields: Any) -> StepResult:
    return start_run(world.deps, caller, RunRequest(agent_id=agent_id, input=text, **fields))


def settings(world: World, user: str = "alice", **fields: Any) -> None:
    world.deps.config.put_settings(user, UserSettings(**fields))
