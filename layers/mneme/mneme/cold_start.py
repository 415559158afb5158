"""The cold-start rules, in one place: what the run function imports in Lambda's init phase, what it builds
there, what only the first request for a route loads, and what a first run must never load.

Lambda's init phase (the handler module's import) runs with a full vCPU, while an invocation gets CPU in
proportion to memory (1,024 MB = 0.58 vCPU; shared/reference/aws-limits.md): the same import work costs
less there than in the first event. So the handler (``functions/run/app.py``) calls :func:`preload`, which
imports :data:`PRELOADED` and builds the validators of :data:`PREBUILT` — building nothing else: no settings
read, no client, no I/O (environment reads and client set-up belong to the composition root at the first
event, never to an import, and a health check must not need a configuration).

What stays for the first event, and why (:data:`NOT_AT_INIT`); what a first ``POST /v1/runs`` — a cold
start's usual first request — must not load at all (:data:`NOT_ON_A_FIRST_RUN`); and which routers each path
loads (:data:`ROUTERS_BY_SEGMENT`, :data:`ROUTERS_BY_PATH`, read by ``mneme.api.app``).
``tests/functional/test_cold_start_rules.py`` checks the rules in a fresh interpreter and, when one is
broken, names the chain of imports that broke it. This module imports only the standard library's importlib.
"""

from __future__ import annotations

import importlib

#: imported by :func:`preload` in the init phase: the modules an HTTP run needs (the clients' library and
#: session, the stores, the runs router and the entry, the composition root, the models a run validates)
PRELOADED: tuple[str, ...] = (
    "aws_lambda_powertools.event_handler.middlewares.openapi_validation",  # else at the first request
    "aws_lambda_powertools.logging",  # observability's Logger
    "aws_lambda_powertools.metrics",  # and Metrics
    "mneme.adapters.aws.botocore_session",  # the clients' library and session
    "mneme.adapters.dynamo.audit_log",
    "mneme.adapters.dynamo.chat_store",
    "mneme.adapters.dynamo.config_store",
    "mneme.adapters.dynamo.run_store",
    "mneme.adapters.opensearch.store",
    "mneme.api.entry",
    "mneme.api.run_routes",
    "mneme.composition",
    "mneme.runtime",
    "mneme.engine.runs.state",
    "mneme.models.agent",
    "mneme.models.audit",
    "mneme.models.budget",
    "mneme.models.chat",
    "mneme.models.memory",
    "mneme.models.run",
    "mneme.models.run_request",
    "mneme.models.user",
    "mneme.settings",
)

#: every mneme model defers building its validator to its first use (``defer_build``): a run uses about a
#: sixth of them. :func:`preload` builds these ("module:Class"), what a run validates or serializes —
#: MemoryHit and AuditRecord: an auto-reading agent's hits and their audit — so that the first event builds
#: none and the others are never built
PREBUILT: tuple[str, ...] = (
    "mneme.settings:Settings",
    "mneme.models.user:Caller",
    "mneme.models.user:UserSettings",
    "mneme.models.run_request:RunRequest",
    "mneme.models.agent:Agent",
    "mneme.models.budget:BudgetLimits",
    "mneme.models.budget:TreeUsage",
    "mneme.models.run:Run",
    "mneme.models.run:RunEvent",
    "mneme.engine.runs.state:LoopState",
    "mneme.models.chat:Chat",
    "mneme.models.chat:TextMessage",
    "mneme.models.memory:MemoryHit",
    "mneme.models.audit:AuditRecord",
)

#: never imported in the init phase (a package stands for its modules), and why
NOT_AT_INIT: dict[str, str] = {
    "aws_xray_sdk": "Powertools' Tracer imports it with the first traced call: its import creates the X-Ray "
    "daemon's UDP socket and, in Lambda, writes /tmp/.aws-xray/initialized (I/O at import)",
}

#: never imported by the init phase nor by a first POST /v1/runs, and why
NOT_ON_A_FIRST_RUN: dict[str, str] = {
    "boto3": "the clients come from a botocore session (boto3.client is botocore's create_client)",
    "s3transfer": "boto3's; ~260 ms of a python3.13 cold start",
    "opensearchpy": "OpenSearch is signed and sent through botocore (SigV4Auth, URLLib3Session)",
    "requests": "opensearch-py's transport, not used",
    "charset_normalizer": "requests'",
    "asyncio": "imported by AppSync's resolver, which Powertools' event_handler re-exports, and by wrapt's "
    "synchronization, which wrapt re-exports (X-Ray's first traced call): mneme.lazy_packages defers both",
    "aws_lambda_powertools.event_handler.appsync": "re-exported by Powertools' event_handler (mneme.lazy_packages)",
    "aws_lambda_powertools.utilities.data_classes.kafka_event": "one of the ~40 event sources data_classes "
    "re-exports (mneme.lazy_packages): the HTTP resolver needs 7 of them",
    "mcp": "the MCP SDK loads with the first agent that has an MCP server, or the first /mcp request",
    "mneme.api.views": "the other routes' response views (a pydantic class costs its definition, deferred or not)",
    "mneme.models.requests": "the other routes' request bodies",
    "mneme.api.config_routes": "a router loads with the first request for its paths",
    "mneme.api.approval_routes": "a router loads with the first request for its paths",
    "mneme.api.run_detail_routes": "a router loads with the first request for its paths",
    "mneme.api.chat_routes": "a router loads with the first request for its paths",
    "mneme.api.memory_routes": "a router loads with the first request for its paths",
    "mneme.api.audit_routes": "a router loads with the first request for its paths",
    "mneme.api.privacy_routes": "a router loads with the first request for its paths",
}

#: every router module of mneme.api, in the order the full app includes them
ROUTERS: tuple[str, ...] = (
    "config_routes",
    "approval_routes",
    "run_routes",
    "run_detail_routes",
    "run_list_routes",
    "chat_routes",
    "memory_routes",
    "audit_routes",
    "privacy_routes",
)
#: the first path segment after /v1/ -> the router modules serving it (a path no router claims loads them all)
ROUTERS_BY_SEGMENT: dict[str, tuple[str, ...]] = {
    "runs": ("run_routes", "run_detail_routes"),
    "context": ("run_detail_routes",),
    "chats": ("chat_routes",),
    "agents": ("config_routes",),
    "skills": ("config_routes",),
    "me": ("config_routes", "approval_routes", "privacy_routes"),
    "memory": ("memory_routes",),
    "audit": ("audit_routes", "privacy_routes"),
    "admin": ("privacy_routes",),
    "retention": ("privacy_routes",),
    "health": (),
}
#: whole paths served by fewer routers than their segment: starting a run (a cold start's usual first request);
#: a method-qualified key wins (listing runs loads its own router, starting one only run_routes)
ROUTERS_BY_PATH: dict[str, tuple[str, ...]] = {"/v1/runs": ("run_routes",), "GET /v1/runs": ("run_list_routes",)}


def routers_for(path: str, method: str = "") -> tuple[str, ...]:
    """The router modules that serve ``method path`` (all of them for a path no router claims)."""
    parts = path.split("/")
    segment = parts[2] if len(parts) > 2 and parts[1] == "v1" else ""
    by_path = ROUTERS_BY_PATH.get(f"{method.upper()} {path}") or ROUTERS_BY_PATH.get(path)
    return by_path or ROUTERS_BY_SEGMENT.get(segment, ROUTERS)


def preload() -> None:
    """Make Powertools' re-exporting packages lazy (:mod:`mneme.lazy_packages`), import :data:`PRELOADED` and
    build :data:`PREBUILT`'s validators (no settings read, no client, no I/O but the library's own source)."""
    from mneme.lazy_packages import install_all

    install_all()
    for name in PRELOADED:
        importlib.import_module(name)
    for entry in PREBUILT:
        module, _, model = entry.partition(":")
        getattr(importlib.import_module(module), model).model_rebuild()
