"""Delegation rules (SPEC §6) and the tool-approval rule for event-triggered runs (SPEC §7).

* :func:`can_offer_delegation` — ``delegate-to-agent`` is offered only when the agent lists delegates
  and the run is below the depth limit.
* :func:`resolve_target` — the guards: depth (master = 0, a run at depth 5 cannot delegate), no
  self-delegation (same agent id, or label equal ignoring case), the target must be one of the caller's
  ``delegates`` (ids or labels) and usable by the user (among the candidate agents the caller could load).
  A refusal raises :class:`~mneme.errors.DelegationRefused` (or its subclass
  :class:`~mneme.errors.DepthLimitExceeded`): a tool error whose message the calling model sees after
  ``Error:``; it never crashes the run.
* :func:`sub_run_context` — what the sub-agent inherits (ids, approval mode, ``depth + 1``, parent and
  root run ids) and its starting history: the parent's conversation without system messages, tool calls
  and results only where both are present — all of it (``full``), its last N messages (``tail:N``) or
  none (``isolated``); ``fork`` is ``full`` plus the parent's cacheable request prefix
  (:mod:`mneme.context.fork`), the broadest mode, so only a ``delegates`` entry can allow it — the
  narrower of the caller's ``delegates`` entry and the tool call
  (:func:`context_mode`). A child never gets more than its parent: its approval mode is the parent's, or
  its own agent's default when that is stricter (:func:`narrower_approval`). The delegation input is
  *not* part of ``history``: it is the sub-run's current user message (``input``), to which the assembler
  appends the volatile suffix. When the inherited history ends with a user turn, the two user turns meet
  and the assembler, which packs consecutive same-role messages into one turn, yields one user message
  whose **last** text block is the delegation input (see :meth:`SubRunContext.starting_messages`).

Pure functions: no I/O.
"""

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from mneme.errors import DelegationRefused, DepthLimitExceeded
from mneme.models import (
    Agent,
    ChatMessage,
    ReasoningMessage,
    Run,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
)
from mneme.models.agent import CONTEXT_MODE_PATTERN
from mneme.models.run import ToolApproval
from mneme.spec_limits import MAX_DELEGATION_DEPTH


# --------------------------------------------------------------------------------------------- approval
def effective_approval(
    requested: ToolApproval | None, agent_default: ToolApproval, *, event_triggered: bool
) -> ToolApproval:
    """The run's tool-approval mode: the request's, else the agent's default. An event-triggered run has
    no person to ask, so ``prompt`` becomes ``denied`` there (an event asking for ``granted`` gets it)."""
    mode = requested or agent_default
    if event_triggered and mode == "prompt":
        return "denied"
    return mode


# --------------------------------------------------------------------------------------------- guards
def can_offer_delegation(agent: Agent, depth: int) -> bool:
    """Whether ``delegate-to-agent`` is offered to ``agent`` in a run at ``depth``."""
    return bool(agent.delegates) and depth < MAX_DELEGATION_DEPTH


def check_depth(depth: int) -> None:
    """Raise :class:`DepthLimitExceeded` when a run at ``depth`` may not start a sub-run."""
    if depth >= MAX_DELEGATION_DEPTH:
        raise DepthLimitExceeded(
            f"delegation refused: the maximum delegation depth is {MAX_DELEGATION_DEPTH} and this run is "
            f"already at depth {depth}; answer with your own tools instead",
            details={"depth": depth, "max_depth": MAX_DELEGATION_DEPTH},
        )


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def refers_to(reference: str, agent: Agent) -> bool:
    """Whether ``reference`` (an agent id or label) names ``agent``; both compared ignoring case."""
    return _same(reference, agent.agent_id) or _same(reference, agent.label)


def is_self(reference: str, caller: Agent) -> bool:
    return refers_to(reference, caller)


def _allowed_text(caller: Agent) -> str:
    return ", ".join(caller.delegate_names) if caller.delegates else "none"


def resolve_target(reference: str, *, caller: Agent, candidates: Sequence[Agent], depth: int) -> Agent:
    """The agent that ``delegate-to-agent(agent=reference)`` names, after every guard of SPEC §6.

    ``candidates`` are the agents the user may use (own first, then global); an id match wins over a
    label match, then the candidates' order decides.
    """
    check_depth(depth)
    reference = reference.strip()
    if not reference:
        raise DelegationRefused(
            f'delegation refused: "agent" must name an agent (allowed: {_allowed_text(caller)})',
            field="agent",
        )
    if is_self(reference, caller):
        raise DelegationRefused(
            f'delegation refused: "{reference}" is this agent itself; an agent cannot delegate to itself',
            field="agent",
        )
    matches = _ordered_matches(reference, candidates)
    for target in matches:
        if not _in_delegates(target, caller):
            continue
        if _same(target.agent_id, caller.agent_id):
            raise DelegationRefused(
                f'delegation refused: "{reference}" is this agent itself; an agent cannot delegate to itself',
                field="agent",
            )
        return target
    if matches:
        reason = f'agent "{reference}" is not one of this agent\'s delegates'
    elif any(_same(reference, entry) for entry in caller.delegate_names):
        reason = f'agent "{reference}" is not available to you'
    else:
        reason = f'unknown agent "{reference}"'
    raise DelegationRefused(
        f"delegation refused: {reason} (allowed: {_allowed_text(caller)})",
        field="agent",
        details={"agent": reference},
    )


def _ordered_matches(reference: str, candidates: Iterable[Agent]) -> list[Agent]:
    agents = list(candidates)
    by_id = [agent for agent in agents if _same(reference, agent.agent_id)]
    by_label = [agent for agent in agents if _same(reference, agent.label) and agent not in by_id]
    return by_id + by_label


def _in_delegates(target: Agent, caller: Agent) -> bool:
    return any(refers_to(entry, target) for entry in caller.delegate_names)


# --------------------------------------------------------------------------------------------- what it gets
_PERMISSIVENESS: dict[str, int] = {"denied": 0, "prompt": 1, "granted": 2}
_MODE = re.compile(CONTEXT_MODE_PATTERN)


def narrower_approval(parent: ToolApproval, own_default: ToolApproval) -> ToolApproval:
    """The sub-run's approval mode: the parent's, never more permissive, and its own agent's default when
    that is stricter (``denied`` < ``prompt`` < ``granted``)."""
    return parent if _PERMISSIVENESS[parent] <= _PERMISSIVENESS[own_default] else own_default


def _breadth(mode: str) -> float:
    if mode == "fork":  # the full history and the parent's system prompt and tools too (issue 35.4)
        return float("inf")
    if mode == "full":
        return 1e9
    if mode == "isolated":
        return 0.0
    return float(mode.removeprefix("tail:"))


def context_mode(caller: Agent, target: Agent, requested: object = None) -> str:
    """What the sub-agent sees of the conversation: the caller's ``delegates`` entry for ``target`` bounds
    it, and the tool call's ``context`` may only narrow it. An invalid requested mode is refused."""
    allowed = next((e.context for e in caller.delegate_entries if refers_to(e.agent, target)), "full")
    if requested is None or requested == "":
        return allowed
    if not isinstance(requested, str) or not _MODE.match(requested):
        raise DelegationRefused(
            f'delegation refused: "context" must be "fork", "full", "isolated" or "tail:<N>", not {requested!r}',
            field="context",
        )
    return requested if _breadth(requested) < _breadth(allowed) else allowed


def history_for(mode: str, parent_history: Iterable[ChatMessage]) -> list[ChatMessage]:
    """The inherited history in a context mode (tool calls and results kept only in pairs, also at the cut)."""
    inherited = inherited_history(parent_history)
    if mode == "isolated":
        return []
    if mode.startswith("tail:"):
        return inherited_history(inherited[-int(mode.removeprefix("tail:")) :])
    return inherited


# --------------------------------------------------------------------------------------------- sub-run
class SubRunContext(BaseModel, defer_build=True):
    """Everything a sub-run inherits from its parent; the rest it loads by itself (SPEC §6)."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    task_id: str | None = None
    input: str
    history: tuple[ChatMessage, ...] = ()
    user_id: str
    chat_id: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    tool_approval: ToolApproval
    depth: int = Field(ge=1)  # the limit is enforced by check_depth (and the state machine), not by parsing
    parent_run_id: str
    root_run_id: str


def inherited_history(parent_history: Iterable[ChatMessage]) -> list[ChatMessage]:
    """The parent's conversation without system messages and without the parent's reasoning blocks (signed
    for the parent's own model calls), keeping tool calls and results only where both the call and its
    result are present (the pending ``delegate-to-agent`` call itself is dropped)."""
    messages = [m for m in parent_history if not isinstance(m, SystemMessage | ReasoningMessage)]
    calls = {m.call_id for m in messages if isinstance(m, ToolCallMessage)}
    results = {m.call_id for m in messages if isinstance(m, ToolResultMessage)}
    paired = calls & results
    return [m for m in messages if not isinstance(m, ToolCallMessage | ToolResultMessage) or m.call_id in paired]


def sub_run_context(
    parent: Run,
    parent_history: Iterable[ChatMessage],
    *,
    agent_id: str,
    input: str,
    task_id: str | None = None,
    context: str = "full",
    own_approval_default: ToolApproval = "granted",
) -> SubRunContext:
    """The context of a sub-run of ``parent`` for ``agent_id`` (already resolved by
    :func:`resolve_target`; ``context`` by :func:`context_mode`). Raises :class:`DepthLimitExceeded` when
    ``parent`` may not delegate."""
    check_depth(parent.depth)
    return SubRunContext(
        agent_id=agent_id,
        task_id=task_id,
        input=input,
        history=tuple(history_for(context, parent_history)),
        user_id=parent.user_id,
        chat_id=parent.chat_id,
        project_id=parent.project_id,
        session_id=parent.session_id,
        tool_approval=narrower_approval(parent.tool_approval, own_approval_default),
        depth=parent.depth + 1,
        parent_run_id=parent.run_id,
        root_run_id=parent.root_run_id or parent.run_id,
    )
