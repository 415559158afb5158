"""Memory over HTTP (SPEC §10): search, write and soft-delete entries — the caller's own, or global."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.api.context import caller_of, deps_of, new_router
from mneme.api.preconditions import (
    CONDITIONAL_DELETE,
    IfMatch,
    IfNoneMatch,
    precondition_of,
    tagged,
    tagged_answer,
    tagged_read,
)
from mneme.api.presenters import document_view, revisions_view, search_view
from mneme.api.responses import json_response, no_content, refusals
from mneme.api.run_views import answers
from mneme.api.views import (
    BatchResultsView,
    DocumentPageView,
    DocumentsView,
    DocumentView,
    ExplainView,
    NamespacesView,
    RevisionsView,
    SearchView,
)
from mneme.engine.memory_io import explain_requests
from mneme.engine.memory_io import history as memory_history
from mneme.engine.memory_io import inbox as memory_inbox
from mneme.engine.memory_io import requests as memory_requests
from mneme.models.requests import (
    NAMESPACE_SHAPE,
    DocumentBatchBody,
    DocumentBody,
    DocumentPatch,
    ExplainBody,
    SearchBody,
)

router = new_router()

#: every memory route reads or changes the store and writes the audit record of what it did (fail closed)
_UNAVAILABLE = (
    "`memory_unavailable`: long-term memory is not configured or cannot be reached; `audit_unavailable`: the audit "
    "record could not be written, so nothing was read or changed. Retry after Retry-After seconds"
)
_NO_ENTRY = "no memory entry of this id the caller may read (an unknown id and another user's answer alike)"
_GLOBAL = "a global entry, which only an admin changes (or reads the history or deleted entries of)"
_MEMORY = refusals({503: _UNAVAILABLE})
#: a write of a user whose erasure runs, or ran while it did (mneme.engine.memory_io.erasure_guard)
_ERASING = "`erasure_in_progress`: the caller's data is being erased (or was, while this write ran): nothing is kept"


@router.post("/v1/memory/search", responses={**answers(200, SearchView), **_MEMORY})
def search(body: SearchBody) -> dict[str, Any]:
    found = explain_requests.search_memory(
        deps_of(router),
        caller_of(router),
        body.query,
        body.namespaces,
        body.top_k,
        options=body.model_dump(
            include={"retrieval", "fusion", "min_score", "relative_cutoff", "lines"}, exclude_none=True
        ),
        explain=body.explain,
        as_of=body.as_of,
    )
    return search_view(found.hits, found.access, found.explanation)


@router.post(
    "/v1/memory/explain",
    responses={
        **answers(200, ExplainView),
        **refusals({404: f"{_NO_ENTRY}, or no agent or task of this id the caller may use"}),
        **_MEMORY,
    },
)
def explain(body: ExplainBody) -> dict[str, Any]:
    return explain_requests.explain_memory(
        deps_of(router), caller_of(router), body.query, body.memory_id, agent_id=body.agent_id, task_id=body.task_id
    )


@router.post(
    "/v1/memory/documents",
    responses={
        **answers(201, DocumentsView, "the entry was written"),
        **refusals(
            {
                403: "the namespace is not the caller's to write (another user's, or global and not an admin)",
                409: _ERASING,
                413: "the content is over 200,000 characters or chunks, or the body over 2,500,000 bytes",
            }
        ),
        **_MEMORY,
    },
)
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


@router.post(
    "/v1/memory/documents:batch",
    responses={
        **answers(207, BatchResultsView, "each item's result, by index (an item's 403, 409, 413 there)"),
        **refusals({409: f"{_ERASING} (the whole batch)"}),
        **_MEMORY,
    },
)
def write_documents(body: DocumentBatchBody) -> Any:
    results = memory_requests.write_memory_batch(deps_of(router), caller_of(router), body.items)
    return json_response(207, {"results": results})


@router.delete(
    "/v1/memory/documents/<doc_id>",
    responses={**CONDITIONAL_DELETE, **refusals({403: _GLOBAL, 404: _NO_ENTRY}), **_MEMORY},
)
def delete_document(
    doc_id: str,
    namespace: Annotated[str | None, Query(max_length=512)] = None,
    if_match: IfMatch = None,
    if_none_match: IfNoneMatch = None,
) -> Any:
    """With ``If-Match`` (the entry's ETag as read), an entry changed since is a 412 and is not deleted."""
    condition = precondition_of(if_match, if_none_match)
    memory_requests.delete_memory(deps_of(router), caller_of(router), doc_id, namespace, precondition=condition)
    return no_content()


@router.get(
    "/v1/memory/documents",
    responses={
        **answers(200, DocumentPageView),
        **refusals({403: _GLOBAL, 404: "the namespace is not one the caller may read"}),
        **_MEMORY,
    },
)
def list_documents(
    namespace: Annotated[str, Query(min_length=1, max_length=512, json_schema_extra={"pattern": NAMESPACE_SHAPE})],
    status: Annotated[Literal["active", "superseded", "deleted"] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> dict[str, Any]:
    page = memory_inbox.list_documents(
        deps_of(router), caller_of(router), namespace, status=status, limit=limit, cursor=cursor
    )
    return {"documents": [document_view(d) for d in page.documents], "namespace": page.namespace, "cursor": page.cursor}


@router.get(
    "/v1/memory/documents/<doc_id>",
    responses={**tagged_answer(DocumentView, read=True), **refusals({404: _NO_ENTRY}), **_MEMORY},
)
def get_document(
    doc_id: str,
    derived: Annotated[bool, Query()] = False,
    if_match: IfMatch = None,
    if_none_match: IfNoneMatch = None,
) -> Any:
    document, cascade = memory_inbox.get_document(deps_of(router), caller_of(router), doc_id, derived=derived)
    return tagged_read(document_view(document, cascade), document, if_match, if_none_match)


@router.get(
    "/v1/memory/documents/<doc_id>/revisions",
    responses={**answers(200, RevisionsView), **refusals({403: _GLOBAL, 404: _NO_ENTRY}), **_MEMORY},
)
def list_revisions(doc_id: str) -> dict[str, Any]:
    return revisions_view(memory_history.revisions_of(deps_of(router), caller_of(router), doc_id))


@router.patch(
    "/v1/memory/documents/<doc_id>",
    responses={
        **tagged_answer(DocumentView),
        **refusals(
            {
                403: _GLOBAL,
                404: _NO_ENTRY,
                413: "`embedding_input_too_long`: the new content is longer than the embedding model takes",
            }
        ),
        **_MEMORY,
    },
)
def patch_document(doc_id: str, body: DocumentPatch, if_match: IfMatch = None) -> Any:
    """With ``If-Match`` (the entry's ETag as read), an entry changed since is a 412 and stays as it is."""
    document = memory_inbox.patch_document(
        deps_of(router),
        caller_of(router),
        doc_id,
        content=body.content,
        tags=body.tags,
        status=body.status,
        precondition=precondition_of(if_match, None),
    )
    return tagged(document_view(document), document)


@router.get("/v1/memory/namespaces", responses={**answers(200, NamespacesView), **_MEMORY})
def list_namespaces() -> dict[str, Any]:
    counts = memory_inbox.list_namespaces(deps_of(router), caller_of(router))
    return {"namespaces": [{"namespace": name, **count} for name, count in counts.items()]}
