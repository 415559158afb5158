"""The context preview (SPEC §10): the request a run would send. Nothing is called or written except the
audit records of the memory read."""

from __future__ import annotations

from typing import Any

from mneme.context.assembler import assemble
from mneme.engine.deps import Deps
from mneme.engine.memory_io.explain import explain_search
from mneme.engine.runs.loop import context_input
from mneme.engine.runs.prepare import prepare, run_policy
from mneme.engine.runs.recorder import Recorder
from mneme.engine.runs.session import RunSession
from mneme.engine.runs.state import LoopState
from mneme.errors import MnemeError
from mneme.history import needs_compression
from mneme.memory.access import auto_inject_access
from mneme.models.chat import Chat
from mneme.models.run import Run, RunStatus
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller

_NEVER = 10**12  # thresholds no chat reaches: the preview shows the stored summary, it never makes one
SUMMARY_DUE = (
    "this chat is past the rolling-summary threshold: the next run summarizes the older messages first, so the"
    " model will see a new summary and the tail instead of the unsummarized part shown here"
)


def _would_summarize(chat: Chat, settings: Any) -> bool:
    """Would the run's own thresholds compress this chat now (the preview itself never does)?"""
    covers = chat.summary_covers if chat.summary else 0
    local = max(0, min(covers - chat.first_seq, len(chat.messages)))
    return needs_compression(
        chat.messages,
        local,
        trigger_tokens=settings.summary_trigger_tokens,
        trigger_messages=settings.summary_trigger_messages,
    )


def preview(deps: Deps, caller: Caller, request: RunRequest, *, explain: bool = False) -> dict[str, Any]:
    request.check_size()
    config = deps.config.load_run_config(caller.user_id, request.agent_id, request.task_id)
    chat = deps.chats.get_chat_tail(caller.user_id, request.chat_id) if request.chat_id else None
    now = deps.clock.now()
    run = Run(
        run_id=f"preview-{deps.ids()}",
        user_id=caller.user_id,
        agent_id=config.agent.agent_id,
        task_id=config.task.task_id if config.task else None,
        chat_id=request.chat_id,
        project_id=request.project_id or (chat.project_id if chat else None),
        session_id=request.session_id,
        root_run_id="",
        status=RunStatus.QUEUED,
        input=request.input,
        created_at=now,
        updated_at=now,
    )
    run.root_run_id = run.run_id
    state = LoopState(user_text=request.input, is_admin=caller.is_admin)
    recorder = Recorder(deps, run, state)
    quiet = deps.settings.model_copy(update={"summary_trigger_tokens": _NEVER, "summary_trigger_messages": _NEVER})
    session = RunSession.start(_with_settings(deps, quiet), run, state, config, recorder, preview=True)
    prepare(session, chat=chat, policy=run_policy(config, request.memory))
    assembled = assemble(context_input(session))
    warnings = [e.data["message"] for e in recorder.pending_events() if e.type == "warning"]
    if chat is not None and _would_summarize(chat, deps.settings):
        warnings.append(SUMMARY_DUE)
    explained = _explained(session) if explain else {}
    return {
        **explained,
        "request": assembled.request,
        "memory_hits": [hit.as_json() for hit in state.hits],
        "warnings": list(dict.fromkeys(warnings + assembled.warnings)),
        "cache_points": assembled.cache_points,
        "block_sizes": assembled.block_sizes,
    }


def _explained(session: RunSession) -> dict[str, Any]:
    """``?explain=true`` (issue 35.1): auto-inject's search once more, explained (audited as a preview read too)."""
    if not session.state.policy.auto_read_enabled:
        return {"memory_explanation": {"hits": [], "dropped": [], "rule": "policy.auto_read_enabled"}}
    access = auto_inject_access(session.state.policy, session.scope)
    try:
        explained = explain_search(
            session.memory,
            session.records,
            access,
            session.state.user_text,
            session.ranking,
            user_id=session.scope.user_id,
            via="preview",
            granted_by="policy.read_namespaces",
            action="preview",
        )
    except MnemeError as exc:
        return {"memory_explanation": {"error": exc.message}}
    body = {"hits": explained.hits, "dropped": explained.dropped, "thresholds": explained.thresholds}
    return {"memory_explanation": body}


def _with_settings(deps: Deps, settings: Any) -> Deps:
    from mneme.records import replace

    return replace(deps, settings=settings)
