"""One step of a plan, run stateless at the step boundary: read, build context, produce, write.

Everything a step needs is read fresh from Redis when it starts (plan log, current
artifacts, transcript), so any runner replica can take any step and a restarted one
simply starts over. Only the validated artifact is written for later steps; the raw model
exchange is kept apart for audit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schemas.plan import RunStep
from services.specialist import cite, compose, context, logic, summary
from services.specialist.context import CONTEXT_MESSAGES, PlanLog, StepContext
from shared.metrics import record_overrides
from shared.recall import Passage, passages_of, recall

if TYPE_CHECKING:
    from services.specialist.handlers import Deps

# Recalled earlier turns may take this many prompt tokens (~7 ms each on the local model).
RECALL_BUDGET_TOKENS = 200
TITLE_SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 80}},
    "required": ["title"],
    "additionalProperties": False,
}
# 600 characters fit the step's 400-token budget with room to spare: a summary cut off by
# max_tokens is invalid JSON, and on the local model it was also the slowest call of a run.
SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string", "maxLength": 600}},
    "required": ["summary"],
    "additionalProperties": False,
}
# What each kind of step is asked; it ends the prompt (context.render), after the parts
# every step of the session shares.
ROLE_TEXTS = {
    "specialist": "Configure the {name} step: reply with its config as one JSON object matching the schema.",
    "config": "The {name} step's draft config is normalised and validated against its schema.",
    "composer": 'Name the workflow: reply with JSON {{"title": ...}}, a short title saying what it does.',
    "save": "The workflow document is saved.",
    "summarizer": 'Tell the user in a few sentences what workflow was built, naming every step. Reply with JSON {{"summary": ...}}.',
}


class StepFailed(Exception):
    """The step cannot produce a valid artifact; the message is for the user."""


@dataclass(frozen=True)
class Step:
    """One attempt of one step, with the context it was built from."""

    command: RunStep
    plan: PlanLog
    context: StepContext
    prompt: list[dict]

    @property
    def words(self) -> str:
        """The user's words the step sees: its context window, then recalled earlier turns.

        The window comes first so that a value the user restated lately wins over an old one.
        """
        recalled = [p.text for p in self.context.recalled]
        return "\n".join([logic.user_words(self.context.messages), *recalled])

    def artifact_of(self, kind: str) -> dict:
        """Content of the earlier artifact made by the node of `kind`; StepFailed if absent."""
        node = next((n for n in self.plan.nodes if n.kind == kind), None)
        found = self.context.artifact(node.node_id) if node else None
        if found is None:
            raise StepFailed(f"the {kind} step's output is missing")
        return found.content


async def run_step(command: RunStep, deps: Deps) -> int:
    """Run one step and write its artifact; returns the artifact version."""
    plan = await deps.store.plan(command.session_id)
    if plan is None or plan.plan_id != command.plan_id or command.node_index >= len(plan.nodes):
        raise StepFailed("the plan this step belongs to is no longer logged")
    earlier = [n.node_id for n in plan.nodes[: command.node_index]]
    artifacts = await deps.store.artifacts(command.session_id, earlier)
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


async def recall_for(command: RunStep, transcript: list, deps: Deps) -> tuple[Passage, ...]:
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


async def ask(
    step: Step,
    deps: Deps,
    schema: dict,
    fallback: Callable[[], dict],
    validate: Callable[[dict], None] | None = None,
) -> dict:
    """One model call of the step (repair turns chain inside it); the exchange is kept apart."""
    role = f"{step.command.node.kind}.{step.command.node.runner}"
    result = await deps.model.structured(
        role, step.prompt, schema, fallback=fallback, validate=validate, max_tokens=400
    )
    exchange = {
        "attempt": step.command.attempt,
        "role": role,
        "messages": step.prompt,
        "reply": result.data,
        "outcome": result.outcome,
    }
    await deps.store.record(
        step.command.session_id, "exchange", step.command.node.node_id, exchange
    )
    return result.data


async def draft(step: Step, deps: Deps) -> tuple[str, dict]:
    """A specialist step: the model drafts the config (the heuristic when it cannot), code grounds it."""
    entry = deps.catalogue.get(step.command.node.specialist)
    words = step.words
    heuristic = logic.heuristic_config(entry, words)
    data = await ask(
        step, deps, entry.config_schema, lambda: heuristic, lambda d: logic.check(d, entry)
    )
    if data != heuristic:
        data, fired = logic.ground(data, entry, words)
        record_overrides("specialist", fired)
    try:
        logic.check(data, entry)
    except logic.ConfigInvalid as exc:
        raise StepFailed(str(exc)) from None
    return "draft_config", data


async def configure(step: Step, deps: Deps) -> tuple[str, dict]:
    """A config step: normalise the specialist's current draft and validate it strictly."""
    specialist = step.command.node.specialist
    found = step.context.artifact(specialist)
    if found is None:
        raise StepFailed(f"the {specialist} step left no draft config")
    try:
        return "config", logic.normalise(found.content, deps.catalogue.get(specialist), step.words)
    except logic.ConfigInvalid as exc:
        raise StepFailed(str(exc)) from None


async def assemble_workflow(step: Step, deps: Deps) -> tuple[str, dict]:
    """The composer: the workflow document from every config artifact."""
    configs = {
        s: a.content
        for s in compose.specialists_of(step.plan)
        if (a := step.context.artifact(f"{s}.config"))
    }
    fallback_title = compose.heuristic_title(step.plan, deps.catalogue)
    proposed = str(
        (await ask(step, deps, TITLE_SCHEMA, lambda: {"title": fallback_title})).get("title", "")
    )
    title = (
        proposed
        if compose.acceptable_title(proposed, step.plan, deps.catalogue)
        else fallback_title
    )
    record_overrides("composer", [] if title == proposed else ["title_rejected"])
    _outline, turns = await deps.store.outline(step.command.session_id)
    sources = {s: cite.sources(deps.catalogue.get(s), c, turns) for s, c in configs.items()}
    try:
        return "workflow", compose.compose(
            step.plan, step.command.session_id, configs, deps.catalogue, title, sources
        )
    except ValueError as exc:
        raise StepFailed(str(exc)) from None


async def save(step: Step, deps: Deps) -> tuple[str, dict]:
    """Persist the composed document and point the session at it."""
    document = step.artifact_of("composer")
    await deps.store.save_workflow(step.command.session_id, document)
    return "saved", {"workflow_id": document["workflow_id"]}


async def summarise(step: Step, deps: Deps) -> tuple[str, dict]:
    """Tell the user what was built; code makes sure every node is named."""
    document, saved = step.artifact_of("composer"), step.artifact_of("save")
    fallback, names = (
        summary.heuristic_summary(document, deps.catalogue),
        summary.display_names(document, deps.catalogue),
    )
    proposed = str(
        (await ask(step, deps, SUMMARY_SCHEMA, lambda: {"summary": fallback})).get("summary", "")
    )
    usable = summary.usable(proposed, names)
    text, repaired = summary.ensure_names(proposed if usable else fallback, names)
    record_overrides(
        "summarizer",
        (["summary_missing_names"] if repaired else []) + ([] if usable else ["summary_rejected"]),
    )
    return "summary", {"workflow_id": saved["workflow_id"], "summary": text}


PRODUCERS: dict[str, Callable[[Step, Any], Awaitable[tuple[str, dict]]]] = {
    "specialist": draft,
    "config": configure,
    "composer": assemble_workflow,
    "save": save,
    "summarizer": summarise,
}
