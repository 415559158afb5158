"""OpenTelemetry spans of one delegated run (issue 16): GenAI semantic-convention attributes, no content unless
opted in, exportable over OTLP/HTTP, and nothing of OpenTelemetry imported while it is off."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mneme import telemetry
from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.registry import ModelClients
from mneme.engine.runs.service import step
from mneme.models.memory import MemoryDocument
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world

ROOT = Path(__file__).resolve().parents[3]
SECRET = "my secret diary entry about green tea"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure(enabled=True, tracer_provider=provider)
    yield exporter
    telemetry.configure(enabled=False)


def delegating_world() -> World:
    world = make_world(OfflineModel())
    world.deps.models = ModelClients(None)  # the real registry: every client traced
    policy = {"tool_read_namespaces": ["vector.user.${user_id}.*"]}
    add_agent(world, tools=["memory-search", "delegate-to-agent"], delegates=["helper"], memory_policy=policy)
    add_agent(world, "helper", tools=["memory-search"], memory_policy=policy)
    now = world.clock.now()
    document = MemoryDocument(
        id="m1",
        namespace="vector.user.alice.memory",
        owner_user_id="alice",
        content=SECRET,
        content_hash="h",
        created_at=now,
        updated_at=now,
    )
    world.memory.put([(document, world.embedder.embed([SECRET])[0])])
    return world


def delegated_run(world: World) -> str:
    started = run(world, f"{SECRET}\n/search green tea\n/delegate helper :: /search {SECRET}")
    step(world.deps, started.children[0]["run_id"])
    step(world.deps, started.run.run_id)
    return started.run.run_id


def by_operation(spans: list[ReadableSpan], operation: str) -> list[ReadableSpan]:
    return [s for s in spans if (s.attributes or {}).get("gen_ai.operation.name") == operation]


def test_one_delegated_run_yields_genai_spans_with_the_expected_attributes(exporter: InMemorySpanExporter) -> None:
    world = delegating_world()
    root = delegated_run(world)
    spans = list(exporter.get_finished_spans())
    agents = by_operation(spans, "invoke_agent")
    assert {s.attributes["gen_ai.agent.id"] for s in agents} == {"master", "helper"}  # type: ignore[index]
    assert {s.attributes["mneme.root_run_id"] for s in agents} == {root}  # type: ignore[index]
    assert {s.attributes["mneme.depth"] for s in agents} == {0, 1}  # type: ignore[index]
    chats = by_operation(spans, "chat")
    assert len(chats) == 4  # master: tools, then answer; helper: tools, then answer
    for chat in chats:
        attributes: dict[str, Any] = dict(chat.attributes or {})
        assert (attributes["gen_ai.provider.name"], attributes["gen_ai.request.model"]) == ("mneme.offline", "offline")
        assert attributes["gen_ai.usage.input_tokens"] > 0 and "gen_ai.usage.output_tokens" in attributes
        assert chat.name == "chat offline" and chat.parent is not None  # inside its run's invoke_agent span
    tools = by_operation(spans, "execute_tool")
    assert sorted(str(s.attributes["gen_ai.tool.name"]) for s in tools) == [  # type: ignore[index]
        "delegate-to-agent",
        "memory-search",
        "memory-search",
    ]
    assert all(s.attributes["gen_ai.tool.call.id"] for s in tools)  # type: ignore[index]
    retrievals = by_operation(spans, "retrieval")
    assert retrievals and all("mneme.memory.dropped.min_score" in (s.attributes or {}) for s in retrievals)
    found: list[dict[str, Any]] = [dict(s.attributes or {}) for s in retrievals]
    found = [a for a in found if "m1" in list(a.get("mneme.memory.hit_ids", []))]
    assert found and all(len(a["mneme.memory.hit_relevance"]) >= 1 for a in found)


def test_no_span_carries_content_unless_opted_in(exporter: InMemorySpanExporter) -> None:
    delegated_run(delegating_world())
    spans = exporter.get_finished_spans()
    text = json.dumps([dict(s.attributes or {}) for s in spans], default=str)
    assert SECRET not in text and "green tea" not in text
    assert not any(
        key in text for key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments")
    )


def test_content_goes_into_spans_only_with_the_opt_in() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure(enabled=True, capture_content=True, tracer_provider=provider)
    try:
        delegated_run(delegating_world())
    finally:
        telemetry.configure(enabled=False)
    chats = by_operation(list(exporter.get_finished_spans()), "chat")
    assert any(SECRET in str((s.attributes or {}).get("gen_ai.input.messages")) for s in chats)


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _Collector.received.append((self.path, self.headers.get("Content-Type", ""), body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_spans_are_exported_over_otlp_http_to_a_collector() -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Collector.received = []
    provider = TracerProvider()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    telemetry.configure(enabled=True, tracer_provider=provider)
    try:
        delegated_run(delegating_world())
        telemetry.flush()
    finally:
        telemetry.configure(enabled=False)
        server.shutdown()
        server.server_close()
    assert _Collector.received and {path for path, _, _ in _Collector.received} == {"/v1/traces"}
    assert {kind for _, kind, _ in _Collector.received} == {"application/x-protobuf"}
    names = set()
    for _, _, body in _Collector.received:
        request = ExportTraceServiceRequest.FromString(body)
        names |= {span.name for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans}
    assert {"invoke_agent Master", "invoke_agent Helper", "chat offline", "execute_tool delegate-to-agent"} <= names


def test_with_telemetry_off_nothing_of_opentelemetry_is_imported() -> None:
    # a fresh interpreter: the handler module, a health request and a run with the offline model
    script = (
        "import sys, json\n"
        "sys.path[:0] = ['layers/mneme', 'functions/run', 'local', '.']\n"
        "from mneme.adapters.models.offline import OfflineModel\n"
        "from mneme.adapters.models.registry import ModelClients\n"
        "from tests.support.deps import make_world\n"
        "from tests.functional.engine.conftest import add_agent, run\n"
        "import app\n"
        "w = make_world(OfflineModel()); w.deps.models = ModelClients(None); add_agent(w, tools=['memory-search'])\n"
        "assert run(w, '/search tea').run.status.value == 'succeeded'\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('opentelemetry'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
