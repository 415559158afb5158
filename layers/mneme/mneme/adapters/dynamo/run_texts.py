"""A run's input and output beside its item, when the item would be too large for DynamoDB.

A run item holds the whole run as JSON (UTF-8). An input of 100,000 characters — within SPEC §12 — of CJK text is
300 KB, and with a long answer the item passed DynamoDB's 400 KB: the step's commit failed after the model had
answered, a 413 naming DynamoDB, the chat holding a turn of a run that did not exist. Past :data:`RUN_DATA_BYTES`
the run's ``input`` and ``output`` are written first as a blob of their own (``RUNTEXT#<version>#<nonce>``, chunked
by :mod:`mneme.adapters.dynamo.spill` when long), and the run item — written last, on its version as always — names
it (``texts``). Each write has its own blob, so a commit that loses its version race leaves the winner's texts
untouched; the blobs of earlier versions are deleted once the new item is stored. Every read of a run item
(:func:`run_of`) puts the texts back; the writing is :func:`mneme.adapters.dynamo.run_items.stored_item`.
"""

from __future__ import annotations

import json
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable
from mneme.adapters.dynamo.spill import blob_text
from mneme.errors import StoreUnavailable
from mneme.models import Run

TEXTS_PREFIX = "RUNTEXT#"
#: the largest run JSON kept whole in its item (DynamoDB's limit is 400 KB, keys and other attributes included)
RUN_DATA_BYTES = 300_000


def texts_sk(version: int, nonce: str) -> str:
    """The head of one version's texts (``nonce``: two writers of one version, only one of which commits, never
    share a blob)."""
    return f"{TEXTS_PREFIX}{version:09d}#{nonce}"


def version_of(sk: str) -> int:
    """The run version a texts item (a head or a chunk) was written for."""
    return int(sk.removeprefix(TEXTS_PREFIX).split("#", 1)[0])


def texts_of(table: ItemTable, item: Item, partition: list[Item] | None = None) -> dict[str, Any] | None:
    """The input and output stored beside a run item (read from ``partition`` when given); None: in the item."""
    if "texts" not in item:
        return None
    pk, sk = str(item[PK]), str(item["texts"])
    head = next((i for i in partition if i[SK] == sk), None) if partition is not None else table.get(pk, sk)
    if head is None:
        raise StoreUnavailable(f"the texts of run item {pk} ({sk}) are missing")
    parts = partition if partition is not None else table.batch_get(chunk_keys(head))
    texts: dict[str, Any] = json.loads(blob_text(head, parts))
    return texts


def run_of(table: ItemTable, item: Item, partition: list[Item] | None = None) -> Run:
    """The run a stored item holds, its texts put back."""
    run = Run.model_validate_json(item["data"]).model_copy(update={"version": int(item["version"])})
    texts = texts_of(table, item, partition)
    return run if texts is None else run.model_copy(update={"input": texts["input"], "output": texts["output"]})


def chunk_keys(head: Item) -> list[tuple[str, str]]:
    chunks = int(head.get("chunks", 0))
    return [(str(head[PK]), f"{head[SK]}#{head['blob']}#{n:04d}") for n in range(chunks)]
