"""The three ItemTable backends, built the same way for the store test suites.

``dynamo``: moto tables created from template.yaml; ``sqlite``: a file under tmp_path; ``memory``: dicts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from moto import mock_aws

from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA, ItemTable
from mneme.adapters.dynamo.table import DynamoItemTable
from mneme_local.sqlite_items import SqliteItemTable, open_local_tables
from tests.fakes.items import MemoryItemTable
from tests.support.sam_template import create_tables

BACKENDS = ["dynamo", "sqlite", "memory"]
MAIN, AUDIT = "mneme-main", "mneme-audit"


@dataclass
class Backend:
    name: str
    main: ItemTable
    audit: ItemTable
    client: Any = None  # the moto DynamoDB client (dynamo only)
    calls: list[str] = field(default_factory=list)  # DynamoDB operation names, in order (dynamo only)
    reopen: Callable[[], tuple[ItemTable, ItemTable]] | None = None  # sqlite only


def dynamo_client() -> Any:
    client = boto3.client("dynamodb", region_name="us-east-1")
    create_tables(client, {"MainTable": MAIN, "AuditTable": AUDIT})
    return client


def make_backend(name: str, tmp_path: Path) -> Iterator[Backend]:
    if name == "dynamo":
        with mock_aws():
            client = dynamo_client()
            backend = Backend(
                name,
                DynamoItemTable(client, MAIN, MAIN_SCHEMA, sleep=lambda _: None),
                DynamoItemTable(client, AUDIT, AUDIT_SCHEMA, sleep=lambda _: None),
                client=client,
            )

            def record(model: Any, **_: Any) -> None:
                backend.calls.append(model.name)

            client.meta.events.register("before-call.dynamodb.*", record)
            yield backend
    elif name == "sqlite":
        opened: list[SqliteItemTable] = []

        def reopen() -> tuple[ItemTable, ItemTable]:
            main, audit = open_local_tables(tmp_path / "data")
            opened.extend([main, audit])
            return main, audit

        main, audit = reopen()
        yield Backend(name, main, audit, reopen=reopen)
        for table in opened:
            table.close()
    else:
        yield Backend(name, MemoryItemTable(MAIN_SCHEMA), MemoryItemTable(AUDIT_SCHEMA))


def atomic_requests(client: Any) -> None:
    """moto applies a request's writes without a lock (threads corrupt its dicts), while DynamoDB applies each
    request atomically: serialize the requests — and only them; the log's read-chain-write cycle still races."""
    lock = threading.Lock()
    call = client._make_api_call

    def locked(operation: str, params: Any) -> Any:
        with lock:
            return call(operation, params)

    client._make_api_call = locked
