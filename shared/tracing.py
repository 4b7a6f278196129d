"""Traces across services: W3C trace context and baggage carried in Kafka headers.

A consumed message's `traceparent` header names the trace its handler continues, and that
trace goes on whatever the handler publishes; the W3C `baggage` header travels the same way,
so a value set where a chain starts reaches every service the chain crosses. When spans are
exported, FastStream's `KafkaTelemetryMiddleware` (with `BaggageMiddleware`) does this and
records a span per consume and publish; otherwise `TraceContextMiddleware` carries the
context alone. Spans are recorded by the OpenTelemetry SDK and exported over OTLP/HTTP
only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set; without one
nothing would read them, so none is recorded (the sampler says no: each span is a bare
context, with no attributes or events to build), and the ids still flow into headers and logs.

`TraceRequests` (ASGI) starts the trace of an HTTP request, continuing the caller's own
`traceparent` if it sent one, and stamps `planwire.accepted_at` into the baggage: the
gateway times a reply or a saved workflow against the message that caused it, with no state.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from faststream import BaseMiddleware
from faststream.kafka.opentelemetry import KafkaTelemetryMiddleware
from opentelemetry import baggage, trace
from opentelemetry import context as otel_context
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

log = logging.getLogger("planwire.tracing")

ACCEPTED_AT = "planwire.accepted_at"
_BAGGAGE = W3CBaggagePropagator()
_TRACE = TraceContextTextMapPropagator()
_process: dict[str, TracerProvider] = {}  # one provider per process

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Scope]]
Send = Callable[[Scope], Awaitable[None]]


def tracer_provider(service: str) -> TracerProvider:
    """The process's provider (the first service to ask names it), exporting when configured."""
    if "provider" not in _process:
        exporting = _exporting()
        provider = TracerProvider(
            resource=Resource.create({"service.name": f"planwire-{service}"}),
            # Exporting: the SDK's sampler (OTEL_TRACES_SAMPLER, parent-based by default).
            sampler=None if exporting else ALWAYS_OFF,
        )
        if exporting:
            provider.add_span_processor(BatchSpanProcessor(_otlp_exporter()))
        trace.set_tracer_provider(provider)
        _process["provider"] = provider
    return _process["provider"]


def _exporting() -> bool:
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def _otlp_exporter() -> Any:
    # Imported only when exporting: most runs never pay for the OTLP client.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def kafka_middlewares(service: str) -> list[Any]:
    """Trace context and baggage through every consume and publish of a broker.

    Exporting, FastStream's telemetry middleware records a span per consume and publish.
    Otherwise no span would be read, so only the context travels (`TraceContextMiddleware`):
    the same trace id in every header and log line, at a fraction of the per-message cost.
    """
    if not _exporting():
        return [TraceContextMiddleware]
    return [KafkaTelemetryMiddleware(tracer_provider=tracer_provider(service)), BaggageMiddleware]


_IDS = RandomIdGenerator()


async def _within(context: otel_context.Context, call_next: Any, msg: Any) -> Any:
    """`call_next(msg)` with `context` current."""
    token = otel_context.attach(context)
    try:
        return await call_next(msg)
    finally:
        otel_context.detach(token)


class BaggageMiddleware(BaseMiddleware):
    """Makes a consumed message's W3C baggage current; puts the current baggage on publishes."""

    async def consume_scope(self, call_next: Any, msg: Any) -> Any:
        carrier = msg.headers or {}
        return await _within(
            _BAGGAGE.extract(carrier, context=otel_context.get_current()), call_next, msg
        )

    async def publish_scope(self, call_next: Any, cmd: Any) -> Any:
        if baggage.get_all():
            _BAGGAGE.inject(cmd.headers)
        return await call_next(cmd)


class TraceContextMiddleware(BaggageMiddleware):
    """W3C trace context and baggage carried through a consume and its publishes, no spans.

    A consumed message's `traceparent` (or, without one, a new trace) is current while the
    handler runs and goes on everything it publishes, as does its `baggage`.
    """

    async def consume_scope(self, call_next: Any, msg: Any) -> Any:
        carrier = msg.headers or {}
        extracted = _BAGGAGE.extract(carrier, context=_TRACE.extract(carrier))
        if not trace.get_current_span(extracted).get_span_context().is_valid:
            started = trace.SpanContext(
                _IDS.generate_trace_id(), _IDS.generate_span_id(), is_remote=False
            )
            extracted = trace.set_span_in_context(trace.NonRecordingSpan(started), extracted)
        return await _within(extracted, call_next, msg)

    async def publish_scope(self, call_next: Any, cmd: Any) -> Any:
        _TRACE.inject(cmd.headers)
        return await super().publish_scope(call_next, cmd)


def seconds_since_accepted() -> float | None:
    """Seconds since the HTTP request that started this chain was accepted, if known."""
    stamped = baggage.get_baggage(ACCEPTED_AT)
    try:
        return max(0.0, time.time() - float(str(stamped))) if stamped is not None else None
    except ValueError:
        return None  # a caller's own baggage with that name: not ours to time


def current_trace_id() -> str | None:
    """The current trace id as 32 hex digits (for logs), if a span is current."""
    span = trace.get_current_span().get_span_context()
    return f"{span.trace_id:032x}" if span.is_valid else None


class TraceRequests:
    """ASGI middleware: one server span per HTTP request, with `planwire.accepted_at` baggage."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], service: str):
        self.app = app
        self.tracer = tracer_provider(service).get_tracer("planwire.http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        parent = _TRACE.extract(headers)
        stamped = baggage.set_baggage(ACCEPTED_AT, f"{time.time():.6f}", context=parent)
        token = otel_context.attach(stamped)
        try:
            name = f"{scope['method']} {scope['path']}"
            with self.tracer.start_as_current_span(name, kind=trace.SpanKind.SERVER):
                await self.app(scope, receive, send)
        finally:
            otel_context.detach(token)
