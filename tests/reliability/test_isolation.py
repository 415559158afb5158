"""Isolation (issue 7 §1): no read path shows one user another user's memory, chats, runs or audit.

Property-based over every read path, with adversarial namespaces and ids (see ``strategies.py``). ``bob``
holds the secrets (``world.py``); ``alice`` attacks through the HTTP API (``Runtime.handle`` with API
Gateway v2 events) and through what her models ask for. Each generated case checks: no leak in the
response or in any model request, no 5xx, and every namespace the security filter (or a whitelist)
dropped has its ``denied`` audit record. Counts go to the session figures (``isolation cases``).
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme.adapters.dynamo.cursors import encode_cursor
from mneme.memory.policy import resolve_patterns
from mneme.models.agent import Agent
from mneme.models.run import RunStatus
from mneme.namespace_grammar import NamespaceError, resolve, validate_pattern
from tests.reliability.figures import Figures
from tests.reliability.strategies import NAMESPACE, NAMESPACE_LISTS, TEMPLATE_VALUES, id_variants
from tests.reliability.world import ALICE, TOPIC, TwoUsers, own_or_global, seeded


def fast(examples: int) -> settings:
    """Many examples, no deadline (the machine is shared), no example database."""
    return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _count(figures: Figures, path: str) -> None:
    figures.add("isolation leaks", 0)  # printed even when it stays 0
    figures.add("isolation cases")
    figures.add(f"isolation cases: {path}")


def _no_leak(users: TwoUsers, text: str, sent: str, since_request: int, figures: Figures) -> None:
    leaks = users.leaks(text, sent) + users.model_leaks(since_request)
    if leaks:
        figures.add("isolation leaks", len(leaks))
    assert not leaks, f"leaked {leaks}: {text[:400]}"


def _values(chat_id: str | None = None, project_id: str | None = None) -> dict[str, str | None]:
    return {"user_id": ALICE, "chat_id": chat_id, "project_id": project_id}


def _resolved(patterns: list[str], values: dict[str, str | None]) -> list[str] | None:
    """Strict resolution of tool input; None when one pattern is unusable (the whole call is a tool error)."""
    out: list[str] = []
    for pattern in patterns:
        try:
            out.append(resolve(pattern, values))
        except NamespaceError:
            return None
    return out


# ------------------------------------------------------------------------------------- HTTP search
def test_http_memory_search_never_leaks_and_audits_every_denial(figures: Figures) -> None:
    users = seeded()

    @fast(3000)
    @given(namespaces=st.one_of(st.none(), NAMESPACE_LISTS), top_k=st.integers(1, 20))
    def case(namespaces: list[str] | None, top_k: int) -> None:
        # Given alice asks for namespaces of her choice
        since, requests = len(users.audit.records), len(users.model.requests)
        body: dict[str, Any] = {"query": TOPIC, "top_k": top_k}
        if namespaces is not None:
            body["namespaces"] = namespaces
        # When she searches
        reply = users.api.post("/v1/memory/search", body, user=ALICE)
        # Then nothing of bob's comes back, and every namespace not searched was audited as denied
        _count(figures, "POST /v1/memory/search")
        assert reply.status in (200, 400), reply.text
        _no_leak(users, reply.text, json.dumps(body), requests, figures)
        if reply.status == 200:
            allowed = reply.body["namespaces"]
            assert all(own_or_global(ns) for ns in allowed), allowed
            assert all(own_or_global(hit["namespace"]) for hit in reply.body["hits"])
            requested = _resolved(namespaces or [], {"user_id": ALICE}) or []
            dropped = set(requested) - set(allowed)
            assert dropped <= users.denied(since, via="http")
            figures.add("isolation denials audited", len(dropped))

    case()


# ------------------------------------------------------------------------- memory-search tool (model)
def _tool_agent(users: TwoUsers) -> None:
    users.world.deps.config.put_agent(
        Agent(
            agent_id="searcher",
            owner=ALICE,
            label="Searcher",
            tools=["memory-search"],
            memory_policy={
                "auto_read_enabled": False,
                # a generous grant, including another user's scope by mistake: the filter still applies
                "tool_read_namespaces": [
                    "vector.agent.${user_id}.*",
                    "vector.user.${user_id}.*",
                    "vector.global.*",
                    "vector.agent.bob.*",
                    "vector.agent.${chat_id}.*",
                ],
            },
        )
    )


def test_the_memory_search_tool_never_leaks_whatever_namespaces_the_model_names(figures: Figures) -> None:
    users = seeded()
    _tool_agent(users)

    @fast(1500)
    @given(namespaces=NAMESPACE_LISTS, chat_id=TEMPLATE_VALUES, top_k=st.integers(1, 20))
    def case(namespaces: list[str], chat_id: str | None, top_k: int) -> None:
        # Given the model asks memory-search for namespaces of its choice (the offline model's /tool)
        since, requests = len(users.audit.records), len(users.model.requests)
        arguments = json.dumps({"query": TOPIC, "namespaces": namespaces, "top_k": top_k}, ensure_ascii=True)
        body: dict[str, Any] = {"agent_id": "searcher", "input": f"/tool memory-search {arguments}"}
        if chat_id is not None:
            body["chat_id"] = chat_id
        # When alice runs the agent
        reply = users.api.post("/v1/runs", body, user=ALICE)
        # Then the run finishes without anything of bob's, and each dropped namespace was audited
        _count(figures, "memory-search tool")
        assert reply.status in (200, 400), reply.text
        _no_leak(users, reply.text, json.dumps(body), requests, figures)
        if reply.status != 200:
            return
        run_id = reply.body["run_id"]
        events = users.world.deps.runs.list_events(run_id)
        searched = [ns for e in events if e.type == "memory_hits" for ns in e.data["namespaces"]]
        assert all(own_or_global(ns) for ns in searched), searched
        requested = _resolved(namespaces, _values(chat_id=reply.body["chat_id"]))
        if requested is not None:  # else the call was a tool error and nothing was searched
            dropped = set(requested) - set(searched)
            assert dropped <= users.denied(since, via="tool", run_id=run_id)
            figures.add("isolation denials audited", len(dropped))

    case()


# ------------------------------------------------------------------------------ auto-inject + preview
def _savable(patterns: list[str]) -> list[str]:
    """The patterns a policy can be saved with (templates included); bob's namespace when none is."""
    kept = []
    for pattern in patterns:
        try:
            validate_pattern(pattern)
        except NamespaceError:
            continue
        kept.append(pattern)
    return kept or ["vector.agent.bob.memory"]


def _policy_agent(users: TwoUsers, read_namespaces: list[str]) -> list[str]:
    read_namespaces = _savable(read_namespaces)
    users.world.deps.config.put_agent(
        Agent(
            agent_id="reader",
            owner=ALICE,
            label="Reader",
            memory_policy={"read_namespaces": read_namespaces, "top_k": 20, "min_score": 0.0},
        )
    )
    return read_namespaces


def test_auto_inject_never_leaks_whatever_the_policy_and_template_values(figures: Figures) -> None:
    users = seeded()

    @fast(1000)
    @given(read=NAMESPACE_LISTS, chat_id=TEMPLATE_VALUES, project_id=TEMPLATE_VALUES)
    def case(read: list[str], chat_id: str | None, project_id: str | None) -> None:
        # Given an agent whose stored read_namespaces are adversarial, and ids alice chose
        read = _policy_agent(users, read)
        since, requests = len(users.audit.records), len(users.model.requests)
        body: dict[str, Any] = {"agent_id": "reader", "input": f"${{user_id}} {TOPIC}"}
        body |= {k: v for k, v in (("chat_id", chat_id), ("project_id", project_id)) if v is not None}
        # When alice runs it
        reply = users.api.post("/v1/runs", body, user=ALICE)
        # Then the model saw none of bob's memories and each dropped namespace was audited
        _count(figures, "auto-inject")
        assert reply.status in (200, 400), reply.text
        _no_leak(users, reply.text, json.dumps(body), requests, figures)
        if reply.status != 200:
            return
        run_id = reply.body["run_id"]
        events = users.world.deps.runs.list_events(run_id)
        searched = [ns for e in events if e.type == "memory_hits" for ns in e.data["namespaces"]]
        assert all(own_or_global(ns) for ns in searched), searched
        resolved, _ = resolve_patterns(read, _values(reply.body["chat_id"], project_id))
        denied = users.denied(since, via="auto_inject", run_id=run_id)
        assert set(resolved) - set(searched) <= denied
        figures.add("isolation denials audited", len(set(resolved) - set(searched)))

    case()


def test_the_context_preview_never_leaks(figures: Figures) -> None:
    users = seeded()

    @fast(1000)
    @given(read=NAMESPACE_LISTS, chat_id=st.one_of(TEMPLATE_VALUES, id_variants(["bobchat1x"])))
    def case(read: list[str], chat_id: str | None) -> None:
        # Given an adversarial policy, and maybe bob's chat id (or a variant) in the body
        read = _policy_agent(users, read)
        since, requests = len(users.audit.records), len(users.model.requests)
        body: dict[str, Any] = {"agent_id": "reader", "input": TOPIC}
        if chat_id is not None:
            body["chat_id"] = chat_id
        # When alice previews the context
        reply = users.api.post("/v1/context/preview", body, user=ALICE)
        # Then neither bob's memories nor his chat history are in it, and the denials are audited
        _count(figures, "POST /v1/context/preview")
        assert reply.status in (200, 400, 404), reply.text
        _no_leak(users, reply.text, json.dumps(body), requests, figures)
        if reply.status == 200:
            assert all(own_or_global(hit["namespace"]) for hit in reply.body["memory_hits"])
            resolved, _ = resolve_patterns(read, _values(chat_id=chat_id))
            shown = {hit["namespace"] for hit in reply.body["memory_hits"]}
            dropped = {ns for ns in resolved if not own_or_global(ns)}
            assert dropped <= users.denied(since, via="preview")
            assert not (shown & dropped)
            figures.add("isolation denials audited", len(dropped))

    case()


# ------------------------------------------------------------------- runs, chats, audit, approvals
ROUTES = (
    "GET /v1/runs/{}",
    "GET /v1/runs/{}/events",
    "GET /v1/runs/{}/context",
    "GET /v1/chats/{}",
    "DELETE /v1/chats/{}",
    "POST /v1/runs/{}/approvals",
)


def test_run_chat_and_approval_routes_answer_404_for_other_users_ids(figures: Figures) -> None:
    users = seeded()
    ids = [*users.bob_run_ids, *users.bob_chat_ids]
    chat_before = users.world.deps.chats.get_chat("bob", "bobchat1x")

    @fast(2000)
    @given(route=st.sampled_from(ROUTES), target=id_variants(ids), encode=st.booleans())
    def case(route: str, target: str, encode: bool) -> None:
        # Given one of bob's ids (or a variant of it) in a run / chat / approval route
        requests = len(users.model.requests)
        method, template = route.split(" ")
        path = template.format(quote(target, safe="") if encode else target)
        body = {"call_id": users.bob_waiting_call, "decision": "always"} if method == "POST" else None
        # When alice calls the route
        reply = users.api.call(method, path, body, user=ALICE)
        # Then it is a 4xx without anything of bob's
        _count(figures, route)
        assert 400 <= reply.status < 500, (path, reply.status, reply.text)
        _no_leak(users, reply.text, path + json.dumps(body), requests, figures)

    case()
    # And bob's waiting run is still waiting, undecided; his chat is intact
    run = users.world.deps.runs.get_run(users.bob_waiting_run)
    assert run is not None and run.status is RunStatus.WAITING_APPROVAL
    checkpoint = users.world.deps.runs.load_checkpoint(users.bob_waiting_run) or {}
    assert [p["decision"] for p in checkpoint["pending"]] == [None]
    assert users.world.deps.chats.get_chat("bob", "bobchat1x") == chat_before


def test_the_lists_and_the_audit_route_only_show_the_callers_own_records(figures: Figures) -> None:
    users = seeded()
    users.api.post("/v1/memory/search", {"query": TOPIC, "namespaces": ["vector.agent.bob.memory"]}, user=ALICE)
    forged = encode_cursor({"PK": "USER#bob", "SK": "2026-11-30T09:05:00.000000Z#bob0001x#0000"})
    queries = st.fixed_dictionaries(
        {},
        optional={
            "run_id": id_variants(users.bob_run_ids),
            "namespace": NAMESPACE.filter(lambda s: 0 < len(s) <= 512),
            "action": st.sampled_from(["read", "denied", "write", "delegation", "approval"]),
            "limit": st.integers(1, 200).map(str),
            "cursor": st.one_of(st.just(forged), st.text(min_size=1, max_size=60)),
        },
    )

    @fast(1000)
    @given(route=st.sampled_from(["/v1/audit", "/v1/chats", "/v1/agents"]), query=queries)
    def case(route: str, query: dict[str, str]) -> None:
        requests = len(users.model.requests)
        reply = users.api.get(route, query=query if route == "/v1/audit" else None, user=ALICE)
        _count(figures, f"GET {route}")
        assert reply.status in (200, 400, 404), reply.text
        _no_leak(users, reply.text, json.dumps(query), requests, figures)
        if route == "/v1/audit" and reply.status == 200:
            assert {r["user_id"] for r in reply.body["records"]} <= {ALICE}

    case()


# ------------------------------------------------------------------------------- delegation at depth
def _chain(users: TwoUsers) -> None:
    """Agents d0 → d1 → … → d5 of alice, each allowed to search and to delegate to the next (and bob's)."""
    for level in range(6):
        users.world.deps.config.put_agent(
            Agent(
                agent_id=f"d{level}",
                owner=ALICE,
                label=f"Level{level}",
                tools=["memory-search", "delegate-to-agent"],
                delegates=[f"d{level + 1}", "bobagent", "Bobby"],
                memory_policy={
                    "read_namespaces": ["vector.agent.${user_id}.memory", "vector.agent.bob.memory"],
                    "tool_read_namespaces": ["vector.agent.${user_id}.*", "vector.agent.bob.*", "vector.global.*"],
                    "min_score": 0.0,
                },
            )
        )


def test_delegation_at_every_depth_never_leaks_and_keeps_the_user(figures: Figures) -> None:
    users = seeded()
    _chain(users)
    targets = st.sampled_from(["d{next}", "bobagent", "Bobby", "BOBAGENT", "bobby", "d0", "${user_id}", "d{next}*"])

    @fast(600)
    @given(depth=st.integers(0, 5), namespaces=NAMESPACE_LISTS, target=targets, delegate_last=st.booleans())
    def case(depth: int, namespaces: list[str], target: str, delegate_last: bool) -> None:
        # Given a chain of delegations `depth` deep whose last agent either searches adversarial namespaces
        # or tries to delegate to an agent of its choice (bob's, itself, a case variant, a pattern)
        since, requests = len(users.audit.records), len(users.model.requests)
        leaf_args = json.dumps({"query": TOPIC, "namespaces": namespaces}, ensure_ascii=True)
        search = f"/tool memory-search {leaf_args}"
        text = f"/delegate {target.replace('{next}', str(depth + 1))} :: {TOPIC}" if delegate_last else search
        for level in range(depth, 0, -1):
            text = f"/delegate d{level} :: {text}"
        body = {"agent_id": "d0", "input": text}
        # When alice runs it and the state machine drives every child
        reply = users.api.post("/v1/runs", body, user=ALICE)
        assert reply.status in (200, 202), reply.text
        run_id = reply.body["run_id"]
        final = users.drive(run_id) if reply.status == 202 else None
        # Then every run of the tree is alice's, finished, and nothing of bob's reached any model
        _count(figures, "delegation tree")
        run = users.world.deps.runs.get_run(run_id)
        assert run is not None and run.status.finished, final
        tree = [r for r in users.audit.records[since:] if r.root_run_id == run_id]
        assert tree and {r.user_id for r in tree} == {ALICE}
        _no_leak(users, json.dumps(run.to_api()), json.dumps(body), requests, figures)
        assert "vector.agent.bob.memory" in users.denied(since, via="auto_inject")
        assert not [r for r in tree if r.action == "delegation" and r.detail.get("agent_id") == "bobagent"]

    case()


# ------------------------------------------------------------------------------------- known gaps


def test_a_rejected_http_search_still_audits_the_other_users_namespace_it_named() -> None:
    # Given bob's namespace next to an invalid one in one search
    users = seeded()
    since = len(users.audit.records)
    body = {"query": TOPIC, "namespaces": ["vector.agent.bob.memory", "not-a-namespace"]}
    # When alice searches
    reply = users.api.post("/v1/memory/search", body, user=ALICE)
    # Then the request is refused, and the attempt on bob's namespace is on record
    assert reply.status == 400
    assert "vector.agent.bob.memory" in users.denied(since, via="http")


def test_a_memory_search_tool_error_still_audits_the_other_users_namespace_it_named() -> None:
    users = seeded()
    _tool_agent(users)
    since = len(users.audit.records)
    arguments = json.dumps({"query": TOPIC, "namespaces": ["vector.agent.bob.memory", "vector.agent.${nope}.x"]})
    reply = users.api.post("/v1/runs", {"agent_id": "searcher", "input": f"/tool memory-search {arguments}"})
    assert reply.status == 200 and "tool results" in reply.body["output"]
    assert "vector.agent.bob.memory" in users.denied(since, via="tool")


def test_two_users_served_at_the_same_time_each_get_their_own_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two requests that are both inside the resolver when the route reads the caller (a barrier
    # makes that interleaving certain; the threaded local server produces it by chance under load)
    from mneme.api import context, run_routes

    users = seeded()
    for user in ("carol", "dave"):
        users.world.deps.config.put_agent(Agent(agent_id="echo", owner=user, label="Echo"))
    barrier = threading.Barrier(2, timeout=10)
    original = context.caller_of

    def caller_of(router: Any) -> Any:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        return original(router)

    monkeypatch.setattr(run_routes, "caller_of", caller_of)
    replies: dict[str, Any] = {}

    def post(user: str) -> None:
        replies[user] = users.api.post("/v1/runs", {"agent_id": "echo", "input": f"hello from {user}"}, user=user)

    # When carol and dave start a run at the same time
    threads = [threading.Thread(target=post, args=(user,)) for user in ("carol", "dave")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then each got a run of their own, with their own input
    for user in ("carol", "dave"):
        reply = replies[user]
        assert reply.status == 200, reply.text
        run = users.world.deps.runs.get_run(reply.body["run_id"])
        assert run is not None and run.user_id == user and run.input == f"hello from {user}"
