"""What an import sends and answers, offline (``mneme_client.imports``): an export's chunks stored as the one entry
they were, an exported expiry kept, each line answered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mneme_client import imports
from mneme_client.models import BatchItemResult

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
NAMESPACE = "vector.user.a.memory"


def _chunk(index: int, count: int = 3, entry: str = "e1", **more: Any) -> dict[str, Any]:
    """A line of ``mneme memory export``: one chunk of a long entry (the first keeps the entry's id)."""
    return {
        "id": entry if index == 0 else f"{entry}-{index}",
        "parent_id": None if index == 0 else entry,
        "chunk_index": index,
        "chunk_count": count,
        "content": f"part {index} of {entry}.",
        "namespace": NAMESPACE,
        "observed_at": "2026-11-01T10:00:00Z",
        "class": "document",
        "tags": ["plan"],
        **more,
    }


def _entries(items: list[dict[str, Any]]) -> list[imports.ImportEntry]:
    return list(imports.import_entries(items, now=NOW))


def test_an_exports_chunks_are_sent_as_one_entry_in_chunk_order() -> None:
    (entry,) = _entries([_chunk(2), _chunk(0), _chunk(1)])
    assert entry.lines == (0, 1, 2)
    assert entry.entry is not None
    assert entry.entry["content"] == "part 0 of e1.\n\npart 1 of e1.\n\npart 2 of e1."
    assert {k: entry.entry[k] for k in ("namespace", "observed_at", "class", "tags")} == {
        "namespace": NAMESPACE,
        "observed_at": "2026-11-01T10:00:00Z",
        "class": "document",
        "tags": ["plan"],
    }


def test_a_whole_entry_between_chunks_is_sent_on_its_own_before_the_chunked_one_completes() -> None:
    whole = {"content": "Maria: I moved to Porto.", "namespace": NAMESPACE, "chunk_count": None, "chunk_index": None}
    sent = _entries([_chunk(0, 2), whole, _chunk(1, 2)])
    assert [(e.lines, e.entry["content"] if e.entry else None) for e in sent] == [
        ((1,), "Maria: I moved to Porto."),
        ((0, 2), "part 0 of e1.\n\npart 1 of e1."),
    ]


def test_two_entries_chunks_interleaved_are_two_entries() -> None:
    sent = _entries([_chunk(0, 2, "a"), _chunk(0, 2, "b"), _chunk(1, 2, "b"), _chunk(1, 2, "a")])
    assert [(e.lines, e.entry["content"] if e.entry else None) for e in sent] == [
        ((1, 2), "part 0 of b.\n\npart 1 of b."),
        ((0, 3), "part 0 of a.\n\npart 1 of a."),
    ]


def test_an_entry_missing_a_chunk_is_refused_by_each_of_its_lines_and_nothing_of_it_is_sent() -> None:
    (refused,) = _entries([_chunk(0), _chunk(2)])
    assert (refused.lines, refused.entry) == ((0, 1), None)
    assert refused.error is not None and refused.error["code"] == "incomplete_entry"
    assert "chunk(s) 1 are not in the input" in refused.error["message"]


def test_a_chunk_repeated_in_the_input_is_answered_with_its_entry() -> None:
    (entry,) = _entries([_chunk(0, 2), _chunk(0, 2), _chunk(1, 2)])
    assert entry.lines == (0, 1, 2)
    assert entry.entry is not None and entry.entry["content"].count("part 0") == 1


def test_the_same_export_imported_again_gets_the_same_token() -> None:
    first, again = (_entries([_chunk(0), _chunk(1), _chunk(2)])[0] for _ in range(2))
    assert first.entry is not None and again.entry is not None
    assert first.entry["client_token"] == again.entry["client_token"]


def test_an_exported_expiry_is_sent_as_the_seconds_left() -> None:
    later = {"content": "a", "namespace": NAMESPACE, "expires_at": (NOW + timedelta(hours=1)).isoformat()}
    soon = {"content": "b", "namespace": NAMESPACE, "expires_at": (NOW + timedelta(seconds=5)).isoformat()}
    none = {"content": "c", "namespace": NAMESPACE, "expires_at": None}
    sent = [e.entry for e in _entries([later, soon, none])]
    assert [entry.get("ttl_seconds") if entry else "refused" for entry in sent] == [3600, 60, None]


def test_an_own_ttl_wins_over_an_exported_expiry() -> None:
    item = {"content": "a", "namespace": NAMESPACE, "ttl_seconds": 120, "expires_at": "2020-01-01T00:00:00Z"}
    (entry,) = _entries([item])
    assert entry.entry is not None and entry.entry["ttl_seconds"] == 120


def test_an_entry_already_expired_is_refused_not_stored_without_expiry() -> None:
    (entry,) = _entries([{"content": "a", "namespace": NAMESPACE, "expires_at": "2026-12-06T11:59:59Z"}])
    assert entry.entry is None and entry.error is not None and entry.error["code"] == "expired"


def test_an_expiry_that_is_not_a_moment_refuses_its_line_not_the_import() -> None:
    items = [{"content": "a", "namespace": NAMESPACE, "expires_at": value} for value in ("tomorrow", 17, ["x"])]
    refused = _entries([*items, {"content": "b", "namespace": NAMESPACE}])
    assert [(e.lines, (e.error or {}).get("code")) for e in refused] == [
        ((0,), "invalid_input"),
        ((1,), "invalid_input"),
        ((2,), "invalid_input"),
        ((3,), None),
    ]


def test_each_line_gets_its_entrys_answer_or_the_reason_it_was_refused_here() -> None:
    (batch,) = imports.import_batches(
        [_chunk(0, 2), {"content": "x", "namespace": NAMESPACE}, _chunk(1, 2), _chunk(0, 2, "lost")], now=NOW
    )
    assert [e.lines for e in batch] == [(1,), (0, 2), (3,)]
    answered = [
        BatchItemResult(index=1, status=201, ids=["joined"]),
        BatchItemResult(index=0, status=201, ids=["x"]),
    ]
    results = sorted(imports.import_results(batch, answered), key=lambda r: r.index)
    assert [(r.index, r.status, r.ids, (r.error or {}).get("code")) for r in results] == [
        (0, 201, ["joined"], None),
        (1, 201, ["x"], None),
        (2, 201, ["joined"], None),
        (3, 400, None, "incomplete_entry"),
    ]


def test_a_batch_holds_one_hundred_entries_to_send_however_many_lines_they_take() -> None:
    lines = [chunk for n in range(101) for chunk in (_chunk(0, 2, f"e{n}"), _chunk(1, 2, f"e{n}"))]
    first, second = imports.import_batches(lines, now=NOW)
    assert (len(imports.sent(first)), len(imports.sent(second))) == (100, 1)
    assert (first[-1].lines, second[0].lines) == ((198, 199), (200, 201))
