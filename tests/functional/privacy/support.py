"""Worlds for the privacy suites: the engine over each ItemTable backend and each memory store, two users
with data of every kind (made through the API and the engine's own paths), and scans of every table and
index that go around the ports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme.adapters.aws.sqs_queue import job_body
from mneme.adapters.dynamo.items import ItemTable
from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.opensearch.store import OpenSearchMemoryStore
from mneme.engine.memory_io.writer import WriterPorts, write_batch
from mneme.ports.memory import MemoryWriteJob
from mneme_local.sqlite_items import SqliteItemTable
from mneme_local.vector_store import EmbeddedVectorStore
from tests.fakes.items import MemoryItemTable
from tests.functional.adapters.item_backends import Backend, atomic_requests
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world

#: the (item backend, memory store) pairs every privacy suite runs on: each backend and each store at least once
COMBINATIONS = [
    ("dynamo", "opensearch-es"),
    ("sqlite", "embedded"),
    ("memory", "fake"),
    ("dynamo", "opensearch-aoss"),
]
DIMENSION = 256  # the HashingEmbedder's


@dataclass
class PrivacyWorld:
    world: World
    api: Api
    backend: Backend
    store: Any

    def drain_memory_queue(self) -> None:
        """Hand the queued memory writes to the writer (as SQS would), then forget them."""
        records = [{"messageId": f"m{i}", "body": job_body(j)} for i, j in enumerate(self.world.queue.jobs)]
        self.world.queue.jobs.clear()
        write_batch(WriterPorts.of(self.world.deps), records)


def privacy_world(backend: Backend, store: Any, **settings: Any) -> PrivacyWorld:
    if backend.client is not None:
        atomic_requests(backend.client)  # the engine calls the store from threads; moto is not thread-safe
    world = make_world(OfflineModel(), tables=(backend.main, backend.audit), store=store, **settings)
    return PrivacyWorld(world, Api(world), backend, store)


def populate(pw: PrivacyWorld, user: str, *, admin: bool = False) -> dict[str, Any]:
    """Data of every kind for ``user``; answers the ids made."""
    api = pw.api
    ok = {200, 201, 202, 204}
    calls = [
        api.put("/v1/me/settings", {"name": f"{user} name", "email": f"{user}@example.com"}, user=user),
        api.put("/v1/skills/notes", {"description": f"{user} notes", "content": "Take notes."}, user=user),
        api.put(
            "/v1/agents/helper",
            {"label": "Helper", "skills": ["notes"], "memory_policy": {"allow_write": True}},
            user=user,
        ),
        api.put("/v1/agents/helper/tasks/daily", {"name": "Daily", "context_prompt": f"Help {user}."}, user=user),
        api.post(
            "/v1/memory/documents",
            {"namespace": f"vector.user.{user}.memory", "content": f"{user} likes tea"},
            user=user,
        ),
    ]
    assert all(reply.status in ok for reply in calls), [r.text for r in calls]
    if admin:
        shared = api.post(
            "/v1/memory/documents",
            {"namespace": "vector.global.howto", "content": f"{user} wrote this howto"},
            user=user,
            admin=True,
        )
        assert shared.status == 201, shared.text
    long_input = f"{user} asks a question that is long enough to be remembered by the auto-write of the agent."
    first = api.post("/v1/runs", {"agent_id": "helper", "task_id": "daily", "input": long_input}, user=user)
    again = api.post(
        "/v1/runs",
        {"agent_id": "helper", "input": "again", "chat_id": first.body["chat_id"]},
        user=user,
        headers={"Idempotency-Key": f"{user}-key"},
    )
    assert first.status == 200 and again.status == 200, (first.text, again.text)
    pw.drain_memory_queue()  # the auto-written run input and output, derived from the hits
    run_id = first.body["run_id"]
    runs = pw.world.deps.runs
    runs.save_checkpoint(run_id, {"state": f"{user} " + "x" * 400_000})  # spilled over chunk items
    runs.put_request(run_id, 9, {"modelId": "m", "messages": [{"text": f"{user} " + "y" * 400_000}]})
    runs.put_mark(run_id, f"decision#{user}-call", {"decision": "always"})
    runs.put_outbox(run_id, [{"job_id": f"{user}-kept", "namespace": f"vector.user.{user}.memory"}], at="2026-11-30")
    pw.world.dead_letters.add(
        MemoryWriteJob(job_id=f"{user}-dead", namespace=f"vector.user.{user}.memory", owner_user_id=user, content="x")
    )
    return {"run_id": run_id, "idempotent_run_id": again.body["run_id"], "chat_id": first.body["chat_id"]}


# ------------------------------------------------------------------------------------------ scans
def scan_table(table: ItemTable) -> list[dict[str, Any]]:
    """Every item of a table, read around the stores (a Scan on DynamoDB, SQL on SQLite, the dict)."""
    if isinstance(table, MemoryItemTable):
        return [dict(item) for item in table._items.values()]
    if isinstance(table, SqliteItemTable):
        rows = table._db.execute(f'SELECT body FROM "{table._table}"').fetchall()
        return [json.loads(row[0]) for row in rows]
    client, name = table._client, table._name  # type: ignore[attr-defined]
    from mneme.adapters.dynamo.wire import item_from as _item_from

    items: list[dict[str, Any]] = []
    for page in client.get_paginator("scan").paginate(TableName=name, ConsistentRead=True):
        items += [_item_from(raw) for raw in page["Items"]]
    return items


def scan_memory(store: Any) -> list[Any]:
    """Every stored memory document, read around the port."""
    if isinstance(store, OpenSearchMemoryStore):
        from mneme.adapters.opensearch.queries import from_source

        return [from_source(h["_source"]) for h in store._query([{"match_all": {}}])]
    if isinstance(store, EmbeddedVectorStore):
        from mneme_local.vector_rows import COLUMNS, row_document

        return [row_document(row) for row in store._db.execute(f"SELECT {COLUMNS} FROM memory")]
    return list(store.documents.values())


def mentions(value: Any, user: str) -> bool:
    """Whether ``user`` appears anywhere in ``value`` (keys, strings, nested JSON text)."""
    return user in json.dumps(value, default=str)


def main_items_of(pw: PrivacyWorld, user: str) -> list[dict[str, Any]]:
    return [item for item in scan_table(pw.backend.main) if mentions(item, user)]


def lines(pw: PrivacyWorld, user: str) -> Iterator[dict[str, Any]]:
    """The lines of the user's newest export archive."""
    keys = [k for k in pw.world.exports.objects if _owner_digest(user) in k]
    yield from pw.world.exports.lines(sorted(keys)[-1]) if keys else []


def _owner_digest(user: str) -> str:
    import hashlib

    return hashlib.sha256(user.encode()).hexdigest()[:32]


def tmp_store(kind: str, tmp_path: Path, client: Any, index: str) -> Any:
    from tests.functional.memory.conftest import make_store

    return make_store(kind, tmp_path, client, index, DIMENSION)


def erasure_during_embedding(api: Api, world: World) -> None:
    """Alice's erasure runs to the end while a write of hers (the writer's, past its tombstone check, or an HTTP
    one) embeds its content."""
    embed, erased = world.embedder.embed, list[int]()

    def embed_then_erase(texts: Any) -> Any:
        vectors = embed(texts)
        if not erased:
            erased.append(1)
            assert api.delete("/v1/me", user="alice").status == 200
        return vectors

    world.embedder.embed = embed_then_erase  # type: ignore[method-assign]
