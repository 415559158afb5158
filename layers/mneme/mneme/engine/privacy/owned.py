"""Everything mneme holds for one user, across the stores: what an export lists and an erasure inventories.

The stores list their own parts by owner (no scan anywhere); this module ties them together: the runs
named by the user's audit records and unfinished runs are added to the run index (runs from before the
index existed), and the chats named on the user's runs to the chat index (eventually consistent).
"""

from __future__ import annotations

from collections.abc import Iterator

from mneme.engine.deps import Deps
from mneme.memory.entry_retention import is_expired
from mneme.ports.common import OwnedItem


def memory_key(doc_id: str) -> str:
    return f"memory:{doc_id}"


def extra_run_ids(deps: Deps, user_id: str) -> list[str]:
    """Runs of the user that the run index may not list: those its audit records and unfinished runs name."""
    found: dict[str, None] = {}
    for item in deps.audit.iter_owned(user_id):
        for name in ("run_id", "root_run_id"):
            if item.data.get(name):
                found[str(item.data[name])] = None
    for run in deps.runs.list_unfinished():
        if run.user_id == user_id:
            found[run.run_id] = None
    return list(found)


def run_chat_ids(deps: Deps, user_id: str, run_ids: list[str]) -> list[str]:
    return list(
        dict.fromkeys(
            str(item.data["chat_id"])
            for item in deps.runs.iter_owned(user_id, run_ids, include_expired=True)
            if item.kind == "run" and item.data.get("chat_id")
        )
    )


def user_items(deps: Deps, user_id: str, *, include_expired: bool) -> Iterator[OwnedItem]:
    """The user's configuration, runs, chats and memories (not the audit, not global memories). With
    ``include_expired`` also what has expired and is not deleted yet (an erasure takes it too)."""
    yield from deps.config.iter_owned(user_id)
    run_ids = extra_run_ids(deps, user_id)
    chat_ids: dict[str, None] = {}
    for item in deps.runs.iter_owned(user_id, run_ids, include_expired=include_expired):
        if item.kind == "run" and item.data.get("chat_id"):
            chat_ids[str(item.data["chat_id"])] = None
        yield item
    yield from deps.chats.iter_owned(user_id, list(chat_ids), include_expired=include_expired)
    yield from memory_items(deps, user_id, include_expired=include_expired)


def memory_items(deps: Deps, user_id: str, *, include_expired: bool) -> Iterator[OwnedItem]:
    if deps.memory is None:
        return
    now = deps.clock.now()
    for doc in deps.memory.iter_owned(user_id):
        if include_expired or not is_expired(doc, now):
            yield OwnedItem("memory", memory_key(doc.id), doc.model_dump(mode="json"))
    for revision in deps.revisions.owned(user_id) if deps.revisions is not None else ():
        key = f"memory_revision:{revision.doc_id}#{revision.key}"
        yield OwnedItem("memory_revision", key, revision.model_dump(mode="json"))


def authored_global(deps: Deps, user_id: str) -> Iterator[OwnedItem]:
    """The ``vector.global.*`` entries the user wrote (as an admin): exported and listed, never erased."""
    if deps.memory is None:
        return
    for doc in deps.memory.iter_authored(user_id):
        yield OwnedItem("global_memory", memory_key(doc.id), doc.model_dump(mode="json"))
