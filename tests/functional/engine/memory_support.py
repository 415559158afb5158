"""Memories with a chosen similarity to a query, and what a run's model saw (for ranking tests)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from mneme.engine.memory_io.ops import new_document
from mneme.models.run import Run
from tests.support.deps import World

MEMORY_HEADER = "RELEVANT CONTEXT FROM LONG-TERM MEMORY:"


def remember(world: World, namespace: str, content: str, owner: str = "alice") -> str:
    """Store ``content`` with the fake embedder's own vector for it."""
    doc = new_document(world.deps.ids(), namespace, owner, content, clock=world.clock)
    world.memory.put([(doc, world.embedder.embed([content])[0])])
    return doc.id


def remember_at(
    world: World,
    namespace: str,
    content: str,
    *,
    query: str,
    similarity: float,
    age: timedelta = timedelta(0),
    owner: str = "alice",
    observed_at: datetime | None = None,
) -> str:
    """Store ``content`` with a vector whose cosine similarity to ``query``'s is exactly ``similarity``.

    The vector is ``s·q + √(1−s²)·u`` with ``u`` the content's own vector made orthogonal to ``q``;
    ``age`` back-dates the entry (for recency), ``observed_at`` says when it was said.
    """
    q = world.embedder.vector(query)
    v = world.embedder.vector(content)
    along = math.fsum(a * b for a, b in zip(v, q, strict=True))
    u = [a - along * b for a, b in zip(v, q, strict=True)]
    norm = math.sqrt(math.fsum(x * x for x in u))
    assert norm > 1e-6, "the content's vector is parallel to the query's; choose another text"
    rest = math.sqrt(1.0 - similarity * similarity)
    vector = [similarity * b + rest * (a / norm) for a, b in zip(u, q, strict=True)]
    doc = new_document(world.deps.ids(), namespace, owner, content, clock=world.clock)
    created = doc.created_at - age
    stored = doc.model_copy(update={"created_at": created, "updated_at": created, "observed_at": observed_at})
    world.memory.put([(stored, vector)])
    return doc.id


def first_request_text(world: World, run: Run) -> str:
    """The text of the last user message of the run's first model request (where hits are injected)."""
    request = world.deps.runs.list_requests(run.run_id)[0]
    return str(request["messages"][-1]["content"][-1]["text"])


def injected(world: World, run: Run) -> str:
    """The memory block the model saw in the run's first request ("" when nothing was injected)."""
    text = first_request_text(world, run)
    if MEMORY_HEADER not in text:
        return ""
    return text[text.index(MEMORY_HEADER) :].split("[Context — current date/time:")[0]
