"""A two-user world for the isolation suite: ``bob`` holds secrets, ``alice`` (the caller) attacks.

Bob's memories, chat, runs (one finished, one waiting for an approval) and audit records are seeded with
ids that only he knows (``bob…``) and content that carries :data:`SECRET`. A leak is any response or
model request that contains the secret, or one of bob's ids the attacker did not send herself.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.engine.memory_io.ops import new_document
from mneme.engine.runs.service import StepResult, start_run, step
from mneme.models.agent import Agent
from mneme.models.audit import AuditRecord
from mneme.models.run import RunStatus
from mneme.models.run_request import RunRequest
from mneme.models.user import Caller
from mneme.ports.audit import AuditLog
from mneme.ports.models import ModelResponse
from tests.functional.api.conftest import Api
from tests.reliability.ledger import LEDGER
from tests.support.deps import World, make_world

SECRET = "BOBSECRET"
ALICE, BOB = "alice", "bob"
TOPIC = "project release plan notes"
BOB_NAMESPACES = (
    "vector.agent.bob.memory",
    "vector.user.bob.memory",
    "vector.user.bob.notes",
    "vector.agent.bob.x.deep",
)


class RecordingModel(OfflineModel):
    """The offline model, keeping every request it was sent (what a model could ever learn)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def converse(self, request: dict[str, Any], **options: Any) -> ModelResponse:
        with self._lock:
            self.requests.append(request)
        return super().converse(request, **options)


class RecordingAudit:
    """The audit log, keeping every record appended (in order) — the suite checks denials against it."""

    def __init__(self, inner: AuditLog) -> None:
        self.inner = inner
        self.records: list[AuditRecord] = []
        self._lock = threading.Lock()

    def append(self, records: Any) -> None:
        self.inner.append(records)
        with self._lock:
            self.records.extend(records)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class TwoUsers:
    world: World
    api: Api
    model: RecordingModel
    audit: RecordingAudit
    bob_ids: list[str] = field(default_factory=list)
    bob_run_ids: list[str] = field(default_factory=list)
    bob_chat_ids: list[str] = field(default_factory=list)
    bob_waiting_run: str = ""
    bob_waiting_call: str = ""

    # ------------------------------------------------------------------ leak checks
    def leaks(self, text: str, sent: str = "") -> list[str]:
        """What in ``text`` belongs to bob: the secret, or an id of his that ``sent`` does not contain."""
        found = [SECRET] if SECRET in text else []
        return found + [i for i in self.bob_ids if i in text and i not in sent]

    def model_leaks(self, since: int) -> list[str]:
        import json

        return [leak for r in self.model.requests[since:] for leak in self.leaks(json.dumps(r, ensure_ascii=False))]

    def denied(self, since: int, *, via: str | None = None, run_id: str | None = None) -> set[str]:
        """The namespaces alice's denied records name (one record of many names lists them in its detail)."""
        names: set[str] = set()
        for r in self.audit.records[since:]:
            if (
                r.action == "denied"
                and r.user_id == ALICE
                and (via is None or r.detail.get("via") == via)
                and (run_id is None or r.run_id == run_id)
            ):
                names.update([r.namespace] if r.namespace else r.detail.get("namespaces", []))
        return names

    def drive(self, run_id: str, limit: int = 50) -> StepResult:
        """Play the state machine: step the run, running its children first whenever it delegates."""
        for _ in range(limit):
            result = step(self.world.deps, run_id)
            if result.outcome != "delegate":
                return result
            for child in result.children:
                self.drive(child["run_id"], limit)
        raise AssertionError(f"run {run_id} did not settle")


def own_or_global(namespace: str) -> bool:
    """The security filter, restated independently: alice may read her own scopes and global."""
    return namespace.startswith(("vector.global.", f"vector.agent.{ALICE}.", f"vector.user.{ALICE}."))


def seeded() -> TwoUsers:
    model = RecordingModel()
    # the subject is isolation, not rate limits
    world = LEDGER.world("isolation world", make_world(model, MNEME_RUNS_PER_USER_PER_MINUTE="0"))
    audit = RecordingAudit(world.deps.audit)
    world.deps.audit = audit
    users = TwoUsers(world, Api(world), model, audit)
    deps = world.deps
    plain = itertools.count(1)
    deps.ids = lambda: f"bob{next(plain):04d}x"  # bob's ids are recognisable
    docs = [
        new_document(f"bobdoc{n}x", ns, BOB, f"{TOPIC} {SECRET}-{n}", clock=world.clock)
        for n, ns in enumerate(BOB_NAMESPACES)
    ]
    docs += [
        new_document("alicedoc1", "vector.agent.alice.memory", ALICE, f"{TOPIC} from alice", clock=world.clock),
        new_document("globaldoc1", "vector.global.howto", "", f"{TOPIC} shared with everyone", clock=world.clock),
    ]
    world.memory.put([(doc, world.embedder.embed([doc.content])[0]) for doc in docs])
    users.bob_ids += [doc.id for doc in docs if doc.owner_user_id == BOB]
    deps.config.put_agent(
        Agent(
            agent_id="bobagent",
            owner=BOB,
            label="Bobby",
            tools=["memory-search"],
            memory_policy={"tool_read_namespaces": ["vector.agent.${user_id}.*"], "allow_write": False},
        )
    )
    bob = Caller(user_id=BOB)
    done = start_run(deps, bob, RunRequest(agent_id="bobagent", input=f"{SECRET} {TOPIC}", chat_id="bobchat1x"))
    assert done.run.status is RunStatus.SUCCEEDED
    waiting = start_run(
        deps, bob, RunRequest(agent_id="bobagent", input=f"/search {SECRET} {TOPIC}", tool_approval="prompt")
    )
    assert waiting.run.status is RunStatus.WAITING_APPROVAL
    checkpoint = deps.runs.load_checkpoint(waiting.run.run_id) or {}
    users.bob_waiting_run = waiting.run.run_id
    users.bob_waiting_call = checkpoint["pending"][0]["call_id"]
    users.bob_run_ids = [done.run.run_id, waiting.run.run_id]
    users.bob_chat_ids = sorted({done.run.chat_id or "", waiting.run.chat_id or ""})
    users.bob_ids += [*users.bob_run_ids, *users.bob_chat_ids, users.bob_waiting_call]
    alice = itertools.count(1)
    deps.ids = lambda: f"a{next(alice):06d}"
    return users
