"""Calls of long-term memory: search, write, batches, namespaces, pages of documents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx

from mneme_client import models
from mneme_client.calls.base import Call, as_model, as_nothing, body_of, checked, compact, iso, precondition, seg


def search_memory(
    query: str,
    *,
    namespaces: list[str] | None = None,
    top_k: int | None = None,
    lines: bool = False,
    retrieval: str | None = None,
    explain: bool = False,
    as_of: datetime | str | None = None,
) -> Call[models.SearchView]:
    """``lines``: each chat-line hit with the lines said around it (its ``context``), as a run's model sees it;
    ``retrieval``: ``hybrid`` (the default), ``vector`` or ``keyword``; ``explain``: the view's ``explanation``
    (each hit's score parts, every dropped candidate and why); ``as_of``: what was recalled at that moment."""
    fields = compact(query=query, namespaces=namespaces or None, top_k=top_k, lines=lines or None)
    fields |= compact(retrieval=retrieval, explain=explain or None, as_of=iso(as_of))
    body = models.SearchBody.model_validate(fields)
    return Call("POST", "/v1/memory/search", as_model(models.SearchView), body=body_of(body), repeatable=True)


def write_memory(
    namespace: str,
    content: str,
    *,
    tags: list[str] | None = None,
    ttl_seconds: int | None = None,
    observed_at: datetime | str | None = None,
) -> Call[models.DocumentsView]:
    """``observed_at``: when it was said or true (default: now), for a conversation written after the fact."""
    fields = compact(namespace=namespace, content=content, tags=tags or None, ttl_seconds=ttl_seconds)
    body = models.DocumentBody.model_validate(fields | compact(observed_at=iso(observed_at)))
    return Call("POST", "/v1/memory/documents", as_model(models.DocumentsView), body=body_of(body))


def write_memory_batch(items: Sequence[Mapping[str, Any]]) -> Call[models.BatchResultsView]:
    """Up to 100 entries in one request, each answered by its index; an item's ``client_token`` makes its retry
    a no-op (``replayed``)."""
    body = models.DocumentBatchBody.model_validate({"items": [dict(item) for item in items]})
    tokened = all(item.get("client_token") for item in items)  # each item's retry a no-op (``replayed``)
    path, parse = "/v1/memory/documents:batch", as_model(models.BatchResultsView)
    return Call("POST", path, parse, body=body_of(body), repeatable=tokened)


def memory_namespaces() -> Call[models.NamespacesView]:
    return Call("GET", "/v1/memory/namespaces", as_model(models.NamespacesView))


def memory_page(
    namespace: str, cursor: str | None = None, *, limit: int | None = 200, status: str | None = None
) -> Call[models.DocumentPageView]:
    """A page of a namespace's entries (``status``: ``active``, ``superseded`` or ``deleted``; default: all)."""
    params = compact(namespace=namespace, status=status, cursor=cursor, limit=limit)
    return Call("GET", "/v1/memory/documents", as_model(models.DocumentPageView), params=params)


class TaggedDocument(models.DocumentView):
    """A memory entry with its entity tag (``etag``, the answer's ``ETag``): pass it as ``if_match`` to a patch
    or a delete that must not undo a change made since (the API answers 412 instead)."""

    etag: str | None = None


def as_tagged_document(response: httpx.Response) -> TaggedDocument:
    document = TaggedDocument.model_validate_json(checked(response).content)
    document.etag = response.headers.get("ETag")
    return document


def get_document(doc_id: str, *, derived: bool = False) -> Call[TaggedDocument]:
    """``derived``: with the entries made from it (facts, summaries) — its cascade."""
    params = {"derived": "true"} if derived else {}
    return Call("GET", f"/v1/memory/documents/{seg(doc_id)}", as_tagged_document, params=params)


def patch_document(
    doc_id: str, patch: models.DocumentPatch | dict[str, Any], *, if_match: str | None = None
) -> Call[TaggedDocument]:
    """Change an entry's ``content``, ``status`` or ``tags`` (a new revision); ``if_match``: its ``etag`` as read."""
    body = models.DocumentPatch.model_validate(patch) if isinstance(patch, dict) else patch
    path = f"/v1/memory/documents/{seg(doc_id)}"
    return Call("PATCH", path, as_tagged_document, body=body_of(body), headers=precondition(if_match))


def delete_document(doc_id: str, *, namespace: str | None = None, if_match: str | None = None) -> Call[None]:
    path = f"/v1/memory/documents/{seg(doc_id)}"
    return Call("DELETE", path, as_nothing, params=compact(namespace=namespace), headers=precondition(if_match))


def document_revisions(doc_id: str) -> Call[models.RevisionsView]:
    """The entry's revisions (each content it had, and when)."""
    return Call("GET", f"/v1/memory/documents/{seg(doc_id)}/revisions", as_model(models.RevisionsView))


def explain_memory(
    query: str, memory_id: str, *, agent_id: str | None = None, task_id: str | None = None
) -> Call[models.ExplainView]:
    """Why ``memory_id`` is (or is not) recalled for ``query``: by a search, or by the agent's (and task's) runs."""
    fields = compact(query=query, memory_id=memory_id, agent_id=agent_id, task_id=task_id)
    body = models.ExplainBody.model_validate(fields)
    path, parse = "/v1/memory/explain", as_model(models.ExplainView)
    return Call("POST", path, parse, body=body_of(body), repeatable=True)
