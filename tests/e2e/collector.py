"""A loopback OTLP/HTTP trace collector whose spans land in an `InMemorySpanExporter`.

The services are separate processes, so an in-memory exporter cannot sit inside them. They
export as in production (shared/tracing.py's OTLP/HTTP exporter, switched on by
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) to this collector, which decodes each
`ExportTraceServiceRequest` back into SDK spans and hands them to an in-memory exporter the
test reads with `get_finished_spans()`.
"""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

# OTLP's Span.SpanKind numbering (0 is unspecified) -> the API's SpanKind.
_KINDS = {
    1: SpanKind.INTERNAL,
    2: SpanKind.SERVER,
    3: SpanKind.CLIENT,
    4: SpanKind.PRODUCER,
    5: SpanKind.CONSUMER,
}


def _value(any_value) -> object:
    field = any_value.WhichOneof("value")
    return getattr(any_value, field) if field else None


def _attributes(pairs) -> dict[str, object]:
    return {a.key: _value(a.value) for a in pairs}


def _context(trace_id: bytes, span_id: bytes) -> SpanContext:
    return SpanContext(
        int.from_bytes(trace_id, "big"),
        int.from_bytes(span_id, "big"),
        is_remote=False,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )


def decode(body: bytes) -> list[ReadableSpan]:
    """The spans of one OTLP/HTTP protobuf export request, as the SDK's ReadableSpans."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = Resource(_attributes(resource_spans.resource.attributes))
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                parent = (
                    _context(span.trace_id, span.parent_span_id) if span.parent_span_id else None
                )
                spans.append(
                    ReadableSpan(
                        name=span.name,
                        context=_context(span.trace_id, span.span_id),
                        parent=parent,
                        resource=resource,
                        attributes=_attributes(span.attributes),
                        kind=_KINDS.get(span.kind, SpanKind.INTERNAL),
                        start_time=span.start_time_unix_nano,
                        end_time=span.end_time_unix_nano,
                    )
                )
    return spans


class LoopbackCollector:
    """`with LoopbackCollector() as c:` serves POST /v1/traces on 127.0.0.1 until the block ends."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        exporter = self.exporter

        class Receive(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                exporter.export(decode(body))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Receive)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def traces_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"

    def __enter__(self) -> LoopbackCollector:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
