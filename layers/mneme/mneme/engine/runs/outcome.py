"""The end of a run: success stores the turn in the chat and queues auto-write; failure writes nothing.

A run's answer and its chat turn are stored together, or the run fails: the turn is written first (a
serialization or store error there fails the run before anything says it succeeded), and only then is the run
marked succeeded and its auto-write planned. A step whose run then does not succeed with it — a cancel met at
the commit, a crash after the write — takes the turn back (``engine/runs/step_end.py``). The queue write is an
*after-write*: the step's end runs it in parallel with the run's own commit. Its outcome is already in the
events (the jobs are queued, or kept in the run's outbox for the redrive); a failure adds a warning event
afterwards.

A guardrail intervention (``stopReason: guardrail_intervened``, issue 16) ends the run **failed**, with a
``guardrail_intervened`` event: the blocked exchange is not stored in the chat and nothing is auto-written.
The run's reasoning blocks (signed for this run's tool loop) are never stored in the chat either.
"""

from __future__ import annotations

from collections.abc import Sequence

from mneme.engine.runs.session import RunSession
from mneme.errors import (
    AuditWriteFailed,
    Conflict,
    MnemeError,
    NotFound,
    QueueUnavailable,
    StoreUnavailable,
    Throttled,
)
from mneme.memory.autowrite import plan_auto_write
from mneme.models.chat import Chat, ChatMessage, ReasoningMessage, TextMessage
from mneme.models.run import RunStatus
from mneme.ports.memory import MemoryWriteJob
from mneme.records import asdict, replace


def succeed(session: RunSession, output: str) -> None:
    run, state = session.run, session.state
    if run.depth == 0 and run.chat_id:
        turn: list[ChatMessage] = [
            TextMessage(role="user", text=state.user_text, run_id=run.run_id, at=state.started_at),
            *(message for message in state.turns if not isinstance(message, ReasoningMessage)),
            TextMessage(role="assistant", text=output, run_id=run.run_id, at=session.deps.clock.now()),
        ]
        problem = _store_turn(session, turn)
        if problem is not None:
            fail(session, f"the answer could not be stored in the chat: {problem}")
            return
    run.status, run.output, run.error = RunStatus.SUCCEEDED, output, None
    plan = plan_auto_write(
        state.policy,
        session.scope,
        run_id=run.run_id,
        status=run.status,
        user_input=state.user_text,
        output=output,
        injected_hit_ids=state.hit_ids,
        model_spec=session.config.agent.model,
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
    # the writer audits each job into the delegation tree, at the time it was queued (the same on redelivery)
    queued_at = (session.recorder.base_time or session.deps.clock.now()).isoformat()
    tree = {"root_run_id": run.root_run_id, "depth": run.depth, "queued_at": queued_at}
    jobs = [replace(job, metadata={**job.metadata, **tree}) for job in plan.jobs]
    if jobs:
        session.recorder.event(
            "memory_write_queued", count=len(jobs), sources=[job.metadata.get("source") for job in jobs]
        )
        session.after_writes.append(lambda: _enqueue(session, jobs))
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


def _store_turn(session: RunSession, messages: list[ChatMessage]) -> str | None:
    """Store the run's messages once (a retried step finds them stored); a new chat is created with them.
    Answers why they could not be stored (None when they are)."""
    chats, run, state = session.deps.chats, session.run, session.state
    create, expected = state.new_chat is not None, state.chat_message_count
    problem = "the chat changed concurrently"
    try:
        for _ in range(3):
            try:
                if create and state.new_chat is not None:
                    chats.create_chat(Chat.model_validate({**state.new_chat, "messages": messages}))
                    session.stored_turn = (0, len(messages), True)
                else:
                    chats.append_messages(run.user_id, run.chat_id or "", messages, expected_count=expected)
                    session.stored_turn = (expected, len(messages), False)
                return None
            except Conflict:  # the chat exists (created meanwhile), or it grew: append after what is there
                problem = "the chat changed concurrently"
                chat = chats.get_chat_tail(run.user_id, run.chat_id or "", since=expected)
                if chat is not None and (mine := sum(m.run_id == run.run_id for m in chat.messages)):
                    # stored by an earlier attempt of this step: this step's turn while it is the chat's last
                    if all(m.run_id == run.run_id for m in chat.messages[-mine:]):
                        first = chat.message_count - mine
                        session.stored_turn = (first, mine, first == 0 and state.new_chat is not None)
                    return None
                create, expected = chat is None, chat.message_count if chat else 0
            except NotFound:  # the chat is gone: create it with this turn
                create, expected = state.new_chat is not None, 0
            except (Throttled, StoreUnavailable) as exc:  # transient (after the client's retries): try again
                problem = exc.message
        return problem
    except MnemeError as exc:
        return exc.message


def _enqueue(session: RunSession, jobs: Sequence[MemoryWriteJob]) -> list[str]:
    try:
        session.deps.queue.enqueue(jobs)
    except QueueUnavailable as exc:
        return _keep_for_redrive(session, jobs, exc)
    return []


def _keep_for_redrive(session: RunSession, jobs: Sequence[MemoryWriteJob], exc: QueueUnavailable) -> list[str]:
    """The queue refused the jobs: keep them in the run's outbox; the redrive queues them later."""
    run = session.run
    at = session.deps.clock.now().isoformat()
    try:
        session.deps.runs.put_outbox(run.run_id, [asdict(job) for job in jobs], at=at)
    except MnemeError as store_error:
        return [f"memory writes lost: the queue ({exc.message}) and the outbox ({store_error.message}) both failed"]
    return [f"memory writes kept for the redrive: the queue refused them ({exc.message})"]
