"""An as-of search at the very moment the API stated for a change finds that change: a new entry at its
``created_at``, an edit at its ``updated_at``, though the revision is written a moment after the change (a clock
that moves with each reading, as a real one does)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
QUERY = "what was ticket ZK-4471 about"
CODED = "maria filed ticket ZK-4471 for the broken badge reader"
EDITED = "maria filed ticket ZK-4471 for the broken badge reader, fixed on Friday"


@pytest.fixture(autouse=True)
def moving_clock(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    def now() -> Any:
        world.clock.at += timedelta(milliseconds=1)
        return world.clock.at

    monkeypatch.setattr(world.clock, "now", now)


def _as_of(api: Api, moment: str) -> list[dict[str, Any]]:
    reply = api.post("/v1/memory/search", {"query": QUERY, "min_score": 0, "as_of": moment})
    assert reply.status == 200, reply.text
    return list(reply.body["hits"])


def _write(api: Api) -> dict[str, Any]:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": CODED})
    assert reply.status == 201, reply.text
    entry = api.get(f"/v1/memory/documents/{reply.body['ids'][0]}")
    assert entry.status == 200, entry.text
    return dict(entry.body)


def test_as_of_an_entrys_created_at_finds_it(api: Api) -> None:
    entry = _write(api)
    assert [hit["id"] for hit in _as_of(api, entry["created_at"])] == [entry["id"]]


def test_as_of_an_edits_updated_at_finds_the_edited_content(api: Api) -> None:
    entry = _write(api)
    edited = api.call("PATCH", f"/v1/memory/documents/{entry['id']}", {"content": EDITED})
    assert edited.status == 200, edited.text
    assert [hit["content"] for hit in _as_of(api, edited.body["updated_at"])] == [EDITED]


def test_as_of_a_deletes_moment_no_longer_finds_the_entry(api: Api) -> None:
    entry = _write(api)
    assert api.call("DELETE", f"/v1/memory/documents/{entry['id']}", None).status in (200, 204)
    listed = api.get("/v1/memory/documents", query={"namespace": ALICE, "status": "deleted"})
    assert listed.status == 200, listed.text
    [deleted] = listed.body["documents"]
    assert _as_of(api, deleted["updated_at"]) == []
