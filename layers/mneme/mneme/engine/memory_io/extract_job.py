"""An ``extract`` job of the memory writer (issue 13.2): the extraction model's memories, consolidated.

The model is the job's ``model`` (the policy's ``extraction_model``, else the agent's) through the
ModelClient port — Bedrock, openai-compatible or the offline model's deterministic extractor. Its answer is
validated (``mneme.memory.extraction``); malformed output is logged as a warning and the job is done (a
model that answers garbage would answer it again). A model or store failure returns False: the message is
retried, then dead-lettered, on its own — the run's raw entries were written by their own jobs. A model the
writer cannot call at all (its provider, endpoint or key secret is not available here) or that refuses the
request finishes the job with its reason recorded (issue 31.2): a retry would only fail alike into the DLQ. The
extraction's usage (tokens, model, priced cost) is in the audit records of what it wrote.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from mneme.engine.memory_io.consolidate import Recent, consolidate
from mneme.engine.memory_io.entries import new_document
from mneme.engine.memory_io.erased_writes import undo_erased
from mneme.engine.memory_io.writer_ports import audit_decisions, job_trail
from mneme.errors import Conflict, MnemeError, ModelRequestRejected
from mneme.memory.embedding_limits import limit_for
from mneme.memory.extraction import extraction_request, parse_extraction
from mneme.memory.speakers import spoken
from mneme.models.agent import ModelSpec
from mneme.models.memory import MemoryClass
from mneme.models.run import Usage
from mneme.observability import logger

if TYPE_CHECKING:
    from mneme.engine.deps import ModelRegistry
    from mneme.engine.memory_io.writer_ports import WriterPorts
    from mneme.ports.memory import MemoryWriteJob
    from mneme.ports.models import ModelResponse

_CLASS: dict[str, MemoryClass] = {"fact": "semantic", "preference": "preference", "summary": "episodic"}


def extracted_id(job_id: str, index: int) -> str:
    return hashlib.sha256(f"extracted\x00{job_id}\x00{index}".encode()).hexdigest()


def run(ports: WriterPorts, job: MemoryWriteJob, recent: Recent | None = None) -> bool:
    """Extract and store; True when the job is done (also for malformed output), False to retry it."""
    if ports.models is None or ports.store is None or ports.embedder is None:
        return False
    spec = ModelSpec.model_validate(job.model or {"provider": "offline", "model_id": "offline"})
    response = _call(ports.models, ports, job, spec)
    if isinstance(response, bool):
        return response
    text = "".join(str(block.get("text", "")) for block in response.content)
    extracted, warning = parse_extraction(text)
    if extracted is None:
        logger().warning(warning or "memory extraction answered nothing usable", extra={"job_id": job.job_id})
        return True
    usage = ports.prices.priced(spec.model_id, response.usage) if ports.prices else response.usage
    base = {k: v for k, v in job.metadata.items() if k not in ("source", "queued_at")}
    documents = []
    for index, item in enumerate(extracted.items):
        metadata: dict[str, Any] = {**base, "source": "extracted", "extraction": item.kind, **made_by(job, item.kind)}
        if item.subject:
            metadata["subject"] = " ".join(item.subject.lower().split())
        documents.append(
            new_document(
                extracted_id(job.job_id, index),
                job.namespace,
                job.owner_user_id,
                item.text,
                clock=ports.clock,
                metadata=metadata,
                derived_from=job.derived_from,
                memory_class=_CLASS[item.kind],
                authority="extracted",
            )
        )
    try:
        decisions = []
        if documents:
            limit = limit_for(ports.embedder.model_id)
            vectors = ports.embedder.embed([spoken(doc.content) for doc in documents])
            threshold = job.duplicate_threshold or limit.duplicate_threshold
            now, batch = ports.clock.now(), recent if recent is not None else Recent()
            decisions = [
                consolidate(ports.store, doc, vector, threshold=threshold, now=now, recent=batch)
                for doc, vector in zip(documents, vectors, strict=True)
            ]
        usage_detail = {"model_id": spec.model_id, **usage.model_dump(exclude_defaults=True)}
        logger().info("memory extraction", extra={"job_id": job.job_id, "items": len(documents), **usage_detail})
        written, retried = undo_erased(ports, [(job, decisions)])  # its user erased meanwhile: nothing stays
        audit_decisions(ports, written)
        if written:
            charge_run(ports, job, usage)
    except MnemeError:
        return False
    return not retried


def made_by(job: MemoryWriteJob, strategy: str) -> dict[str, Any]:
    """Why an extracted entry exists (issue 35.2): the rule, the strategy, and the turn it was taken from (the
    run, its chat, and the raw entries of that turn it derives from)."""
    turn = {key: job.metadata.get(key) for key in ("run_id", "chat_id") if job.metadata.get(key)}
    return {"made_by": {"rule": "extraction", "strategy": strategy, "source_turn": turn, "from": job.derived_from}}


def _call(models: ModelRegistry, ports: WriterPorts, job: MemoryWriteJob, spec: ModelSpec) -> ModelResponse | bool:
    """The extraction model's answer; else whether the job is done without it (True: given up, its reason
    recorded; False: retried)."""
    try:
        client = models.client_for(spec)
    except MnemeError as exc:  # the writer cannot call this model at all (provider, endpoint, key secret)
        return _give_up(ports, job, "extraction_unavailable", exc)
    try:
        return client.converse(extraction_request(spec.model_id, job.strategies, job.content, job.answer))
    except ModelRequestRejected as exc:  # refused by the provider (no access, bad request): a retry cannot help
        return _give_up(ports, job, "extraction_rejected", exc)
    except MnemeError as exc:
        logger().warning(
            "memory extraction failed; the job is retried", extra={"job_id": job.job_id, "error": str(exc)}
        )
        return False


def _give_up(ports: WriterPorts, job: MemoryWriteJob, reason: str, exc: MnemeError) -> bool:
    """The job is done without memories, its reason recorded (a warning, and a ``denied`` audit record of
    the run's user): retrying would fail alike into the DLQ. False (retried) only when the record fails."""
    logger().warning(
        "memory extraction cannot be done here; the job is finished without it",
        extra={"job_id": job.job_id, "reason": reason, "error": exc.message},
    )
    trail = job_trail(ports, job)
    detail = {"source": "extract", "job_id": job.job_id, "reason": reason, "error": exc.message}
    try:
        ports.audit.append(trail.records("denied", [job.namespace], via="auto_write", **detail))
    except MnemeError:
        return False
    return True


def charge_run(ports: WriterPorts, job: MemoryWriteJob, usage: Usage) -> None:
    """Add the extraction's priced usage to its run (``usage`` and ``tree_usage``) and to its root's tree, once
    per job (a mark on the run: a redelivered job charges nothing more); a lost race is retried."""
    run_id, root_id = job.metadata.get("run_id"), job.metadata.get("root_run_id")
    if ports.runs is None or not run_id:
        return
    if not ports.runs.put_mark(str(run_id), f"extraction#{job.job_id}", usage.model_dump(), only_new=True):
        return
    for target in dict.fromkeys([str(run_id), str(root_id or run_id)]):
        for _attempt in range(5):
            run = ports.runs.get_run(target)
            if run is None:
                break
            own = target == run_id
            change = {"tree_usage": run.tree_usage + usage, **({"usage": run.usage + usage} if own else {})}
            try:
                ports.runs.update_run(run.model_copy(update=change))
                break
            except Conflict:
                continue
