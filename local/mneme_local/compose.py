"""The composition root of the local embedded mode (``make run``): the same engine over local stand-ins.

* **DynamoDB** → SQLite item tables in ``<data_dir>/mneme.sqlite3`` (state survives restarts).
* **OpenSearch** → :class:`EmbeddedVectorStore` in ``<data_dir>/memory.sqlite3`` (exact search).
* **Bedrock embeddings** → :class:`LocalEmbedder` (384-d), or Bedrock with ``MNEME_EMBEDDING_PROVIDER=bedrock``.
* **Bedrock Converse** → the offline model; with ``MNEME_MODEL_PROVIDER=bedrock`` agents whose provider is
  ``bedrock`` call real Bedrock (AWS credentials required: the server refuses to start without them).
* **Secrets Manager** (MCP servers' credentials) → environment variables ``MNEME_MCP_SECRET_…``; MCP servers
  are called with the same SDK client as on AWS, also on loopback and private addresses.
* **Step Functions + SQS** → moto, in-process (:mod:`mneme_local.aws_stand_ins`): the ``agent-run`` machine
  from the real ASL file, its run function calling :meth:`Runtime.handle`, the memory queue drained by a
  background thread that feeds the runtime's SQS path.

Restart policy (runs left in flight by an earlier server): :mod:`mneme_local.recovery`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mneme.engine.deps import Deps
from mneme.errors import ToolError
from mneme.models.agent import ModelSpec
from mneme.runtime import Runtime
from mneme.settings import Settings
from mneme_local.aws_stand_ins import DLQ_NAME, FUNCTION_NAME, create_aws_stand_ins, start_moto
from mneme_local.files import private_dir, private_file
from mneme_local.live_feed import InProcessFeed
from mneme_local.outbox import DurableQueue, SqliteOutbox
from mneme_local.stack import LocalMneme, LocalOptions, LocalSetupError, Provider

# not "mneme…": Powertools filters every logger whose name contains its service name off the root handlers
log = logging.getLogger("local_mode")

LOCAL_EMBEDDING_DIMENSION = 384
#: a privacy job (export, erasure) runs at once locally, with this much time before it would continue later
LOCAL_JOB_SECONDS = 600


def local_settings(options: LocalOptions, environ: Mapping[str, str]) -> Settings:
    """The engine's settings in local mode: the environment's ``MNEME_*`` tuning, local providers by default."""
    values: dict[str, Any] = {k: v for k, v in environ.items() if k.startswith("MNEME_") or k == "AWS_REGION"}
    values.update(
        MNEME_MODE="local",
        MNEME_MODEL_PROVIDER=options.model_provider,
        MNEME_EMBEDDING_PROVIDER=options.embedding_provider,
    )
    if options.embedding_provider == "local":
        values["MNEME_EMBEDDING_DIMENSION"] = str(LOCAL_EMBEDDING_DIMENSION)
    values.setdefault("MNEME_MCP_ALLOW_PRIVATE_NETWORKS", "true")  # MCP servers on this machine or the LAN
    values.setdefault("MNEME_MODEL_ALLOW_PRIVATE_NETWORKS", "true")  # a model server (Ollama, vLLM) likewise
    for name in ("MNEME_STATE_MACHINE_ARN", "MNEME_MEMORY_QUEUE_URL", "MNEME_OPENSEARCH_ENDPOINT"):
        values.pop(name, None)  # set below from the local stand-ins
    return Settings.from_env(values)


def _warn_offline(provider: str) -> None:
    log.warning(
        "agents with model provider %r are answered by the offline model (set MNEME_MODEL_PROVIDER=bedrock, "
        "with AWS credentials, to call Bedrock; MNEME_OPENAI_BASE_URL for openai-compatible agents)",
        provider,
    )


class LocalToolInvoker:
    """External tools locally: a Python handler registered in ``sfn_emulation.HANDLERS`` under the function's
    name (the last segment of its ARN); anything else is a tool error the model sees."""

    def invoke(self, function_arn: str, payload: dict[str, Any], *, timeout_seconds: float | None = None) -> Any:
        from mneme_local import sfn_emulation

        name = function_arn.split(":function:", 1)[-1].split(":", 1)[0]
        handler = sfn_emulation.HANDLERS.get(name)
        if handler is None or name == FUNCTION_NAME:
            raise ToolError(f"the tool's function {name!r} is not available in local mode")
        try:
            return handler(payload, None)
        except Exception as exc:
            raise ToolError(f"the tool failed: {exc}") from exc


def _bedrock_client(settings: Settings, options: LocalOptions) -> tuple[Any, Any] | tuple[None, None]:
    """The boto3 session and the embeddings' ``bedrock-runtime`` client, when a Bedrock provider is chosen."""
    if options.model_provider != "bedrock" and options.embedding_provider != "bedrock":
        return None, None
    import boto3

    from mneme.adapters.models.bedrock import bedrock_client_config

    session = boto3.Session(region_name=settings.region)
    if session.get_credentials() is None:
        raise LocalSetupError(
            "MNEME_MODEL_PROVIDER=bedrock / MNEME_EMBEDDING_PROVIDER=bedrock need AWS credentials "
            "(AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and a region (AWS_REGION); "
            "unset them to use the offline model and the local embedder"
        )
    return session, session.client("bedrock-runtime", config=bedrock_client_config(max_attempts=2, read_timeout=10))


def _models(settings: Settings, options: LocalOptions, session: Any, bedrock: Any) -> tuple[Any, Any]:
    """The model registry (the offline model, or Bedrock with budget-fitted clients) and the embedder."""
    from mneme.adapters.models.registry import ModelClients

    timed = None
    if session is not None:
        from mneme.adapters.aws.timed_calls import TimedClients

        timed = TimedClients(lambda config: session.client("bedrock-runtime", config=config))
    models = ModelClients(
        (lambda: bedrock) if options.model_provider == "bedrock" else None,
        openai=_openai_clients(settings),
        bedrock_timed=timed,
        offline_fallback=True,
        on_fallback=_warn_offline,
    )
    if options.embedding_provider == "bedrock":
        from mneme.adapters.models.bedrock_embeddings import BedrockEmbedder

        embedder: Any = BedrockEmbedder(
            bedrock,
            model_id=settings.embedding_model_id,
            dimension=settings.embedding_dimension,
            normalize=settings.embedding_normalize,
        )
    else:
        from mneme_local.embedder import LocalEmbedder

        embedder = LocalEmbedder()
    return models, embedder


def _openai_clients(settings: Settings) -> Any:
    """openai-compatible agents call ``MNEME_OPENAI_BASE_URL`` (or an endpoint in ``MNEME_OPENAI_ENDPOINTS``)
    with the key of ``MNEME_OPENAI_API_KEY`` (none: no Authorization header, as a local Ollama or vLLM
    takes it); without a base URL they cannot be saved, and one saved before the default was unset fails its
    run with that reason (never the offline model's answer)."""
    from mneme.adapters.models.registry import OpenAIClients

    def keys_for(_secret_arn: str | None) -> Any:
        from mneme.adapters.models.openai import StaticKey

        return StaticKey(settings.openai_api_key.get_secret_value() if settings.openai_api_key else None)

    return OpenAIClients(
        settings.openai_base_url_for, keys_for, allow_private_networks=settings.model_allow_private_networks
    )


def _open_tables(data_dir: Path) -> tuple[Any, Any]:
    """The main and audit tables of the data folder; a folder from before GET /v1/runs gets its earlier root
    runs listed (once)."""
    from mneme_local.run_list_backfill import list_earlier_runs
    from mneme_local.sqlite_items import open_local_tables

    main, audit = open_local_tables(data_dir)
    list_earlier_runs(main)
    return main, audit


def _memory_ports(memory: Any, main: Any, clock: Any) -> dict[str, Any]:
    """The embedded store keeping a revision of every change (issue 35.3), in the SQLite item table."""
    from mneme.composition import revisioned

    store, revisions = revisioned(memory, main, clock)
    return {"memory": store, "revisions": revisions}


def build_local(
    data_dir: str | Path | None = None,
    *,
    model_provider: Provider | None = None,
    environ: Mapping[str, str] | None = None,
) -> LocalMneme:
    """Build (and start) the local stack. Call :meth:`LocalMneme.close` to stop it."""
    from mneme.adapters.aws.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.aws.sqs_privacy import SqsDeadLetters
    from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
    from mneme.adapters.dynamo.stores import retention_of, stores_over
    from mneme.adapters.mcp.client import SdkMcpToolSource
    from mneme.adapters.models.summarizer import ModelSummarizer
    from mneme.clock import SystemClock
    from mneme.engine.privacy.jobs import run_job
    from mneme_local import sfn_emulation
    from mneme_local.file_exports import LocalFileExports, LocalPrivacyJobs
    from mneme_local.secrets import EnvironmentSecrets
    from mneme_local.vector_store import EmbeddedVectorStore

    env = dict(os.environ if environ is None else environ)
    if data_dir is not None:
        env["MNEME_DATA_DIR"] = str(data_dir)
    if model_provider is not None:
        env["MNEME_MODEL_PROVIDER"] = model_provider
    options = LocalOptions.from_env(env)
    settings = local_settings(options, env)
    if settings.otel_enabled:  # OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318)
        from mneme import telemetry

        telemetry.configure(enabled=True, capture_content=settings.otel_capture_content)
    session, bedrock = _bedrock_client(settings, options)
    private_dir(options.data_dir)

    main, audit = _open_tables(options.data_dir)
    memory = EmbeddedVectorStore(private_file(options.data_dir / "memory.sqlite3"))
    outbox = SqliteOutbox(options.data_dir / "mneme.sqlite3")
    closers: list[Any] = [main.close, audit.close, memory.close, outbox.close]
    moto, url = start_moto()
    try:
        machine_arn, queue_url, sfn, sqs = create_aws_stand_ins(url, settings.region)
    except Exception:
        moto.stop()
        raise
    settings = settings.model_copy(update={"state_machine_arn": machine_arn, "memory_queue_url": queue_url})

    clock = SystemClock()
    models, embedder = _models(settings, options, session, bedrock)
    jobs = LocalPrivacyJobs()
    deps = Deps(
        settings=settings,
        **stores_over(main, audit, clock, retention_of(settings)).ports(),
        models=models,
        queue=(queue := DurableQueue(outbox, SqsMemoryQueue(sqs, queue_url))),
        orchestrator=StepFunctionsOrchestrator(sfn, machine_arn),
        tools=LocalToolInvoker(),
        clock=clock,
        **_memory_ports(memory, main, clock),
        embedder=embedder,
        mcp=SdkMcpToolSource(allow_private_networks=settings.mcp_allow_private_networks),
        secrets=EnvironmentSecrets(env),
        live=InProcessFeed(),
        exports=LocalFileExports(options.data_dir / "exports", f"http://127.0.0.1:{env.get('MNEME_PORT') or 8000}"),
        dead_letters=SqsDeadLetters(sqs, sqs.get_queue_url(QueueName=DLQ_NAME)["QueueUrl"], wait_seconds=0),
        privacy_jobs=jobs,
    )
    jobs.handler = lambda job: run_job(deps, job, budget_seconds=LOCAL_JOB_SECONDS)
    summary_provider: Provider = options.model_provider if settings.summary_model_id else "offline"
    summary_spec = ModelSpec(provider=summary_provider, model_id=settings.summary_model_id or "offline")
    deps.summarizer = ModelSummarizer(
        models.client_for(summary_spec), summary_spec.model_id, provider=summary_spec.provider
    )
    runtime = Runtime(deps)
    sfn_emulation.HANDLERS[FUNCTION_NAME] = runtime.handle
    stack = LocalMneme(options, deps, runtime, url, moto, sqs, closers, outbox=outbox)
    stack.requeued = queue.requeue_pending()  # what a killed server left queued is written now
    stack.start_drainer()
    return stack
