"""What an agent's or skill's save is told beyond its validation (SPEC §2): a ``max_tokens`` its model cannot write in
time, and an own agent or skill that hides a global one of the same id or name."""

from __future__ import annotations

from collections.abc import Sequence

from mneme.engine.deps import Deps
from mneme.engine.runs.time_budget import step_model_window
from mneme.errors import InvalidInput
from mneme.models.agent import Agent, Skill
from mneme.models.common import GLOBAL_OWNER
from mneme.models.user import Caller
from mneme.spec_limits import OUTPUT_TOKENS_PER_SECOND_FAST, OUTPUT_TOKENS_PER_SECOND_SLOW


def max_tokens_fit(deps: Deps, agent: Agent) -> list[str]:
    """``max_tokens`` against the time a model call gets (issue 11.5): one that cannot be generated within a
    state machine step's model window even at a fast model's speed is refused; one that a slow model could
    not finish gets a warning."""
    max_tokens = agent.model.inference.max_tokens
    if max_tokens is None or agent.model.provider == "offline":
        return []
    window = step_model_window(deps.settings)
    if max_tokens / OUTPUT_TOKENS_PER_SECOND_FAST > window:
        limit = int(window * OUTPUT_TOKENS_PER_SECOND_FAST)
        raise InvalidInput(
            f"model.inference.max_tokens {max_tokens} cannot be generated within a model call's {window:.0f} s "
            f"(at {OUTPUT_TOKENS_PER_SECOND_FAST} tokens/s at most {limit}); lower it",
            field="model.inference.max_tokens",
        )
    if max_tokens / OUTPUT_TOKENS_PER_SECOND_SLOW > window:
        return [
            f"model.inference.max_tokens {max_tokens}: a model writing {OUTPUT_TOKENS_PER_SECOND_SLOW} tokens/s "
            f"needs {max_tokens / OUTPUT_TOKENS_PER_SECOND_SLOW:.0f} s for it, more than a model call's "
            f"{window:.0f} s; a long answer may time out"
        ]
    return []


def hides_global(deps: Deps, caller: Caller, agent: Agent, owned: Sequence[Agent]) -> list[str]:
    """A user's save that creates their own agent where a global one of that id is (``owned``: the owner's agents
    before it): saved, as SPEC §2 lets every user own agents, and from then on it is the one the user's runs,
    delegations and ``GET`` find in its place. The save says so, and how to undo it; for an admin who meant to
    change the global agent (``"global": true`` left out), also how to do that."""
    if agent.owner == GLOBAL_OWNER or any(a.agent_id == agent.agent_id for a in owned):
        return []
    if deps.config.get_agent(GLOBAL_OWNER, agent.agent_id) is None:
        return []
    warning = (
        f"agent {agent.agent_id!r} is now your own and hides the global agent of that id from you: your runs, "
        "delegations and reads use yours, other users still the global one; delete yours to use the global one again"
    )
    if caller.is_admin:
        warning += '; to change the global agent instead, save it with "global": true'
    return [warning]


def skill_hides_global(deps: Deps, caller: Caller, skill: Skill) -> list[str]:
    """As :func:`hides_global`, for a skill (read before its save): the user's agents then load theirs."""
    if skill.owner == GLOBAL_OWNER or deps.config.get_skills(skill.owner, [skill.name]):
        return []
    if not deps.config.get_skills(GLOBAL_OWNER, [skill.name]):
        return []
    warning = (
        f"skill {skill.name!r} is now your own and hides the global skill of that name from you: your agents "
        "load yours, other users' the global one; delete yours to use the global one again"
    )
    if caller.is_admin:
        warning += '; to change the global skill instead, save it with "global": true'
    return [warning]
