"""An item's JSON too large for one DynamoDB item, stored in parts beside it: chat messages and run events.

A chat message item or a run event item holds its JSON (UTF-8) in ``data``. SPEC §12 admits a run input of 100,000
characters, and JSON escapes some of them (a control character is 6 bytes: ``\\u0001``); a model's answer and its
tool calls' arguments have no limit of their own (a long CJK answer is 3 bytes a character). Such an item passed
DynamoDB's 400 KB: the write failed after the model had answered, and the run ended ``failed`` (or, on the fast
path, the request answered 413 naming DynamoDB).

Past :data:`DATA_BYTES` the JSON is cut into part items ``<prefix><seq>#<blob>#<n:04d>`` under a prefix of their own
(chat ``BLOB#`` sorts before the header ``CHAT``, so a newest-first read of a chat's tail never meets them; run
``EVTPART#`` is outside ``EVT#``), written *before* the write that stores the item; the item then holds ``chunks``
(the count) and ``blob`` (a fresh id, so a writer that loses a race never overwrites the winner's parts) instead
of ``data``. Parts carry the item's TTL. Every read (:func:`joined`) puts the JSON back together.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, Item, ItemTable, query_all
from mneme.adapters.dynamo.ttl import stamp
from mneme.errors import StoreUnavailable

CHAT_PARTS = "BLOB#"
EVENT_PARTS = "EVTPART#"
#: the largest JSON kept in its item (DynamoDB's limit is 400 KB, keys and other attributes included)
DATA_BYTES = 350_000
#: characters per part: at most 4 UTF-8 bytes each, so a part stays under 360 KB
PART_CHARS = 90_000


def split(pk: str, prefix: str, seq: str, data: str, expires_at: int | None) -> tuple[dict[str, Any], list[Item]]:
    """The item's content attributes and the part items to write first (none for JSON that fits)."""
    if len(data.encode("utf-8", "surrogatepass")) <= DATA_BYTES:
        return {"data": data}, []
    blob = uuid.uuid4().hex[:12]
    texts = [data[i : i + PART_CHARS] for i in range(0, len(data), PART_CHARS)]
    parts = [stamp({PK: pk, SK: f"{prefix}{seq}#{blob}#{n:04d}", "data": t}, expires_at) for n, t in enumerate(texts)]
    return {"chunks": len(parts), "blob": blob}, parts


def part_keys(item: Item, prefix: str) -> list[tuple[str, str]]:
    """The keys of an item's parts (none for JSON kept whole): its seq is the last ``#`` field of its key."""
    seq = str(item[SK]).rsplit("#", 1)[1]
    return [(str(item[PK]), f"{prefix}{seq}#{item['blob']}#{n:04d}") for n in range(int(item.get("chunks", 0)))]


def joined(table: ItemTable, item: Item, prefix: str, partition: Sequence[Item] | None = None) -> str:
    """An item's JSON, its parts read from ``partition`` when given (else fetched)."""
    keys = part_keys(item, prefix) if item.get("chunks") else []
    if not keys:
        return str(item["data"])
    wanted = {sk for _pk, sk in keys}
    found = [i for i in partition if i[SK] in wanted] if partition is not None else table.batch_get(keys)
    if len(found) != len(keys):
        raise StoreUnavailable(f"item {item[PK]} {item[SK]} is incomplete: {len(found)} of {len(keys)} parts")
    return "".join(str(i["data"]) for i in sorted(found, key=lambda i: str(i[SK])))


def parts_of(table: ItemTable, pk: str, prefix: str, seqs: range) -> list[tuple[str, str]]:
    """The keys of every part item stored for the items ``seqs`` (of any write, a lost one's included)."""
    items = query_all(table, pk, sk_prefix=prefix) if seqs else []
    return [(pk, str(i[SK])) for i in items if int(str(i[SK])[len(prefix) :].split("#")[0]) in seqs]
