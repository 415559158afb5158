"""Auto-write after a run (SPEC §5.5).

Only a **succeeded** run writes: :func:`plan_auto_write` takes the run's final status and returns no jobs
for anything else. Each run (master and every sub-agent) is planned with **its own** policy.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Literal

from mneme.memory.namespaces import can_write
from mneme.models.run import RunStatus
from mneme.namespace_grammar import NamespaceError, parse, resolve
from mneme.ports.memory import MemoryWriteJob
from mneme.records import Record, replace
from mneme.spec_limits import AUTO_WRITE_MIN_INPUT_CHARS

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mneme.memory.policy import MemoryScope
    from mneme.models.policy import ResolvedPolicy

AutoWriteSource = Literal["run_input", "run_output", "extract"]


class AutoWritePlan(Record):
    """The jobs to queue (possibly none), warnings for the run's events, and the namespace the security
    filter refused (``(namespace, reason)``, to be audited as ``denied``)."""

    jobs: tuple[MemoryWriteJob, ...] = ()
    warnings: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    #: what was not written and why (``(source, reason)``: a ``memory_write_skipped`` run event each, issue 35.2)
    skipped: tuple[tuple[str, str], ...] = ()


def auto_write_job_id(run_id: str, source: AutoWriteSource) -> str:
    """Deterministic: a retried run end queues the same ids, so nothing is duplicated."""
    return hashlib.sha256(f"auto-write\x00{run_id}\x00{source}".encode()).hexdigest()


def plan_auto_write(
    policy: ResolvedPolicy,
    scope: MemoryScope,
    *,
    run_id: str,
    status: RunStatus,
    user_input: str,
    output: str | None,
    injected_hit_ids: Sequence[str] = (),
    model_spec: Any = None,  # the agent's model (a ModelSpec): extracts when the policy names none
    tree: Mapping[str, Any] | None = None,  # the run's place in its delegation tree, joins each job's metadata
) -> AutoWritePlan:
    """What to store after a run.

    * nothing unless ``status`` is ``succeeded`` and the (run-overridden) policy has ``allow_write``;
    * ``user_input`` — the raw user text (a sub-agent's delegation input), never the volatile suffix — as
      ``run_input`` when it has at least 80 characters (surrounding whitespace not counted);
    * ``output`` — the final answer — as ``run_output`` when not empty, ``derived_from`` = the ids of the
      hits injected into this run;
    * into the resolved ``write_namespace``; when it is unusable or the user may not write it (global
      needs an admin) nothing is written and a warning says why.
    """
    if not policy.allow_write:  # the policy's own false, or the run request's memory.enabled=false over a true
        reason = "run_memory_disabled" if policy.switched_off else "policy_allow_write_false"
        return AutoWritePlan(skipped=(("run", reason),))
    if status is not RunStatus.SUCCEEDED:
        return AutoWritePlan(skipped=(("run", f"run_{status.value}"),))
    try:
        namespace = resolve(policy.write_namespace, scope.template_values())
    except NamespaceError as exc:
        return AutoWritePlan(
            warnings=(f"auto-write skipped: write namespace unusable: {exc}",),
            skipped=(("run", "write_namespace_unusable"),),
        )
    if not can_write(namespace, scope.user_id, is_admin=scope.is_admin):
        why = "only an admin may write global memory" if _is_global(namespace) else "not the user's own"
        reason = "admin_required" if _is_global(namespace) else "security_filter"
        return AutoWritePlan(
            warnings=(f"auto-write skipped: cannot write {namespace!r}: {why}",),
            refused=((namespace, reason),),
            skipped=(("run", f"policy_refused:{reason}"),),
        )

    owner = "" if _is_global(namespace) else scope.user_id
    jobs: list[MemoryWriteJob] = []
    skipped: list[tuple[str, str]] = []
    text_in = user_input.strip()
    if len(text_in) >= AUTO_WRITE_MIN_INPUT_CHARS:
        jobs.append(_job(run_id, "run_input", namespace, owner, text_in, scope=scope, derived_from=(), tree=tree))
    else:
        skipped.append(("run_input", f"under_{AUTO_WRITE_MIN_INPUT_CHARS}_characters"))
    text_out = (output or "").strip()
    if text_out:
        derived = tuple(dict.fromkeys(injected_hit_ids))
        jobs.append(
            _job(run_id, "run_output", namespace, owner, text_out, scope=scope, derived_from=derived, tree=tree)
        )
    else:
        skipped.append(("run_output", "empty_answer"))
    strategies: list[str] = [name for name in policy.extraction if name != "raw"]
    if strategies and text_in:  # after the raw entries, on its own: derived from them, deleted with them
        raw_ids = [job.job_id for job in jobs]
        extract = _job(run_id, "extract", namespace, owner, text_in, scope=scope, derived_from=raw_ids, tree=tree)
        model = policy.extraction_model or model_spec
        jobs.append(
            replace(extract, kind="extract", answer=text_out, strategies=strategies, model=extraction_model(model))
        )
    threshold = policy.duplicate_threshold
    if threshold is not None:
        jobs = [replace(job, duplicate_threshold=threshold) for job in jobs]
    return AutoWritePlan(jobs=tuple(jobs), skipped=tuple(skipped))


def extraction_model(model: Any) -> dict[str, str] | None:
    """What the writer needs to call the extraction model (issue 31.2): provider and model id, and for an
    openai-compatible agent its endpoint and the ARN of its key secret — never the key itself, which the
    writer reads through the same allow-listed lookup as the run."""
    if model is None:
        return None
    fields = {"provider": model.provider, "model_id": model.model_id}
    for name in ("endpoint", "api_key_secret_arn"):
        value = getattr(model, name, None)
        if value:
            fields[name] = str(value)
    return fields


def _is_global(namespace: str) -> bool:
    return parse(namespace).scope == "global"


def _job(
    run_id: str,
    source: AutoWriteSource,
    namespace: str,
    owner: str,
    content: str,
    *,
    scope: MemoryScope,
    derived_from: Sequence[str],
    tree: Mapping[str, Any] | None,
) -> MemoryWriteJob:
    metadata: dict[str, Any] = {
        "source": source,
        "agent_id": scope.agent_id,
        "task_id": scope.task_id,
        "chat_id": scope.chat_id,
        "user_id": scope.user_id,
        "session_id": scope.session_id,
        "run_id": run_id,
        **(tree or {}),
    }
    return MemoryWriteJob(
        job_id=auto_write_job_id(run_id, source),
        namespace=namespace,
        owner_user_id=owner,
        content=content,
        metadata=metadata,
        derived_from=list(derived_from),
    )
