"""One step of a plan, run stateless at the step boundary: read, build context, produce, write.

Everything a step needs is read fresh from Redis when it starts (plan log, current
artifacts, transcript, and the earlier turns recalled from the indexer's outline), so any runner replica can take any step and a restarted one
simply starts over. Only the validated artifact is written for later steps; the raw model
exchange is kept apart for audit.
"""

from __future__ import annotations

import json

from schemas.plan import RunStep
from schemas.turn import ChatMessage
from services.specialist import context
from services.specialist.context import CONTEXT_MESSAGES
from services.specialist.kinds import PRODUCERS
from services.specialist.prompt import ROLE_TEXTS
from services.specialist.step import Deps, Step, StepFailed
from shared.policy import naive
from shared.recall import Passage, passages_of, recall

# Recalled earlier turns may take this many prompt tokens (~7 ms each on the local model).
RECALL_BUDGET_TOKENS = 200


async def run_step(command: RunStep, deps: Deps) -> int:
    """Run one step and write its artifact; returns the artifact version."""
    plan = await deps.store.plan(command.session_id)
    if plan is None or plan.plan_id != command.plan_id or command.node_index >= len(plan.nodes):
        raise StepFailed("the plan this step belongs to is no longer logged")
    earlier = [n.node_id for n in plan.nodes[: command.node_index]]
    artifacts = await deps.store.artifacts(command.session_id, earlier)
    if naive():  # the whole transcript, no recall, chained to the last step's exchange
        transcript = await deps.store.transcript(command.session_id, None)
        step_context = context.assemble(
            plan, command.node_index, artifacts, transcript, window=None
        )
        prompt = await chained_prompt(command, step_context, earlier, deps)
    else:
        transcript = await deps.store.transcript(command.session_id, CONTEXT_MESSAGES)
        recalled = await recall_for(command, transcript, deps)
        step_context = context.assemble(plan, command.node_index, artifacts, transcript, recalled)
        prompt = context.render(step_context, role_text(command, deps))
    await deps.store.record(
        command.session_id,
        "context",
        command.node.node_id,
        context.record(step_context, prompt, command.attempt),
    )
    kind, content = await PRODUCERS[command.node.kind](
        Step(command, plan, step_context, prompt), deps
    )
    return await deps.store.append_artifact(
        command.session_id,
        command.node,
        kind,
        content,
        plan_id=plan.plan_id,
        attempt=command.attempt,
    )


async def chained_prompt(
    command: RunStep, step_context: context.StepContext, earlier: list[str], deps: Deps
) -> list[dict[str, object]]:
    """The naive policy's prompt: the latest earlier exchange continued (context.render_chained)."""
    found = await deps.store.last_exchange(command.session_id, earlier)
    chain, shown = [], set[str]()
    if found is not None:
        position, exchange = found
        reply = {"role": "assistant", "content": json.dumps(exchange.get("reply", {}))}
        chain, shown = [*exchange.get("messages", []), reply], set(earlier[: position + 1])
    return context.render_chained(step_context, role_text(command, deps), chain, shown)


async def recall_for(
    command: RunStep, transcript: list[ChatMessage], deps: Deps
) -> tuple[Passage, ...]:
    """Earlier turns older than the step's window that relate to its instructions and config."""
    node = command.node
    entry = deps.catalogue.get(node.specialist) if node.specialist else None
    if entry is None:
        return ()
    outline, turns = await deps.store.outline(command.session_id)
    passages = passages_of(outline, turns, exclude={m.turn_id for m in transcript})
    query = context.recall_query(node, entry)
    return tuple(recall(passages, query, [entry.id], RECALL_BUDGET_TOKENS))


def role_text(command: RunStep, deps: Deps) -> str:
    """What this kind of step is asked, naming its specialist."""
    entry = deps.catalogue.get(command.node.specialist) if command.node.specialist else None
    return ROLE_TEXTS[command.node.kind].format(name=entry.name if entry else command.node.kind)
