"""Explain recall over HTTP (issue 35.1): ``POST /v1/memory/search`` with ``explain`` and
``POST /v1/memory/explain`` — would this entry be recalled for this query by an agent's auto-inject and by its
tool search, and if not, the first reason.

The entry must be one the caller may read (own scopes, or global); any other id — another user's, unknown —
is the same audited 404 as the inbox's (:func:`mneme.engine.memory_io.inbox.refused`), so explaining never
tells whether someone else's entry exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from mneme.engine.audit import request_trail
from mneme.engine.deps import Deps
from mneme.engine.memory_io import explain as explaining
from mneme.engine.memory_io import history
from mneme.engine.memory_io import inbox as memory_inbox
from mneme.engine.memory_io import ops as memory_ops
from mneme.engine.memory_io import requests as memory_requests
from mneme.engine.memory_io.requests import SearchResult, memory_ports
from mneme.engine.memory_io.standing import read_standing, why_not_shown
from mneme.errors import MemoryUnavailable
from mneme.memory.access import (
    ReadAccess,
    auto_inject_access,
    standing_access,
    tool_search_access,
)
from mneme.memory.namespaces import is_readable
from mneme.memory.policy import MemoryScope, merge_policies, resolved_rules
from mneme.models.memory import MemoryDocument
from mneme.models.policy import ResolvedPolicy
from mneme.models.user import Caller
from mneme.records import replace


def search_memory(
    deps: Deps,
    caller: Caller,
    query: str,
    namespaces: Sequence[str] | None,
    top_k: int,
    *,
    options: dict[str, Any] | None = None,
    explain: bool = False,
    as_of: datetime | None = None,
    via: str = "http",
) -> SearchResult:
    """``POST /v1/memory/search``: the plain search, or with ``explain`` the same search explained; with
    ``as_of`` either of them over the memory as it was then (:mod:`mneme.engine.memory_io.history`)."""
    if as_of is not None:
        moment = _aware(as_of)
        return history.search_as_of(
            deps, caller, query, namespaces, top_k, moment, options=options, explain=explain, via=via
        )
    if not explain:
        return memory_requests.search_memory(deps, caller, query, namespaces, top_k, options=options, via=via)
    explained, access = explain_memory_search(deps, caller, query, namespaces, top_k, options=options, via=via)
    return SearchResult(explained.ranked.hits, access, explained)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def explain_memory_search(
    deps: Deps,
    caller: Caller,
    query: str,
    namespaces: Sequence[str] | None,
    top_k: int,
    *,
    options: dict[str, Any] | None = None,
    via: str = "http",
) -> tuple[explaining.Explanation, ReadAccess]:
    """``POST /v1/memory/search`` with ``explain: true``: the same search (and audit), explained."""
    search = memory_requests.http_search(deps, caller, namespaces, top_k, options=options, via=via)
    explained = explaining.explain_search(
        search.ports,
        search.trail.records,
        search.access,
        query,
        search.ranking,
        user_id=caller.user_id,
        via=via,
        granted_by=search.granted_by,
    )
    return explained, search.access


def explain_memory(
    deps: Deps, caller: Caller, query: str, memory_id: str, *, agent_id: str | None, task_id: str | None
) -> dict[str, Any]:
    """For one readable entry: recalled or not by auto-inject and by tool search (of ``agent_id``'s policy),
    or by ``POST /v1/memory/search`` without an agent; each with its first reason and score parts."""
    if deps.memory is None:
        raise MemoryUnavailable("long-term memory is not configured")
    found = deps.memory.entries([memory_id])
    document = found[0] if found else None
    if (
        document is None
        or not is_readable(document.namespace, caller.user_id)
        or memory_inbox.retracted(document, caller)
    ):
        memory_inbox.refused(deps, caller, memory_id)
    assert document is not None
    answer: dict[str, Any] = {"memory_id": memory_id, "namespace": document.namespace, "query": query}
    if agent_id is None:
        explained, _ = explain_memory_search(deps, caller, query, None, 5, via="explain")
        answer["search"] = _verdict(explained, document)
        return answer
    config = deps.config.load_run_config(caller.user_id, agent_id, task_id)
    policy = merge_policies(config.agent.memory_policy, config.task.memory_policy if config.task else None)
    scope = MemoryScope(
        user_id=caller.user_id,
        is_admin=caller.is_admin,
        agent_id=config.agent.agent_id,
        task_id=config.task.task_id if config.task else None,
    )
    ports = replace(memory_ports(deps, caller), rules=resolved_rules(policy, deps.settings.namespace_rules, scope))
    if policy.recency_decay is not None:
        ports = replace(ports, recency_decay=policy.recency_decay)
    trail = request_trail(caller.user_id, deps.clock)
    ranking = memory_ops.Ranking.of(policy)
    legs = (
        ("auto_inject", auto_inject_access(policy, scope), _auto_rule(policy)),
        ("tool_search", tool_search_access(policy, scope), "policy.tool_read_namespaces"),
    )
    for name, access, rule in legs:
        explained = explaining.explain_search(
            ports, trail.records, access, query, ranking, user_id="", via="explain", granted_by=rule, extra=[document]
        )
        answer[name] = _verdict(explained, document) | {"warnings": list(access.warnings)}
    answer["auto_inject"] = _standing_verdict(answer["auto_inject"], ports, trail.records, policy, scope, document)
    answer["agent_id"], answer["task_id"] = scope.agent_id, scope.task_id
    return answer


def _standing_verdict(
    verdict: dict[str, Any],
    ports: memory_ops.MemoryPorts,
    records: memory_ops.RecordFactory,
    policy: ResolvedPolicy,
    scope: MemoryScope,
    document: MemoryDocument,
) -> dict[str, Any]:
    """Auto-inject's ``verdict`` with the standing namespaces': an entry the agent's runs show whatever the
    question is ``recalled`` and ``standing`` (no search reason); one of a standing namespace they do not show
    gets ``standing: {shown: false, reason}`` (``memory_io.standing.why_not_shown``)."""
    standing = read_standing(ports, records, standing_access(policy, scope), via="explain")
    if any(hit.id == document.id for hit in standing.hits):
        kept = {key: value for key, value in verdict.items() if key != "reason"}
        return kept | {"recalled": True, "standing": True, "rule": "policy.standing_namespaces"}
    why = why_not_shown(document, standing, now=ports.clock.now(), hidden=ports.hidden_ids)
    return verdict | {"standing": {"shown": False, "reason": why}} if why else verdict


def _auto_rule(policy: ResolvedPolicy) -> str:
    return "policy.read_namespaces" if policy.auto_read_enabled else "policy.auto_read_enabled"


def _verdict(explained: explaining.Explanation, document: MemoryDocument) -> dict[str, Any]:
    hit = next((h for h in explained.hits if h["id"] == document.id), None)
    if hit is not None:
        return {"recalled": True, "scores": hit.get("scores"), "thresholds": explained.thresholds}
    return {"recalled": False, "reason": explained.reason_of(document.id), "thresholds": explained.thresholds}
