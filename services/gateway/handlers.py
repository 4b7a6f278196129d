"""Gateway Kafka handlers: copy outbound events into each session's event stream."""

from __future__ import annotations

from typing import Any

from faststream import Context

from schemas.envelope import Event
from schemas.plan import PlanCompiled, StepProgressed, WorkflowCompleted, WorkflowFailed
from schemas.turn import ReplyDelta, ReplyGenerated
from services.gateway.metrics import observe_outbound
from services.gateway.store import SessionStore
from shared.handling import handles


async def forward(store: SessionStore, event: Event, event_type: str, data: dict[str, Any]) -> None:
    """Append once; the SSE readers on every replica pick it up from Redis."""
    payload = {"event_id": str(event.event_id), "turn_id": event.turn_id, **data}
    await store.publish_outbound(event.session_id, str(event.event_id), event_type, payload)
    observe_outbound(event_type)


@handles("gateway", claim=False)
async def on_reply_generated(event: ReplyGenerated, store: SessionStore = Context()) -> None:
    """Stream planwire's reply to the user."""
    await forward(
        store, event, "reply", {"text": event.text, "kind": event.reply_kind, "phase": event.phase}
    )


@handles("gateway", claim=False)
async def on_reply_delta(event: ReplyDelta, store: SessionStore = Context()) -> None:
    """Stream a piece of a reply a model is still writing (`reply.delta`; no dedupe: a piece
    shown twice after a redelivery is replaced by the reply all the same)."""
    data = {"event_id": str(event.event_id), "turn_id": event.turn_id, "text": event.text}
    await store.publish_delta(event.session_id, "reply.delta", {**data, "index": event.index})
    observe_outbound("reply.delta")


@handles("gateway", claim=False)
async def on_plan_compiled(event: PlanCompiled, store: SessionStore = Context()) -> None:
    """Tell the user which steps the plan will run, in order (the page draws them)."""
    specialists = [n.specialist for n in event.nodes if n.kind == "specialist" and n.specialist]
    nodes = [n.model_dump(include={"node_id", "kind", "runner", "specialist"}) for n in event.nodes]
    await forward(
        store,
        event,
        "plan",
        {
            "plan_id": event.plan_id,
            "specialists": specialists,
            "steps": len(event.nodes),
            "nodes": nodes,
        },
    )


@handles("gateway", claim=False)
async def on_step_progressed(event: StepProgressed, store: SessionStore = Context()) -> None:
    """Stream dispatch progress, one event per step transition."""
    await forward(
        store,
        event,
        "progress",
        event.model_dump(
            mode="json", include={"node_index", "total", "node_id", "runner", "status"}
        ),
    )


@handles("gateway", claim=False)
async def on_workflow_completed(event: WorkflowCompleted, store: SessionStore = Context()) -> None:
    """Hand the user the saved workflow's id and the summary."""
    await forward(
        store,
        event,
        "workflow_completed",
        {"workflow_id": event.workflow_id, "summary": event.summary},
    )


@handles("gateway", claim=False)
async def on_workflow_failed(event: WorkflowFailed, store: SessionStore = Context()) -> None:
    """Tell the user the workflow failed, and why."""
    await forward(store, event, "workflow_failed", {"reason": event.reason})
