"""One trace, exported by every service process, from the gateway POST to the saved workflow.

A stack of its own whose services export spans over OTLP/HTTP (the production path, switched
on by `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) to a loopback collector that feeds an
`InMemorySpanExporter` (tests/e2e/collector.py). The confirming request's server span in the
gateway is the root; each service's consume span is a child of the span that published what
it consumed (the parent read from the Kafka headers by FastStream's
`KafkaTelemetryMiddleware`); the specialist's `save workflow` span closes the chain.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from opentelemetry.trace import SpanKind

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from tests.e2e.collector import LoopbackCollector
from tests.e2e.gathering import gather
from tests.e2e.test_prometheus import TURNS

pytestmark = pytest.mark.e2e

CONFIRM = "Yes, that's everything. Please build it."


@pytest.fixture(scope="module")
def traced():
    """A collector and a stack whose every process exports its spans to it."""
    from shared.model.factory import ModelSettings

    with LoopbackCollector() as collector:
        env = {
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": collector.traces_endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "200",  # export within a fifth of a second
        }
        before = {name: os.environ.get(name) for name in env}
        os.environ.update(env)  # the stack's children inherit the environment at start
        try:
            stack = EmbeddedStack(ModelSettings(model="heuristic"))
            stack.start()
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        try:
            yield stack, collector
        finally:
            stack.stop()


def service_of(span) -> str:
    return str(span.resource.attributes.get("service.name", ""))


def chain(spans, trace_id: int) -> tuple[list, list]:
    """The spans of one trace, and those whose parent is not (yet) among them."""
    mine = [s for s in spans if s.context.trace_id == trace_id]
    ids = {s.context.span_id for s in mine}
    return mine, [s for s in mine if s.parent is None or s.parent.span_id not in ids]


async def test_one_trace_id_covers_the_gateway_post_through_the_saved_workflow(traced):
    stack, collector = traced
    async with SessionClient(stack.gateway_url) as session:
        state, _ = await gather(session, TURNS)
        assert state["phase"] == "confirming"
        await session.say(CONFIRM)
        done = await session.wait_for(lambda e: e.type.startswith("workflow_"), timeout_s=120)
        assert done.type == "workflow_completed"
        confirm_path = f"/v1/sessions/{session.session_id}/messages"

    # Spans arrive in batches from many processes: wait until the saved workflow's trace is
    # one tree (a single root) that reaches the save span, or give up.
    mine, roots = [], []
    for _ in range(150):
        spans = collector.exporter.get_finished_spans()
        saves = [s for s in spans if s.name == "save workflow"]
        if saves:
            mine, roots = chain(spans, saves[0].context.trace_id)
            if len(roots) == 1 and roots[0].name == f"POST {confirm_path}":
                break
        await asyncio.sleep(0.2)
    assert saves, "no `save workflow` span was exported"
    assert len(saves) == 1, [s.attributes for s in saves]

    # The root is the gateway's server span for the confirming POST; nothing else is orphaned.
    assert [(r.name, service_of(r), r.kind) for r in roots] == [
        (f"POST {confirm_path}", "planwire-gateway", SpanKind.SERVER)
    ], [(s.name, service_of(s)) for s in mine]
    assert roots[0].parent is None

    # Every service the confirming turn crosses consumed within this trace.
    consumers = {service_of(s) for s in mine if s.kind == SpanKind.CONSUMER}
    for service in ("trimmer", "classifier", "planner", "dispatcher"):
        assert f"planwire-{service}" in consumers, sorted(consumers)
    assert any(c.startswith("planwire-specialist") for c in consumers), sorted(consumers)
    (save,) = saves
    assert service_of(save).startswith("planwire-specialist")
    assert save.attributes["planwire.workflow_id"] == done.data["workflow_id"]

    # Walking up from the save span reaches the gateway POST, through consume spans whose
    # parents came from Kafka headers.
    by_id = {s.context.span_id: s for s in mine}
    path, span = [], save
    while span.parent is not None:
        span = by_id[span.parent.span_id]
        path.append((service_of(span), span.kind))
    assert path[-1] == ("planwire-gateway", SpanKind.SERVER)
    assert ("planwire-dispatcher", SpanKind.CONSUMER) in path
    assert ("planwire-planner", SpanKind.CONSUMER) in path
