"""Memory over HTTP (SPEC §10): search, write and soft-delete entries — the caller's own, or global."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.presenters import search_view
from mneme.api.responses import json_response, no_content
from mneme.api.views import DocumentsView, SearchView, answers
from mneme.engine import memory_requests
from mneme.models.requests import DocumentBody, SearchBody

router = new_router()


@router.post("/v1/memory/search", responses=answers(200, SearchView))
def search(body: SearchBody) -> dict[str, Any]:
    found = memory_requests.search_memory(
        deps_of(router),
        caller_of(router),
        body.query,
        body.namespaces,
        body.top_k,
        options=body.model_dump(include={"retrieval", "fusion", "min_score", "relative_cutoff"}, exclude_none=True),
    )
    return search_view(found.hits, found.access)


@router.post("/v1/memory/documents", responses=answers(201, DocumentsView, "the entry was written"))
def write_document(body: DocumentBody) -> Any:
    ids, namespace = memory_requests.write_memory(
        deps_of(router),
        caller_of(router),
        body.namespace,
        body.content,
        tags=body.tags,
        ttl_seconds=body.ttl_seconds,
        observed_at=body.observed_at,
        memory_class=body.memory_class,
        metadata=body.metadata,
    )
    return json_response(201, {"ids": ids, "namespace": namespace})


@router.delete("/v1/memory/documents/<doc_id>")
def delete_document(doc_id: str, namespace: Annotated[str | None, Query(max_length=512)] = None) -> Any:
    memory_requests.delete_memory(deps_of(router), caller_of(router), doc_id, namespace)
    return no_content()
