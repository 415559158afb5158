"""Importing memory: items (a conversation's turns, a file's lines, an export) → batches of
``POST /v1/memory/documents:batch``, and each answer back to the items it came from. Shared by the sync and the
async client.

* An item sends its :data:`IMPORT_FIELDS` (``namespace`` the given one where it has none) and a client token,
  its own or :func:`import_token`'s, so importing the same items again stores nothing twice.
* **An export imports as it was exported.** ``mneme memory export`` lists a long entry as its chunks (``id``,
  ``parent_id``, ``chunk_index``, ``chunk_count``: the API's documents); imported one by one they would become as
  many short entries. The chunks of one entry are joined (in ``chunk_index`` order, a blank line between, so that
  the server cuts them where they were cut) and stored as one entry, the answer given to each of its lines. An
  entry some of whose chunks are not in the input is refused here, by each of its lines, not stored in part.
* An exported entry that expires (``expires_at``) keeps its moment of expiry: it is sent with the
  ``ttl_seconds`` left (at least the route's minimum), and one already past it is refused here, not stored
  without an expiry.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mneme_client import models

#: what is sent of an item (an export's other keys — its id, chunk fields, metadata — are left out)
IMPORT_FIELDS = ("namespace", "content", "tags", "ttl_seconds", "observed_at", "class", "client_token")
BATCH_SIZE = 100  # the batch route's limit
MIN_TTL_SECONDS = 60  # the route's least ttl_seconds
CHUNK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class ImportEntry:
    """One entry to store, made of the items at ``lines`` (their indices in the input: one, or an entry's
    chunks); ``entry`` is what is sent, ``None`` when the entry is refused here for ``error``."""

    lines: tuple[int, ...]
    entry: dict[str, Any] | None
    error: dict[str, str] | None = None


def import_token(entry: Mapping[str, Any]) -> str:
    """The client token of an imported entry without its own: the same namespace, moment and content, the same
    token, so that importing a file again (or retrying a batch) stores nothing twice."""
    said = json.dumps([entry.get("namespace"), entry.get("observed_at"), entry.get("content")], ensure_ascii=False)
    return "import-" + hashlib.sha256(said.encode()).hexdigest()[:48]


def import_entries(
    items: Iterable[Mapping[str, Any]], *, namespace: str | None = None, now: datetime | None = None
) -> Iterator[ImportEntry]:
    """The entries ``items`` make, in the order they are complete (an exported entry's when its last chunk
    comes), then the entries whose chunks are missing, refused."""
    moment = now or datetime.now(UTC)
    chunks: dict[str, dict[int, tuple[int, Mapping[str, Any]]]] = {}
    extra: dict[str, list[int]] = {}  # lines repeating a chunk already held
    for index, item in enumerate(items):
        key = _chunk_of(item)
        if key is None:
            yield _entry((index,), item, namespace, moment)
            continue
        held = chunks.setdefault(key, {})
        position = int(item["chunk_index"])
        if position in held:
            extra.setdefault(key, []).append(index)
            continue
        held[position] = (index, item)
        if len(held) == int(item["chunk_count"]):
            del chunks[key]
            yield _joined(held, extra.pop(key, []), namespace, moment)
    for key, held in chunks.items():
        count = int(next(iter(held.values()))[1]["chunk_count"])
        missing = ", ".join(str(position) for position in range(count) if position not in held)
        message = f"entry {key} is exported in {count} chunks; chunk(s) {missing} are not in the input"
        lines = tuple(sorted([index for index, _ in held.values()] + extra.get(key, [])))
        yield ImportEntry(lines, None, {"code": "incomplete_entry", "message": message})


def import_batches(
    items: Iterable[Mapping[str, Any]], *, namespace: str | None = None, now: datetime | None = None
) -> Iterator[list[ImportEntry]]:
    """:func:`import_entries` in batches of at most :data:`BATCH_SIZE` entries to send (the ones refused here
    ride along with the batch they come in)."""
    batch: list[ImportEntry] = []
    for imported in import_entries(items, namespace=namespace, now=now):
        batch.append(imported)
        if sum(entry.entry is not None for entry in batch) == BATCH_SIZE:
            yield batch
            batch = []
    if batch:
        yield batch


def sent(batch: Sequence[ImportEntry]) -> list[dict[str, Any]]:
    """The items of one ``write_memory_batch`` request."""
    return [imported.entry for imported in batch if imported.entry is not None]


def import_results(
    batch: Sequence[ImportEntry], answered: Sequence[models.BatchItemResult]
) -> Iterator[models.BatchItemResult]:
    """Each line's result: the answer to the entry it is part of (``answered``: the results of
    ``sent(batch)``, by their index), or the reason it was refused here (status 400)."""
    answers = iter(sorted(answered, key=lambda result: result.index))
    for imported in batch:
        if imported.entry is None:
            refused = models.BatchItemResult(index=0, status=400, error=imported.error)
            yield from (refused.model_copy(update={"index": line}) for line in imported.lines)
            continue
        answer = next(answers)
        yield from (answer.model_copy(update={"index": line}) for line in imported.lines)


def _chunk_of(item: Mapping[str, Any]) -> str | None:
    """The entry an exported chunk belongs to (its first chunk's id), or None for an item that is whole."""
    count, position = item.get("chunk_count"), item.get("chunk_index")
    if not isinstance(count, int) or count < 2 or not isinstance(position, int) or not 0 <= position < count:
        return None
    key = item.get("parent_id") or (item.get("id") if position == 0 else None)
    return str(key) if key else None


def _joined(
    held: Mapping[int, tuple[int, Mapping[str, Any]]], extra: list[int], namespace: str | None, now: datetime
) -> ImportEntry:
    first = held[0][1]
    content = CHUNK_SEPARATOR.join(str(held[position][1].get("content", "")) for position in sorted(held))
    lines = tuple(sorted([index for index, _ in held.values()] + extra))
    return _entry(lines, {**first, "content": content}, namespace, now)


def _entry(lines: tuple[int, ...], item: Mapping[str, Any], namespace: str | None, now: datetime) -> ImportEntry:
    entry = {name: item[name] for name in IMPORT_FIELDS if item.get(name) is not None}
    if namespace and "namespace" not in entry:
        entry["namespace"] = namespace
    expires = item.get("expires_at")
    if expires and "ttl_seconds" not in entry:
        try:
            left = (_moment(expires) - now).total_seconds()
        except (TypeError, ValueError):
            return ImportEntry(
                lines, None, {"code": "invalid_input", "message": f"expires_at: not a moment: {expires!r}"}
            )
        if left <= 0:
            return ImportEntry(lines, None, {"code": "expired", "message": f"the entry expired at {expires}"})
        entry["ttl_seconds"] = max(MIN_TTL_SECONDS, math.ceil(left))
    entry.setdefault("client_token", import_token(entry))
    return ImportEntry(lines, entry)


def _moment(value: str | datetime) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
