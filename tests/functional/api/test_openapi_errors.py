"""Each route of the OpenAPI document lists the error statuses it really answers (SPEC §10), with the one error
body: before, every route listed only 400, 401 (412 on conditional ones) and a ``default`` naming "403, 404, 409,
413, 415, 429 or 503", so a generated client could not know which route answers which.

The declarations are checked against behaviour: each request below is sent, answers its error, and that status
must be declared for its route — a route that starts answering a new error fails here until it declares it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from openapi_schema_validator import validate as validate_instance

from mneme.adapters.models.offline import OfflineModel
from mneme.api.app import MAX_BODY_BYTES
from tests.functional.api.conftest import Api, Reply, add_agent
from tests.support.deps import World, make_world

ALICE_NS = "vector.user.alice.memory"
_FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    reply = Api(make_world(OfflineModel())).get("/v1/openapi.json", user=None)
    assert reply.status == 200
    body: dict[str, Any] = reply.body
    return body


def _operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    """The operation that serves ``method path`` (a literal path before one with parameters, as the router)."""
    matching = [
        template
        for template in document["paths"]
        if re.fullmatch(re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)), path)
    ]
    assert matching, f"no route in the document serves {path}"
    template = min(matching, key=lambda t: t.count("{"))
    operation: dict[str, Any] = document["paths"][template][method.lower()]
    return operation


def _doc_id(api: Api, namespace: str = ALICE_NS) -> str:
    written = api.post("/v1/memory/documents", {"namespace": namespace, "content": "green tea"})
    assert written.status == 201
    return str(written.body["ids"][0])


def _finished_run(api: Api) -> str:
    run = api.post("/v1/runs", {"agent_id": "master", "input": "hi"})
    assert run.status == 200
    return str(run.body["run_id"])


def _memory_down(api: Api) -> Api:
    api.world.memory.unavailable = True
    return api


Case = Callable[[Api], Reply]
CASES: list[tuple[str, int, Case]] = [
    ("bad query value", 400, lambda api: api.get("/v1/runs", query={"limit": "0"})),
    ("no token", 401, lambda api: api.get("/v1/agents", user=None)),
    ("global agent by a user", 403, lambda api: api.put("/v1/agents/shared", {"label": "Shared", "global": True})),
    ("another user's erasure", 403, lambda api: api.delete("/v1/admin/users/bob")),
    ("another user's namespace", 403, lambda api: api.post("/v1/memory/documents", {**_bob_ns(), "content": "x"})),
    ("unknown run", 404, lambda api: api.get("/v1/runs/run-nope")),
    ("unknown run's events", 404, lambda api: api.get("/v1/runs/run-nope/events")),
    ("unknown run cancelled", 404, lambda api: api.post("/v1/runs/run-nope/cancel", None)),
    ("unknown agent", 404, lambda api: api.get("/v1/agents/nobody")),
    ("unknown agent's tasks", 404, lambda api: api.get("/v1/agents/nobody/tasks")),
    ("unknown agent's revisions", 404, lambda api: api.get("/v1/agents/nobody/revisions")),
    ("task of an unknown agent", 404, lambda api: api.put("/v1/agents/nobody/tasks/t", {"name": "T"})),
    ("run of an unknown agent", 404, lambda api: api.post("/v1/runs", {"agent_id": "nobody", "input": "hi"})),
    ("preview of an unknown agent", 404, lambda api: api.post("/v1/context/preview", {"agent_id": "x", "input": "y"})),
    ("unknown skill", 404, lambda api: api.delete("/v1/skills/nothing")),
    ("unknown chat", 404, lambda api: api.delete("/v1/chats/chat-nope")),
    ("unknown approval", 404, lambda api: api.delete("/v1/me/approvals/appr-nope")),
    ("unknown export", 404, lambda api: api.get("/v1/me/exports/exp-nope")),
    ("no erasure yet", 404, lambda api: api.get("/v1/me/erasure")),
    ("audit of an unknown run", 404, lambda api: api.get("/v1/audit", query={"run_id": "run-nope"})),
    ("unknown entry", 404, lambda api: api.call("PATCH", "/v1/memory/documents/doc-nope", {"tags": ["x"]})),
    ("unknown entry's revisions", 404, lambda api: api.get("/v1/memory/documents/doc-nope/revisions")),
    ("another user's namespace listed", 404, lambda api: api.get("/v1/memory/documents", query=_bob_ns())),
    ("label taken", 409, lambda api: api.put("/v1/agents/other", {"label": "Master"})),
    ("finished run cancelled", 409, lambda api: api.post(f"/v1/runs/{_finished_run(api)}/cancel", None)),
    (
        "approval of a run waiting for none",
        409,
        lambda api: api.post(f"/v1/runs/{_finished_run(api)}/approvals", {"call_id": "c1", "decision": "once"}),
    ),
    (
        "idempotency key reused",
        409,
        lambda api: [
            api.post("/v1/runs", {"agent_id": "master", "input": text}, headers={"Idempotency-Key": "k1"})
            for text in ("one", "two")
        ][-1],
    ),
    ("stale If-Match", 412, lambda api: api.put("/v1/agents/master", {"label": "M"}, headers={"If-Match": '"x"'})),
    (
        "entry deleted under a stale If-Match",
        412,
        lambda api: api.delete(f"/v1/memory/documents/{_doc_id(api)}", headers={"If-Match": '"x"'}),
    ),
    ("run input too long", 413, lambda api: api.post("/v1/runs", {"agent_id": "master", "input": "x" * 200_001})),
    ("settings body too large", 413, lambda api: api.put("/v1/me/settings", {"name": "x" * MAX_BODY_BYTES})),
    ("a form, not JSON", 415, lambda api: api.post("/v1/memory/search", "query=tea", headers=_FORM)),
    ("a form to an approval", 415, lambda api: api.post("/v1/runs/r/approvals", "call_id=c", headers=_FORM)),
    ("memory down: search", 503, lambda api: _memory_down(api).post("/v1/memory/search", {"query": "tea"})),
    ("memory down: namespaces", 503, lambda api: _memory_down(api).get("/v1/memory/namespaces")),
    ("memory down: entry", 503, lambda api: _memory_down(api).get("/v1/memory/documents/doc-1")),
]


def _bob_ns() -> dict[str, str]:
    return {"namespace": "vector.user.bob.memory"}


@pytest.fixture
def api() -> Api:
    world: World = make_world(OfflineModel())
    add_agent(world, "master")
    return Api(world)


@pytest.mark.parametrize(("status", "case"), [(status, case) for _, status, case in CASES], ids=[c[0] for c in CASES])
def test_an_error_the_api_answers_is_declared_for_its_route(
    api: Api, document: dict[str, Any], status: int, case: Case
) -> None:
    sent: list[tuple[str, str]] = []
    original = api.call

    def recorded(method: str, path: str, body: Any = None, **options: Any) -> Reply:
        sent.append((method, path))
        return original(method, path, body, **options)

    api.call = recorded  # type: ignore[method-assign]
    reply = case(api)
    assert reply.status == status, reply.text
    method, path = sent[-1]
    responses = _operation(document, method, path)["responses"]
    assert str(status) in responses, f"{method} {path} answered {status}, its document lists {sorted(responses)}"
    answer = responses[str(status)]["content"]["application/json"]
    validate_instance(reply.body, {**answer["schema"], "components": document["components"]})
    validate_instance(answer["example"], {**answer["schema"], "components": document["components"]})


def test_a_429_of_run_creation_is_declared_with_retry_after(document: dict[str, Any]) -> None:
    world = make_world(OfflineModel(), MNEME_RUNS_PER_USER_PER_MINUTE="1")
    add_agent(world, "master")
    api = Api(world)
    assert api.post("/v1/runs", {"agent_id": "master", "input": "hi"}).status == 200
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hi"})
    assert (reply.status, "retry-after" in reply.headers) == (429, True)
    declared = _operation(document, "POST", "/v1/runs")["responses"]["429"]
    assert "Retry-After" in declared["headers"]
    assert declared["content"]["application/json"]["example"]["error"] == reply.body["error"] == "rate_limited"


def _declaring(document: dict[str, Any], status: int) -> set[str]:
    return {
        f"{method.upper()} {path}"
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if str(status) in operation["responses"]
    }


def test_a_status_is_declared_only_where_the_route_can_answer_it(document: dict[str, Any]) -> None:
    # the rate limit is run creation's; a list without a path id looks nothing up; a read has no conflict
    assert _declaring(document, 429) == {"POST /v1/runs"}
    assert not {"GET /v1/agents", "GET /v1/runs", "GET /v1/chats", "GET /v1/retention"} & _declaring(document, 404)
    assert not {"GET /v1/runs/{run_id}", "GET /v1/agents/{agent_id}"} & _declaring(document, 409)
    # only a route with a body answers 415; memory routes (store and audit trail) answer 503, a list of agents not
    assert "GET /v1/runs/{run_id}" not in _declaring(document, 415)
    assert "POST /v1/memory/search" in _declaring(document, 503)
    assert "GET /v1/agents" not in _declaring(document, 503)


def test_the_default_answer_names_what_any_route_may_still_answer(document: dict[str, Any]) -> None:
    default = document["paths"]["/v1/agents"]["get"]["responses"]["default"]
    assert "500" in default["description"] and "503" in default["description"]
    assert default["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
