"""A line of a transcript with its date in front (``[8 May 2023] Kate: …``) is stored as written and embedded as
what it says (issue 30, :func:`mneme.memory.speakers.spoken`): with the dates embedded, our dataset's recall@10 with
the floors, its lines dated, was 0.753, and 0.865 without. A note is embedded as written."""

from __future__ import annotations

from tests.functional.api.conftest import Api
from tests.support.deps import World

ALICE = "vector.user.alice.memory"
LINE = "[8 May 2023] Kate: I adopted a dog named Pepper."
NOTE = "8 May 2023: we adopted a dog named Pepper."


def test_a_stamped_line_is_stored_as_written_and_embedded_without_its_stamp(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": LINE})
    assert reply.status == 201, reply.text
    assert world.memory.documents[reply.body["ids"][0]].content == LINE
    assert world.embedder.calls[-1] == ["Kate: I adopted a dog named Pepper."]


def test_a_dated_note_is_embedded_as_written(api: Api, world: World) -> None:
    reply = api.post("/v1/memory/documents", {"namespace": ALICE, "content": NOTE})
    assert reply.status == 201, reply.text
    assert world.embedder.calls[-1] == [NOTE]


def test_a_batch_embeds_its_stamped_lines_without_their_stamps(api: Api, world: World) -> None:
    items = [{"namespace": ALICE, "content": text} for text in (LINE, NOTE)]
    reply = api.post("/v1/memory/documents:batch", {"items": items})
    assert reply.status == 207, reply.text
    assert world.embedder.calls[-1] == ["Kate: I adopted a dog named Pepper.", NOTE]


def test_a_stamped_line_is_found_and_shown_with_its_date(api: Api, world: World) -> None:
    api.post("/v1/memory/documents", {"namespace": ALICE, "content": LINE})
    hits = api.post("/v1/memory/search", {"query": "Kate: I adopted a dog named Pepper."}).body["hits"]
    assert [hit["content"] for hit in hits][:1] == [LINE]
