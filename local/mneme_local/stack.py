"""The running local stack and its options: what ``make run`` builds (:func:`mneme_local.compose.build_local`).

:class:`LocalMneme` owns the deps, the runtime, moto and the memory-queue drainer; :class:`LocalOptions` are the
choices read from the environment (data folder, model and embedding providers).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mneme.records import Record, field
from mneme_local.aws_stand_ins import QUEUE_NAME
from mneme_local.token import DEFAULT_DATA_DIR

if TYPE_CHECKING:
    from mneme.engine.deps import Deps
    from mneme.runtime import Runtime

# not "mneme…": Powertools filters every logger whose name contains its service name off the root handlers
log = logging.getLogger("local_mode")


class LocalSetupError(Exception):
    """The local server cannot start as configured (the message says what to change)."""


Provider = Literal["offline", "bedrock"]


class LocalOptions(Record):
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


class LocalMneme(Record, frozen=False):
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
    outbox: Any = None  # the durable outbox of queued memory writes (mneme_local.outbox.SqliteOutbox)
    requeued: int = 0  # jobs an earlier server left in the outbox, sent to the queue again on start
    privacy_resumed: list[str] = field(default_factory=list)  # exports / erasures a crash left, run again
    _sweeper: threading.Thread | None = None

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
        from mneme.engine.memory_io.writer import WriterPorts, write_batch

        result = write_batch(WriterPorts.of(self.deps), records)
        failed = {f.get("itemIdentifier") for f in (result or {}).get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self._sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
            if self.outbox is not None:  # written: no longer kept for a restart
                self.outbox.remove([str(json.loads(m["Body"]).get("job_id", "")) for m in done])
        if failed:
            log.warning("%d memory writes failed; they are retried (then dead-lettered)", len(failed))
        return len(messages)

    # ------------------------------------------------------------------------------ sweeper
    def start_sweeper(self, interval: float) -> None:
        """Fail, every ``interval`` seconds, the runs nothing runs any more (engine/runs/sweeper.py)."""
        self._sweeper = threading.Thread(target=self._sweep_loop, args=(interval,), name="mneme-sweeper", daemon=True)
        self._sweeper.start()

    def sweep(self) -> dict[str, Any]:
        result: dict[str, Any] = self.runtime.handle({"action": "sweep"})
        if result.get("failed"):
            log.info("the sweeper failed %d interrupted runs: %s", len(result["failed"]), result["failed"])
        return result

    def _sweep_loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.sweep()
            except Exception:  # the next sweep tries again
                log.exception("the local sweeper failed")

    # ------------------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._stop.set()
        if self._drainer is not None:
            self._drainer.join(timeout=5)
        if self._sweeper is not None:
            self._sweeper.join(timeout=5)
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
