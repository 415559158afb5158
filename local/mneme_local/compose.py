"""The composition root of the local embedded mode (``make run``): the same engine over local stand-ins.

* **DynamoDB** → SQLite item tables in ``<data_dir>/mneme.sqlite3`` (state survives restarts).
* **OpenSearch** → :class:`EmbeddedVectorStore` in ``<data_dir>/memory.sqlite3`` (exact search).
* **Bedrock embeddings** → :class:`LocalEmbedder` (384-d), or Bedrock with ``MNEME_EMBEDDING_PROVIDER=bedrock``.
* **Bedrock Converse** → the offline model; with ``MNEME_MODEL_PROVIDER=bedrock`` agents whose provider is
  ``bedrock`` call real Bedrock (AWS credentials required: the server refuses to start without them).
* **Step Functions + SQS** → moto, served in-process by a ``ThreadedMotoServer`` on a free loopback port
  (not ``mock_aws``: that would patch every boto3 client of the process, real Bedrock included). The
  ``agent-run`` machine is created from the **real ASL file**; its ``${RunFunctionArn}`` is a moto Lambda
  function whose invocations call :meth:`Runtime.handle` in-process (``sfn_emulation.HANDLERS``). The memory
  queue (with a dead-letter queue) is drained by a background thread that feeds the runtime's SQS path.

Restart policy: moto keeps nothing across restarts, so in-flight executions are lost. On start, every root
run found ``queued`` / ``running`` / ``waiting_approval`` is resumed by a new execution of the machine (moto
is fresh, so the execution name derived from the run id is free: ``ExecutionAlreadyExists`` cannot happen).
The step resumes from the run's last checkpoint: unfinished children it still waits for are started again by
the Map state, a pending approval gets a new task token. An unfinished child run that no unfinished parent
waits for is marked ``failed`` ("interrupted"). Memory-write messages still in the queue are written before
shutdown (a last drain).
"""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import sqlite3
import threading
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mneme.engine.deps import Deps
from mneme.errors import ModelUnavailable, ToolError
from mneme.models.agent import ModelSpec
from mneme.ports import ModelClient
from mneme.runtime import Runtime
from mneme.settings import Settings
from mneme_local.token import DEFAULT_DATA_DIR

# not "mneme…": Powertools filters every logger whose name contains its service name off the root handlers
log = logging.getLogger("local_mode")
logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's request log

REPO_ROOT = Path(__file__).resolve().parents[2]
ASL_PATH = REPO_ROOT / "statemachine" / "agent-run.asl.json"
FUNCTION_NAME = "mneme-run-local"
STATE_MACHINE_NAME = "mneme-agent-run"
QUEUE_NAME = "mneme-memory-writes"
DLQ_NAME = "mneme-memory-writes-dlq"
LOCAL_EMBEDDING_DIMENSION = 384
_UNFINISHED = ("queued", "running", "waiting_approval")
_MOTO_CREDENTIALS = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}


class LocalSetupError(Exception):
    """The local server cannot start as configured (the message says what to change)."""


Provider = Literal["offline", "bedrock"]


@dataclass(frozen=True)
class LocalOptions:
    data_dir: Path
    model_provider: Provider = "offline"
    embedding_provider: Literal["local", "bedrock"] = "local"

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> LocalOptions:
        model = environ.get("MNEME_MODEL_PROVIDER", "offline") or "offline"
        embedding = environ.get("MNEME_EMBEDDING_PROVIDER", "local") or "local"
        if model not in ("offline", "bedrock"):
            raise LocalSetupError(f"MNEME_MODEL_PROVIDER must be 'offline' or 'bedrock', not {model!r}")
        if embedding not in ("local", "bedrock"):
            raise LocalSetupError(f"MNEME_EMBEDDING_PROVIDER must be 'local' or 'bedrock', not {embedding!r}")
        return cls(
            data_dir=Path(environ.get("MNEME_DATA_DIR") or DEFAULT_DATA_DIR),
            model_provider=model,  # type: ignore[arg-type]
            embedding_provider=embedding,  # type: ignore[arg-type]
        )


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
    for name in ("MNEME_STATE_MACHINE_ARN", "MNEME_MEMORY_QUEUE_URL", "MNEME_OPENSEARCH_ENDPOINT"):
        values.pop(name, None)  # set below from the local stand-ins
    return Settings.from_env(values)


class LocalModels:
    """Model clients by provider. Offline mode answers every provider with the offline model (warned once);
    Bedrock mode sends ``bedrock`` agents to real Bedrock and keeps ``offline`` agents offline."""

    def __init__(self, bedrock_client: Any | None) -> None:
        self._bedrock = bedrock_client
        self._cache: dict[str, ModelClient] = {}
        self._lock = threading.Lock()

    def client_for(self, spec: ModelSpec) -> ModelClient:
        with self._lock:
            if spec.provider not in self._cache:
                self._cache[spec.provider] = self._create(spec.provider)
            return self._cache[spec.provider]

    def _create(self, provider: str) -> ModelClient:
        from mneme.adapters.offline_model import OfflineModel

        if provider == "offline":
            return OfflineModel()
        if self._bedrock is None:
            log.warning(
                "agents with model provider %r are answered by the offline model "
                "(set MNEME_MODEL_PROVIDER=bedrock, with AWS credentials, to call Bedrock)",
                provider,
            )
            return OfflineModel()
        if provider == "bedrock":
            from mneme.adapters.bedrock_model import BedrockModel

            return BedrockModel(self._bedrock)
        raise ModelUnavailable(f"the model provider {provider!r} is not available here")


class LocalToolInvoker:
    """External tools locally: a Python handler registered in ``sfn_emulation.HANDLERS`` under the function's
    name (the last segment of its ARN); anything else is a tool error the model sees."""

    def invoke(self, function_arn: str, payload: dict[str, Any]) -> Any:
        from mneme_local import sfn_emulation

        name = function_arn.split(":function:", 1)[-1].split(":", 1)[0]
        handler = sfn_emulation.HANDLERS.get(name)
        if handler is None or name == FUNCTION_NAME:
            raise ToolError(f"the tool's function {name!r} is not available in local mode")
        try:
            return handler(payload, None)
        except Exception as exc:
            raise ToolError(f"the tool failed: {exc}") from exc


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _lambda_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def lambda_handler(event, context):\n    return event\n")
    return buffer.getvalue()


@dataclass
class LocalMneme:
    """The running local stack: the deps, the runtime, moto and the queue drainer."""

    options: LocalOptions
    deps: Deps
    runtime: Runtime
    moto_url: str
    _moto: Any
    _sqs: Any
    _closers: list[Any] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _drainer: threading.Thread | None = None
    resumed: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------------------ memory queue
    def start_drainer(self) -> None:
        self._drainer = threading.Thread(target=self._drain_loop, name="mneme-memory-writer", daemon=True)
        self._drainer.start()

    def _drain_loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.drain_once(wait_seconds=1)
            except Exception:  # keep draining; the message stays queued and is retried
                log.exception("the local memory writer failed")
                self._stop.wait(1.0)

    def drain_once(self, *, wait_seconds: int = 0) -> int:
        """Receive one batch from the memory queue and hand it to the runtime's SQS path; answer its size."""
        url = self.deps.settings.memory_queue_url
        response = self._sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=wait_seconds, AttributeNames=["All"]
        )
        messages = response.get("Messages") or []
        if not messages:
            return 0
        records = [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes") or {},
                "messageAttributes": {},
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{self.deps.settings.region}:123456789012:{QUEUE_NAME}",
                "awsRegion": self.deps.settings.region,
            }
            for m in messages
        ]
        result = self.runtime.handle({"Records": records})
        failed = {f.get("itemIdentifier") for f in (result or {}).get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self._sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
        if failed:
            log.warning("%d memory writes failed; they are retried (then dead-lettered)", len(failed))
        return len(messages)

    # ------------------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._stop.set()
        if self._drainer is not None:
            self._drainer.join(timeout=5)
        try:  # a last drain: memory writes still queued are not lost with moto's in-memory queue
            for _ in range(20):
                if not self.drain_once():
                    break
        except Exception:
            log.exception("the last drain of the memory queue failed")
        self._moto.stop()
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception:  # pragma: no cover - best effort on shutdown
                log.exception("closing a local store failed")


def _bedrock_client(settings: Settings, options: LocalOptions) -> Any | None:
    if options.model_provider != "bedrock" and options.embedding_provider != "bedrock":
        return None
    import boto3

    from mneme.adapters.bedrock_model import bedrock_client_config

    session = boto3.Session(region_name=settings.region)
    if session.get_credentials() is None:
        raise LocalSetupError(
            "MNEME_MODEL_PROVIDER=bedrock / MNEME_EMBEDDING_PROVIDER=bedrock need AWS credentials "
            "(AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and a region (AWS_REGION); "
            "unset them to use the offline model and the local embedder"
        )
    return session.client("bedrock-runtime", config=bedrock_client_config(max_attempts=4))


def _start_moto() -> tuple[Any, str]:
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer

    from mneme_local import sfn_emulation

    sfn_emulation.install()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ["MOTO_PORT"] = str(port)  # where moto's ASL interpreter calls Lambda and Step Functions
    url = f"http://{host}:{port}"
    import urllib.request

    request = urllib.request.Request(
        f"{url}/moto-api/config",
        data=json.dumps(sfn_emulation.MOTO_CONFIG).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()
    return server, url


def _moto_client(service: str, url: str, region: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=url,
        region_name=region,
        config=Config(retries={"max_attempts": 3, "mode": "standard"}),
        **_MOTO_CREDENTIALS,
    )


def _create_aws_stand_ins(url: str, region: str) -> tuple[str, str, Any, Any]:
    """The moto resources: role, run function, agent-run machine (real ASL), queue + DLQ."""
    iam = _moto_client("iam", url, region)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
    role_arn = iam.create_role(RoleName="mneme-local", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    function_arn = _moto_client("lambda", url, region).create_function(
        FunctionName=FUNCTION_NAME,
        Runtime="python3.12",
        Role=role_arn,
        Handler="app.lambda_handler",
        Code={"ZipFile": _lambda_zip()},
        Timeout=900,
    )["FunctionArn"]
    definition = ASL_PATH.read_text(encoding="utf-8").replace("${RunFunctionArn}", function_arn)
    sfn = _moto_client("stepfunctions", url, region)
    machine_arn = sfn.create_state_machine(name=STATE_MACHINE_NAME, definition=definition, roleArn=role_arn)[
        "stateMachineArn"
    ]
    sqs = _moto_client("sqs", url, region)
    dlq_url = sqs.create_queue(QueueName=DLQ_NAME)["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    queue_url = sqs.create_queue(
        QueueName=QUEUE_NAME,
        Attributes={
            "VisibilityTimeout": "30",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"}),
        },
    )["QueueUrl"]
    return machine_arn, queue_url, sfn, sqs


def build_local(
    data_dir: str | Path | None = None,
    *,
    model_provider: Provider | None = None,
    environ: Mapping[str, str] | None = None,
) -> LocalMneme:
    """Build (and start) the local stack. Call :meth:`LocalMneme.close` to stop it."""
    from mneme.adapters.audit_log import ItemAuditLog
    from mneme.adapters.chat_store import ItemChatStore
    from mneme.adapters.config_store import ItemConfigStore
    from mneme.adapters.model_summarizer import ModelSummarizer
    from mneme.adapters.run_store import ItemRunStore
    from mneme.adapters.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.sqs_queue import SqsMemoryQueue
    from mneme.clock import SystemClock
    from mneme_local import sfn_emulation
    from mneme_local.sqlite_items import open_local_tables
    from mneme_local.vector_store import EmbeddedVectorStore

    env = dict(os.environ if environ is None else environ)
    if data_dir is not None:
        env["MNEME_DATA_DIR"] = str(data_dir)
    if model_provider is not None:
        env["MNEME_MODEL_PROVIDER"] = model_provider
    options = LocalOptions.from_env(env)
    settings = local_settings(options, env)
    bedrock = _bedrock_client(settings, options)
    options.data_dir.mkdir(parents=True, exist_ok=True)

    main, audit = open_local_tables(options.data_dir)
    memory = EmbeddedVectorStore(options.data_dir / "memory.sqlite3")
    closers: list[Any] = [main.close, audit.close, memory.close]
    moto, url = _start_moto()
    try:
        machine_arn, queue_url, sfn, sqs = _create_aws_stand_ins(url, settings.region)
    except Exception:
        moto.stop()
        raise
    settings = settings.model_copy(update={"state_machine_arn": machine_arn, "memory_queue_url": queue_url})

    clock = SystemClock()
    models = LocalModels(bedrock if options.model_provider == "bedrock" else None)
    if options.embedding_provider == "bedrock":
        from mneme.adapters.bedrock_embeddings import BedrockEmbedder

        embedder: Any = BedrockEmbedder(
            bedrock,  # type: ignore[arg-type]
            model_id=settings.embedding_model_id,
            dimension=settings.embedding_dimension,
            normalize=settings.embedding_normalize,
        )
    else:
        from mneme_local.embedder import LocalEmbedder

        embedder = LocalEmbedder()
    deps = Deps(
        settings=settings,
        config=ItemConfigStore(main),
        chats=ItemChatStore(main, clock),
        runs=ItemRunStore(main),
        audit=ItemAuditLog(audit),
        models=models,
        queue=SqsMemoryQueue(sqs, queue_url),
        orchestrator=StepFunctionsOrchestrator(sfn, machine_arn),
        tools=LocalToolInvoker(),
        clock=clock,
        memory=memory,
        embedder=embedder,
    )
    summary_provider: Provider = options.model_provider if settings.summary_model_id else "offline"
    summary_spec = ModelSpec(provider=summary_provider, model_id=settings.summary_model_id or "offline")
    deps.summarizer = ModelSummarizer(models.client_for(summary_spec), summary_spec.model_id)
    runtime = Runtime(deps)
    sfn_emulation.HANDLERS[FUNCTION_NAME] = runtime.handle
    stack = LocalMneme(options, deps, runtime, url, moto, sqs, closers)
    stack.start_drainer()
    return stack


def unfinished_runs(data_dir: Path) -> list[dict[str, Any]]:
    """The run items (key attributes) left ``queued`` / ``running`` / ``waiting_approval`` in the store."""
    path = data_dir / "mneme.sqlite3"
    if not path.exists():
        return []
    marks = ", ".join("?" for _ in _UNFINISHED)
    with sqlite3.connect(str(path), timeout=10) as db:
        try:
            rows = db.execute(
                f"SELECT body FROM main WHERE sk = 'RUN' AND json_extract(body, '$.status') IN ({marks})",
                _UNFINISHED,
            ).fetchall()
        except sqlite3.OperationalError:  # no table yet
            return []
    return [json.loads(row[0]) for row in rows]


def recover(stack: LocalMneme) -> None:
    """Resume the root runs an earlier server left unfinished; fail the orphaned children (see module doc)."""
    deps = stack.deps
    unfinished = {str(item["PK"]).removeprefix("RUN#"): item for item in unfinished_runs(stack.options.data_dir)}
    alive: dict[str, bool] = {}

    def is_alive(run_id: str, seen: frozenset[str] = frozenset()) -> bool:
        """A root is resumed; a child lives on when its parent lives on and still waits for it."""
        if run_id not in alive:
            parent = unfinished[run_id].get("parent_run_id")
            alive[run_id] = not parent or (
                parent in unfinished
                and parent not in seen
                and is_alive(parent, seen | {run_id})
                and _waits_for(deps, parent, run_id)
            )
        return alive[run_id]

    for run_id, item in unfinished.items():
        if not is_alive(run_id):
            stack.runtime.handle(
                {
                    "action": "fail",
                    "run_id": run_id,
                    "error": {"Error": "Interrupted", "Cause": "the local server stopped while this run was in flight"},
                }
            )
            stack.interrupted.append(run_id)
        elif not item.get("parent_run_id"):
            run = deps.runs.get_run(run_id)
            if run is not None:
                deps.orchestrator.start(run_id, depth=run.depth)
                stack.resumed.append(run_id)


def _waits_for(deps: Deps, parent_run_id: str, child_run_id: str) -> bool:
    checkpoint = deps.runs.load_checkpoint(parent_run_id) or {}
    return any(p.get("child_run_id") == child_run_id for p in checkpoint.get("pending") or [])
