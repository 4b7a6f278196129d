"""Trace context without spans: what a handler's publishes carry from the message it consumed."""

from __future__ import annotations

from faststream.kafka import KafkaBroker, KafkaMessage, TestKafkaBroker

from shared.tracing import TraceContextMiddleware, current_trace_id

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


async def relay(headers: dict[str, str]) -> tuple[str | None, dict[str, str]]:
    """One message with `headers` consumed from "in"; its handler publishes it to "out".

    Returns the trace id the handler saw (as its log lines would) and the published headers.
    """
    broker = KafkaBroker(middlewares=[TraceContextMiddleware])
    seen: dict[str, object] = {}

    @broker.subscriber("in")
    async def forward(body: str) -> None:
        seen["trace_id"] = current_trace_id()
        await broker.publish(body, "out")

    @broker.subscriber("out")
    async def land(body: str, message: KafkaMessage) -> None:
        seen["headers"] = dict(message.headers)

    async with TestKafkaBroker(broker) as test:
        await test.publish("hello", "in", headers=headers)
    return seen["trace_id"], seen["headers"]  # type: ignore[return-value]


async def test_the_consumed_trace_goes_on_everything_the_handler_publishes():
    trace_id, headers = await relay({"traceparent": PARENT, "baggage": "planwire.accepted_at=12"})
    assert trace_id == TRACE_ID
    assert headers["traceparent"].split("-")[1] == TRACE_ID
    assert "planwire.accepted_at=12" in headers["baggage"]


async def test_a_message_without_a_trace_starts_one():
    trace_id, headers = await relay({})
    assert trace_id is not None and trace_id != "0" * 32
    assert headers["traceparent"].split("-")[1] == trace_id
    assert "baggage" not in headers
