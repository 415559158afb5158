"""The tools mneme's own MCP server offers (issue 20), each a parse + ONE engine call + a presenter, like every
HTTP route (``tests/unit/test_route_shape.py`` checks these too): the same use cases, security filter,
policies and audit as the HTTP API, with ``via="mcp"`` on every audit record.

The arguments are the HTTP API's request contracts (:mod:`mneme.models.requests`), so a tool's input schema
is the JSON schema of the body of the matching route.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from mneme.api.presenters import mcp_run_view, search_view
from mneme.engine.deps import Deps
from mneme.engine.memory_io import explain_requests
from mneme.engine.memory_io import requests as memory_requests
from mneme.engine.runs.admission import submit_run
from mneme.models.requests import DeleteDocumentBody, DocumentBody, McpRunBody, SearchBody
from mneme.models.user import Caller
from mneme.records import Record

VIA = "mcp"


class Operation(Record):
    name: str
    description: str
    body: type[BaseModel]
    run: Callable[[Deps, Caller, Any], dict[str, Any]]


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, body: type[BaseModel], description: str) -> Callable[[Any], Any]:
    def register(function: Callable[[Deps, Caller, Any], dict[str, Any]]) -> Callable[[Deps, Caller, Any], Any]:
        OPERATIONS[name] = Operation(name, description, body, function)
        return function

    return register


@operation(
    "memory-search",
    SearchBody,
    "Search your long-term memory in mneme. Write the query as a whole sentence that says what you need to know, "
    "not as keywords. Without namespaces it searches all of yours (vector.user.<your id>.*, "
    "vector.agent.<your id>.*) and vector.global.*; '${user_id}' in a namespace stands for your id.",
)
def memory_search(deps: Deps, caller: Caller, body: SearchBody) -> dict[str, Any]:
    found = explain_requests.search_memory(
        deps,
        caller,
        body.query,
        body.namespaces,
        body.top_k,
        options={"lines": body.lines},
        explain=body.explain,
        as_of=body.as_of,
        via=VIA,
    )
    return search_view(found.hits, found.access, found.explanation)


@operation(
    "memory-write",
    DocumentBody,
    "Store an entry in your long-term memory in mneme: a self-contained statement that still makes sense later. "
    "The namespace is one of yours, e.g. 'vector.user.${user_id}.memory' (vector.global.* needs an admin).",
)
def memory_write(deps: Deps, caller: Caller, body: DocumentBody) -> dict[str, Any]:
    ids, namespace = memory_requests.write_memory(
        deps, caller, body.namespace, body.content, tags=body.tags, ttl_seconds=body.ttl_seconds, via=VIA
    )
    return {"ids": ids, "namespace": namespace}


@operation(
    "memory-delete",
    DeleteDocumentBody,
    "Delete an entry of your long-term memory in mneme by its id (and the entries derived from it).",
)
def memory_delete(deps: Deps, caller: Caller, body: DeleteDocumentBody) -> dict[str, Any]:
    return {"deleted": memory_requests.delete_memory(deps, caller, body.id, body.namespace, via=VIA)}


@operation(
    "run-agent",
    McpRunBody,
    "Start a run of one of your mneme agents with an input. Answers the agent's answer when the run finishes "
    "within the API's time budget, else the run's id and status (it continues; it may wait for an approval).",
)
def run_agent(deps: Deps, caller: Caller, body: McpRunBody) -> dict[str, Any]:
    return mcp_run_view(submit_run(deps, caller, body.run_request(), body.idempotency_key))
