"""The end of a run: success stores the turn in the chat and queues auto-write; failure writes nothing.

A run's answer and its chat turn are stored together, or the run fails: the turn is written first (a
serialization or store error there fails the run before anything says it succeeded), and only then is the run
marked succeeded and its auto-write planned. A step whose run then does not succeed with it — a cancel met at
the commit, a crash after the write — takes the turn back. The writes and their undo are
:mod:`mneme.engine.runs.commit`'s; this module decides. The auto-write jobs are planned complete and kept in the
step's ending: the commit module queues them beside or after the run's own commit. Their outcome is already in
the events (the jobs are queued, or kept in the run's outbox for the redrive); a failure adds a warning event
afterwards.

A guardrail intervention (``stopReason: guardrail_intervened``, issue 16) ends the run **failed**, with a
``guardrail_intervened`` event: the blocked exchange is not stored in the chat and nothing is auto-written.
The run's reasoning blocks (signed for this run's tool loop) are never stored in the chat either.
"""

from __future__ import annotations

from mneme.engine.runs import commit
from mneme.engine.runs.session import RunSession
from mneme.errors import AuditWriteFailed
from mneme.memory.autowrite import plan_auto_write
from mneme.models.chat import ChatMessage, ReasoningMessage, TextMessage
from mneme.models.run import RunStatus


def succeed(session: RunSession, output: str) -> None:
    run, state = session.run, session.state
    if run.depth == 0 and run.chat_id:
        turn: list[ChatMessage] = [
            TextMessage(role="user", text=state.user_text, run_id=run.run_id, at=state.started_at),
            *(message for message in state.turns if not isinstance(message, ReasoningMessage)),
            TextMessage(role="assistant", text=output, run_id=run.run_id, at=session.deps.clock.now()),
        ]
        problem = commit.store_turn(session, turn)
        if problem is not None:
            fail(session, f"the answer could not be stored in the chat: {problem}")
            return
    run.status, run.output, run.error = RunStatus.SUCCEEDED, output, None
    # the writer audits each job into the delegation tree, at the time it was queued (the same on redelivery)
    queued_at = (session.recorder.base_time or session.deps.clock.now()).isoformat()
    plan = plan_auto_write(
        state.policy,
        session.scope,
        run_id=run.run_id,
        status=run.status,
        user_input=state.user_text,
        output=output,
        injected_hit_ids=state.hit_ids,
        model_spec=session.config.agent.model,
        tree={"root_run_id": run.root_run_id, "depth": run.depth, "queued_at": queued_at},
    )
    for warning in plan.warnings:
        session.recorder.warning(warning)
    for source, reason in plan.skipped:  # issue 35.2: an auto-write not made says why
        session.recorder.event("memory_write_skipped", source=source, reason=reason)
    for namespace, reason in plan.refused:  # a refused auto-write is a denial like any other (SPEC §9)
        try:
            session.recorder.audit("denied", [namespace], via="auto_write", reason=reason)
        except AuditWriteFailed:
            session.recorder.warning("the audit record of the refused auto-write could not be written")
    if plan.jobs:
        session.recorder.event(
            "memory_write_queued", count=len(plan.jobs), sources=[job.metadata.get("source") for job in plan.jobs]
        )
        session.ending.jobs = list(plan.jobs)
    session.recorder.event(
        "completed", status=run.status.value, usage=run.usage.model_dump(), tree_usage=run.tree_usage.model_dump()
    )


def fail(session: RunSession, error: str, **detail: object) -> None:
    """A failed run: a clear error (``detail`` joins its error event), nothing written to memory or chat."""
    run = session.run
    error = error.encode("utf-8", "backslashreplace").decode("utf-8")  # hostile text must stay storable
    run.status, run.error = RunStatus.FAILED, error
    if session.state.policy.allow_write:  # issue 35.2: nothing is written for a failed run, and it says so
        session.recorder.event("memory_write_skipped", source="run", reason="run_failed")
    session.recorder.event("error", message=error, **detail)
    session.recorder.event(
        "completed", status=run.status.value, usage=run.usage.model_dump(), tree_usage=run.tree_usage.model_dump()
    )


def blocked_by_guardrail(session: RunSession, request_seq: int, guardrail_text: str) -> None:
    """The agent's guardrail blocked the input or the output: a failed run with a clear event, nothing written.
    ``guardrail_text`` is the guardrail's configured blocked-message text (never the blocked content)."""
    guardrail = session.config.agent.model.guardrail
    name = f"{guardrail.id} (version {guardrail.version})" if guardrail else "of the model provider"
    session.recorder.event(
        "guardrail_intervened",
        request_seq=request_seq,
        guardrail_id=guardrail.id if guardrail else None,
        guardrail_version=guardrail.version if guardrail else None,
        message=guardrail_text,
    )
    fail(session, f"guardrail_intervened: the guardrail {name} blocked this run")
