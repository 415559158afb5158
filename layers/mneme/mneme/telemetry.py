"""OpenTelemetry spans (issue 16), following the GenAI semantic conventions (``gen_ai.*``, semconv 0.66b1).

Off by default, and then free: nothing of OpenTelemetry is imported, :func:`span` yields a no-op. The roots
call :func:`configure` once (``MNEME_OTEL_ENABLED``); it uses the global tracer provider when one is set (the
ADOT Lambda layer's, with ``AWS_LAMBDA_EXEC_WRAPPER=/opt/otel-instrument``), else builds one exporting
OTLP/HTTP to ``OTEL_EXPORTER_OTLP_ENDPOINT`` (local mode, a collector of your own). Spans sit beside the
X-Ray subsegments of :func:`mneme.observability.traced` (both may be on).

What a span carries: ids, names, counts, scores and token usage. Message content (model input and output,
tool arguments and results, the memory query) only with ``MNEME_OTEL_CAPTURE_CONTENT=true``
(:func:`capture_content`); memory content never.

Spans: ``invoke_agent {label}`` per step of a run (``gen_ai.agent.*``, ``gen_ai.conversation.id``,
``mneme.run_id`` / ``root_run_id`` / ``depth``), ``chat {model}`` per model call, ``execute_tool {tool}``
per tool call, ``retrieval {via}`` per memory read (hit ids and relevance scores, what each ranking rule
dropped, how many namespaces the security filter denied) and ``memory.write`` per memory write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

_state: dict[str, Any] = {"tracer": None, "provider": None, "content": False}


class SpanHandle:
    """A started span (or nothing when telemetry is off): set attributes, record an error."""

    def __init__(self, span: Any = None) -> None:
        self._span = span

    def set_attribute(self, key: str, value: Any) -> None:
        """For dotted names (``gen_ai.usage.input_tokens``)."""
        if self._span is not None and _value(value) is not None:
            self._span.set_attribute(key, _value(value))

    def set_many(self, attributes: Mapping[str, Any]) -> None:
        if self._span is not None:
            self._span.set_attributes(_clean(attributes))


def configure(*, enabled: bool, capture_content: bool = False, tracer_provider: Any | None = None) -> bool:
    """Switch spans on (or off). Returns whether they are on (off when no provider could be had)."""
    _state.update(tracer=None, provider=None, content=bool(capture_content))
    if not enabled:
        return False
    provider = tracer_provider if tracer_provider is not None else _global_or_own_provider()
    if provider is None:
        return False
    _state.update(tracer=provider.get_tracer("mneme"), provider=provider)
    return True


def enabled() -> bool:
    return _state["tracer"] is not None


def capture_content() -> bool:
    """Whether message content may go into spans (opt-in)."""
    return bool(_state["content"]) and enabled()


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None, *, kind: str = "internal") -> Iterator[SpanHandle]:
    tracer = _state["tracer"]
    if tracer is None:
        yield SpanHandle()
        return
    from opentelemetry.trace import SpanKind, Status, StatusCode

    span_kind = SpanKind.CLIENT if kind == "client" else SpanKind.INTERNAL
    with tracer.start_as_current_span(
        name, kind=span_kind, attributes=_clean(attributes or {}), record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield SpanHandle(current)
        except BaseException as exc:
            current.set_attribute("error.type", type(exc).__name__)
            current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise


def content(value: Any) -> str | None:
    """``value`` as JSON for a content attribute, or None unless content capture is on."""
    if not capture_content():
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def flush() -> None:
    """Export what is buffered (end of an invocation: a frozen Lambda sandbox exports nothing)."""
    provider = _state["provider"]
    if provider is not None and hasattr(provider, "force_flush"):
        provider.force_flush()


def _global_or_own_provider() -> Any | None:
    from opentelemetry import trace

    current = trace.get_tracer_provider()
    if not isinstance(current, trace.ProxyTracerProvider):
        return current  # set by the ADOT layer (or any other instrumentation)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        from mneme.observability import logger

        logger().warning("MNEME_OTEL_ENABLED is set but no OpenTelemetry SDK / OTLP exporter is installed")
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "mneme"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider


def _value(value: Any) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        items = [item for item in value if item is not None]
        if all(isinstance(item, str) for item in items) or all(isinstance(item, bool | int | float) for item in items):
            return list(items)
        return [str(item) for item in items]
    return str(value)


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _value(value) for key, value in attributes.items() if _value(value) is not None}
