"""Erasure with a receipt (``DELETE /v1/me``, ``DELETE /v1/admin/users/{user_id}``).

An erasure runs in phases (:data:`mneme.models.privacy.ERASURE_PHASES`), each idempotent, its state kept in
the privacy ledger after each one: an erasure that is interrupted (a timeout, a failing store) resumes after
the last phase it finished when it is requested again or its job is redelivered.

0. **runs_stopped** — every unfinished run of the user is cancelled with its unfinished descendants, as their
   owner's cancel does (``mneme.engine.runs.cancel``): their executions stopped, their approval waits ended, a step
   in flight ends without committing. Nothing of theirs runs on, waits for a person for a week, or writes again
   after the listing below.
1. **inventory** — everything the user's erasure will delete, listed by owner in every store (expired
   items too): the receipt's counts by kind and its digest, sha256 over the sorted keys (one per line; the
   ``key`` values of an export). Memories the user wrote into ``vector.global.*`` are listed, not deleted.
2. **dead_letters** — the user's memory writes waiting in the writer's dead-letter queue are deleted.
   Writes still queued are dropped by the writer: the erasure state is its tombstone.
3. **memories** — every entry in the user's namespaces, of every status, derived entries included, is
   deleted for good from the memory store.
4. **exports** — everything under the user's export prefix is deleted: finished archives and partial ones
   (an upload in progress on S3, a ``.partial`` file locally, left by an export a crash interrupted).
5. **chats**, **runs** (events, requests, checkpoints, approval marks, outboxes, the idempotency records that
   are derived run ids, the per-minute rate windows), **config** (settings, agents, tasks, skills, export
   records) are deleted. The revisions of global agents, tasks and skills the user made (as an admin) are kept,
   their author ``erased:<erasure id>`` instead of the user's id (the receipt's ``global_revisions``).
6. **audit** — an ``erasure`` record is appended to the user's chain and the ``detail`` of every earlier
   record is redacted (the records themselves are kept, and the chain still verifies).
7. **verify** — the stores and the export prefix are listed again; anything found (written meanwhile by a run
   still in flight) is deleted and counted as ``late``, and the receipt says whether the last listing was
   empty and no global revision names the user (``verified``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable

from mneme.engine.audit import AuditScope, AuditTrail, request_trail
from mneme.engine.deps import Deps
from mneme.engine.privacy.export import export_prefix
from mneme.engine.privacy.owned import authored_global, extra_run_ids, run_chat_ids, user_items
from mneme.engine.runs.cancel import cancel_all_of
from mneme.errors import Forbidden, InvalidInput, NotFound, StoreUnavailable
from mneme.models.audit import AuditRecord
from mneme.models.common import reserved_user_id
from mneme.models.privacy import ERASURE_PHASES, ErasureState, GlobalMemory
from mneme.models.user import Caller
from mneme.ports.privacy import PrivacyJob

#: global memories named in a receipt (the total is always given)
MAX_LISTED_GLOBALS = 1_000


def _target(caller: Caller, user_id: str | None) -> str:
    target = caller.user_id if user_id is None else user_id
    if user_id is not None and not caller.is_admin:
        raise Forbidden("only an admin may erase another user", field="user_id")
    reason = reserved_user_id(target)  # the global owner, or a name no token carries: it would erase nobody
    if reason is not None:
        raise InvalidInput(f"not a user id that can be erased: {reason}", field="user_id")
    return target


def request_erasure(deps: Deps, caller: Caller, user_id: str | None = None) -> ErasureState:
    """Start (or resume) the erasure of the caller — or, for an admin, of ``user_id`` — and hand it to the
    privacy worker; answers its state as it stands (done already when the worker ran it at once)."""
    target = _target(caller, user_id)
    if deps.privacy_jobs is None:
        raise StoreUnavailable("erasure is not configured in this deployment")
    state = deps.privacy_ledger.get_erasure(target)
    if state is None or state.status == "done":
        state = ErasureState(
            erasure_id=f"era-{deps.ids()}", user_id=target, requested_by=caller.user_id, started_at=deps.clock.now()
        )
        deps.privacy_ledger.put_erasure(state)  # from now on the writer drops the user's queued memory writes
        if caller.user_id != target:  # the admin's own trail says whom they erased
            trail = request_trail(caller.user_id, deps.clock)
            trail.write(deps.audit, "erasure", [None], target_user_id=target, erasure_id=state.erasure_id)
    deps.privacy_jobs.enqueue(PrivacyJob("erasure", target, state.erasure_id))
    return deps.privacy_ledger.get_erasure(target) or state


def erasure_state(deps: Deps, caller: Caller, user_id: str | None = None) -> ErasureState:
    target = _target(caller, user_id)
    state = deps.privacy_ledger.get_erasure(target)
    if state is None:
        raise NotFound("no erasure of this user", field="user_id")
    return state


def continue_erasure(deps: Deps, user_id: str, erasure_id: str, *, deadline: float) -> ErasureState | None:
    """The privacy worker's part: run the phases not done yet while time is left (``deadline`` on
    ``deps.monotonic``); when it runs out, queue the rest. Answers the state reached."""
    state = deps.privacy_ledger.get_erasure(user_id)
    if state is None or state.erasure_id != erasure_id or state.status == "done":
        return state
    ran = 0
    for phase in ERASURE_PHASES:
        if phase in state.phases_done:
            continue
        if ran and deps.monotonic() > deadline and deps.privacy_jobs is not None:  # one phase at least: progress
            deps.privacy_jobs.enqueue(PrivacyJob("erasure", user_id, erasure_id))
            return state
        state = _PHASES[phase](deps, state)
        ran += 1
        state = state.model_copy(update={"phases_done": [*state.phases_done, phase]})
        deps.privacy_ledger.put_erasure(state)
    state = state.model_copy(update={"status": "done", "finished_at": deps.clock.now()})
    deps.privacy_ledger.put_erasure(state)
    return state


# ------------------------------------------------------------------------------------------ phases
def _runs_stopped(deps: Deps, state: ErasureState) -> ErasureState:
    cancel_all_of(deps, state.user_id, by=state.requested_by, why=f"by the erasure {state.erasure_id}")
    return state


def _inventory(deps: Deps, state: ErasureState) -> ErasureState:
    counts: Counter[str] = Counter()
    keys: list[str] = []
    for item in user_items(deps, state.user_id, include_expired=True):
        counts[item.kind] += 1
        counts["summary"] += item.kind == "chat" and bool(item.data.get("summary"))
        keys.append(item.key)
    digest = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()
    globals_ = [
        GlobalMemory(id=i.data["id"], namespace=i.data["namespace"], created_at=i.data["created_at"])
        for i in authored_global(deps, state.user_id)
    ]
    return state.model_copy(
        update={
            "counts": {kind: n for kind, n in counts.items() if n},
            "digest": digest,
            "keys": len(keys),
            "global_memories": globals_[:MAX_LISTED_GLOBALS],
            "global_memories_total": len(globals_),
            "global_revisions": _revisions_authored(deps, state.user_id),
        }
    )


def _dead_letters(deps: Deps, state: ErasureState) -> ErasureState:
    removed = deps.dead_letters.purge_user(state.user_id) if deps.dead_letters is not None else []
    if not removed:
        return state
    counts = {**state.counts, "dead_letter": state.counts.get("dead_letter", 0) + len(removed)}
    return state.model_copy(update={"counts": counts})


def _memories(deps: Deps, state: ErasureState) -> ErasureState:
    if deps.memory is not None:
        deps.memory.hard_delete([doc.id for doc in deps.memory.iter_owned(state.user_id)])
    if deps.revisions is not None:  # the entries' history goes with them (counted by the inventory)
        deps.revisions.erase(state.user_id)
    return state


def _exports(deps: Deps, state: ErasureState) -> ErasureState:
    if deps.exports is not None:
        deps.exports.erase_prefix(export_prefix(state.user_id))
        for item in deps.config.iter_owned(state.user_id):  # a record naming a key elsewhere (none is written so)
            if item.kind == "export" and item.data.get("object_key"):
                deps.exports.delete(str(item.data["object_key"]))
    return state


def _exports_left(deps: Deps, user_id: str) -> list[str]:
    return deps.exports.left_under(export_prefix(user_id)) if deps.exports is not None else []


def _chats(deps: Deps, state: ErasureState) -> ErasureState:
    run_ids = extra_run_ids(deps, state.user_id)
    deps.chats.erase_owned(state.user_id, run_chat_ids(deps, state.user_id, run_ids))
    return state


def _runs(deps: Deps, state: ErasureState) -> ErasureState:
    deps.runs.erase_owned(state.user_id, extra_run_ids(deps, state.user_id))
    deps.rates.erase_owned(state.user_id)  # the per-minute run counters: no content, but keyed by the user
    return state


def _config(deps: Deps, state: ErasureState) -> ErasureState:
    deps.config.erase_owned(state.user_id)
    _reattribute(deps, state)
    return state


def pseudonym(erasure_id: str) -> str:
    """Who an erased admin's revisions of global resources name instead of them: the erasure (its receipt)."""
    return f"erased:{erasure_id}"


def _reattribute(deps: Deps, state: ErasureState) -> None:
    """The user's id leaves the global revisions they made: admins keep reading which changes were one person's."""
    if deps.config_revisions is not None:
        deps.config_revisions.reattribute(state.user_id, pseudonym(state.erasure_id))


def _revisions_authored(deps: Deps, user_id: str) -> int:
    return deps.config_revisions.authored(user_id) if deps.config_revisions is not None else 0


def erasure_record(deps: Deps, state: ErasureState) -> AuditRecord:
    """The ``erasure`` record of the user's chain: the same record however often the phase is repeated."""
    trail = AuditTrail(
        AuditScope(state.user_id), key=f"erasure#{state.erasure_id}", clock=deps.clock, at=state.started_at
    )
    detail = {"erasure_id": state.erasure_id, "requested_by": state.requested_by, "digest": state.digest}
    return trail.records("erasure", [None], **detail)[0]


def _audit(deps: Deps, state: ErasureState) -> ErasureState:
    record = erasure_record(deps, state)
    deps.audit.append([record])
    redacted = deps.audit.redact(state.user_id, record)
    head = deps.audit.verify(state.user_id).head
    return state.model_copy(update={"audit_redacted": state.audit_redacted + redacted, "chain_head": head})


def _verify(deps: Deps, state: ErasureState) -> ErasureState:
    late: Counter[str] = Counter(item.kind for item in user_items(deps, state.user_id, include_expired=True))
    if exports_late := len(_exports_left(deps, state.user_id)):
        late["export_file"] = exports_late
    if revisions_late := _revisions_authored(deps, state.user_id):
        late["global_revision"] = revisions_late
    if late:
        for phase in (_memories, _exports, _chats, _runs, _config):
            phase(deps, state)
    deps.rates.erase_owned(state.user_id)  # a run started meanwhile counted itself
    left = next(iter(user_items(deps, state.user_id, include_expired=True)), None)
    verified = left is None and not _exports_left(deps, state.user_id) and not _revisions_authored(deps, state.user_id)
    return state.model_copy(update={"late": dict(late), "verified": verified})


_PHASES: dict[str, Callable[[Deps, ErasureState], ErasureState]] = {
    "runs_stopped": _runs_stopped,
    "inventory": _inventory,
    "dead_letters": _dead_letters,
    "memories": _memories,
    "exports": _exports,
    "chats": _chats,
    "runs": _runs,
    "config": _config,
    "audit": _audit,
    "verify": _verify,
}
