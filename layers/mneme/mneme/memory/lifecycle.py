"""The lifecycle of a memory entry (issue 13.1, 13.3): reserved metadata, refresh merges, inbox cursors.

* Reserved metadata keys (:data:`~mneme.models.memory.RESERVED_METADATA_KEYS`) are mneme's own; a user
  (HTTP, 400) or a model (memory tools, a tool error) naming one is refused by :func:`check_user_metadata`.
* A refresh (identical or near-duplicate content) keeps the stored entry and its content, takes the newer
  entry's time, expiry and metadata, merges tags and ``derived_from``, and lists every source it absorbed
  in ``metadata.sources`` (:func:`refreshed_fields`).
* Inbox cursors are opaque: the last entry's ``created_at`` (µs) and id, base64 (:func:`encode_cursor`).
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from mneme.errors import InvalidInput
from mneme.models.memory import RESERVED_METADATA_KEYS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mneme.models.memory import MemoryDocument

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_SOURCES = 20


def check_user_metadata(metadata: Mapping[str, Any] | None, *, field: str = "metadata") -> dict[str, Any]:
    """The metadata a user or a model may set: reserved keys raise :class:`InvalidInput` naming them."""
    values = dict(metadata or {})
    reserved = sorted(set(values) & RESERVED_METADATA_KEYS)
    if reserved:
        raise InvalidInput(f"metadata keys {', '.join(reserved)} are reserved for mneme", field=field)
    return values


def _source_of(doc: MemoryDocument) -> dict[str, Any]:
    meta = doc.metadata
    return {k: meta[k] for k in ("source", "run_id", "agent_id") if meta.get(k) is not None} | {"id": doc.id}


def refreshed_fields(old: MemoryDocument, newer: MemoryDocument) -> dict[str, Any]:
    """The fields a refresh changes on ``old`` (see the module docstring)."""
    sources = list(old.metadata.get("sources") or [_source_of(old)])
    if _source_of(newer) not in sources:
        sources.append(_source_of(newer))
    metadata = {**old.metadata, **newer.metadata, "sources": sources[-MAX_SOURCES:]}
    return {
        "tags": list(dict.fromkeys([*old.tags, *newer.tags])),
        "derived_from": [i for i in dict.fromkeys([*old.derived_from, *newer.derived_from]) if i != old.id],
        "updated_at": newer.updated_at,
        "expires_at": newer.expires_at,
        "metadata": metadata,
        "observed_at": newer.observed_at or old.observed_at,
    }


def micros(moment: datetime) -> int:
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return (aware - _EPOCH) // timedelta(microseconds=1)


def from_micros(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


_MAX_CURSOR_MICROS = 2**63 - 1


def encode_cursor(doc: MemoryDocument) -> str:
    return base64.urlsafe_b64encode(f"{micros(doc.created_at)}|{doc.id}".encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[int, str] | None:
    """``(created_at µs, id)`` of the last entry of the previous page; a forged cursor is a 400."""
    if not cursor:
        return None
    try:
        stamp, sep, doc_id = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
        created = int(stamp)
        if not sep or abs(created) > _MAX_CURSOR_MICROS:  # beyond a store's integer (SQLite's)
            raise ValueError(cursor)
        return created, doc_id
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidInput("cursor is not one this API returned", field="cursor") from exc


def listing_cursor(listing: str, cursor: str | None) -> str | None:
    """A store's page cursor bound to the listing it pages (``namespace|status``): the API's cursor."""
    return base64.urlsafe_b64encode(f"{listing}\n{cursor}".encode()).decode() if cursor else None


def store_cursor(listing: str, cursor: str | None) -> str | None:
    """The store's cursor inside an API cursor of ``listing``: a forged one, or one of another listing (another
    namespace — another user's own —, another status), is a 400: read as a position elsewhere, it answered a
    silently wrong page."""
    if not cursor:
        return None
    try:
        bound, sep, inner = base64.urlsafe_b64decode(cursor.encode()).decode().partition("\n")
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidInput("cursor is not one this API returned", field="cursor") from exc
    if not sep or not inner:
        raise InvalidInput("cursor is not one this API returned", field="cursor")
    if bound != listing:
        raise InvalidInput(
            "cursor is of another listing (another namespace or status): page this one from its start",
            field="cursor",
        )
    return inner


def page_after(docs: list[MemoryDocument], cursor: str | None, limit: int) -> tuple[list[MemoryDocument], str | None]:
    """Newest first after ``cursor``: one page and the next cursor (None on the last page)."""
    after = decode_cursor(cursor)
    ordered = sorted(docs, key=lambda d: (micros(d.created_at), d.id), reverse=True)
    if after is not None:
        ordered = [d for d in ordered if (micros(d.created_at), d.id) < after]
    page = ordered[:limit]
    return page, encode_cursor(page[-1]) if len(ordered) > limit and page else None
