"""Fork delegation inside the run engine (issue 35.4): the parent's prefix and what the child sees after it.

The prefix is cut from the parent's last model request — the one whose answer asked for the delegation —
taken from this step's recorder, or from the run store when an earlier step made it (a deferred call).
Behind the prefix the child gets only what the prefix does not hold already, so nothing appears twice:

* the prefix holds no message (the model caches none, or the parent had no history): the whole inherited
  conversation, as in ``full``;
* the parent's request ended with its own tool turns (a tail cache point): those turns and the parent's
  message are in the prefix; only its last assistant turn follows (without the pending calls);
* else (the parent's first model call): the prefix ends after its history; the parent's message (raw,
  without its volatile suffix) and its last assistant turn follow.
"""

from __future__ import annotations

from typing import Any

from mneme.context.fork import ForkPrefix, prefix_of
from mneme.delegation_rules import inherited_history
from mneme.engine.runs.session import RunSession
from mneme.errors import DelegationRefused
from mneme.models.chat import ChatMessage, TextMessage, ToolResultMessage


def _last_request(session: RunSession) -> dict[str, Any]:
    request = session.recorder.last_request
    if request is None:
        stored = session.deps.runs.list_requests(session.run.run_id)
        request = stored[-1] if stored else None
    if request is None:
        raise DelegationRefused('delegation refused: "context": "fork" needs a model request to fork from')
    return request


def fork_of(session: RunSession) -> tuple[ForkPrefix, list[ChatMessage]]:
    """The parent's cacheable prefix and the child's inherited history behind it."""
    state = session.state
    prefix = prefix_of(_last_request(session))
    turns = state.turns
    last_turn = max((i + 1 for i, m in enumerate(turns) if isinstance(m, ToolResultMessage)), default=0)
    user = TextMessage(role="user", text=state.user_text)
    if not prefix.messages:
        rest: list[ChatMessage] = [*state.history, user, *turns]
    elif last_turn > 0:
        rest = list(turns[last_turn:])
    else:
        rest = [user, *turns]
    return prefix, inherited_history(rest)
