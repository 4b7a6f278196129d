"""The workflow document a replayed case would be saved with, from the services' own functions.

With the heuristic backend every model call of a step returns its fallback, so the steps
reduce to pure functions the specialist runtime calls (services/specialist/kinds/): the
specialist step drafts `logic.heuristic_config(entry, step.words, operation, apps)` and
carries the node's stated values (`logic.carry_stated`), the
config step keeps `logic.normalise(draft, entry, step.words, operation, apps)`, and the composer runs `compose.compose` under
the heuristic title, citing turns with `cite.sources`. `step.words` is the runtime's own
property over a context built by `context.assemble` (the last 30 messages) and the turns
recalled from the indexer's outline, which is built here by the indexer's heuristic rules.
This module only feeds them the session as the stores would hold it; it decides nothing.
"""

from __future__ import annotations

import uuid
from functools import cached_property
from typing import Any

from catalog import Catalogue, find_mentions
from schemas.outline import IndexedTurn, Outline
from schemas.plan import PlanNode, RunStep
from schemas.turn import ChatMessage
from services.indexer import logic as indexer
from services.planner.logic import plan_id_for
from services.specialist import cite, compose, context, logic
from services.specialist.runtime import RECALL_BUDGET_TOKENS
from services.specialist.step import Step
from shared.recall import passages_of, recall
from state.artifacts import Artifact
from state.plan import PlanLog

SESSION_ID = "replay-session"
# One fixed confirmation: ids are not compared, and a replay must be repeatable.
PLAN_ID = plan_id_for(uuid.UUID(int=0))


def indexed(transcript: list[ChatMessage], catalogue: Catalogue | None) -> dict[int, IndexedTurn]:
    """Every user turn as the indexer keeps it, by turn number (1, 2, ...); without a
    catalogue the ids it names are left out (citing a turn reads only its words)."""
    users = [m for m in transcript if m.role == "user"]
    return {
        seq: IndexedTurn(
            seq=seq,
            turn_id=m.turn_id,
            text=m.text,
            ids=find_mentions(m.text, catalogue) if catalogue else [],
        )
        for seq, m in enumerate(users, start=1)
    }


def outline_of(turns: dict[int, IndexedTurn], limits: indexer.Limits) -> Outline:
    """The indexer's tree after every complete batch, each placed by the heuristic."""
    outline = Outline()
    while (batch := indexer.pending_batch(outline, turns)) is not None:
        proposal = indexer.heuristic(outline, batch, limits)
        outline = indexer.place(outline, proposal, batch, limits, "heuristic").outline
    return outline


def plan_log(nodes: list[PlanNode], summary: str) -> PlanLog:
    """The plan as the planner logs it (state/plan.py), one planner message per node."""
    messages = {n.node_id: [n.instructions] for n in nodes}
    return PlanLog(PLAN_ID, nodes, summary, "", messages)


class StepReplay:
    """A session's stores after its confirmation, seen by the steps of its plan."""

    def __init__(self, plan: PlanLog, transcript: list[ChatMessage], catalogue: Catalogue) -> None:
        self.plan, self.transcript, self.catalogue = plan, transcript, catalogue
        self.turns = indexed(transcript, None)  # what the composer cites turns from
        self.window = transcript[-context.CONTEXT_MESSAGES :]
        self.artifacts: dict[str, Artifact] = {}

    @cached_property
    def outline(self) -> tuple[Outline, dict[int, IndexedTurn]]:
        """The indexer's outline and turns; built only when some turn fell out of the window
        (naming ids costs more than the rest of a replay, and a shown turn is never recalled)."""
        turns = indexed(self.transcript, self.catalogue)
        return outline_of(turns, indexer.Limits()), turns

    def step(self, index: int) -> Step:
        """Step `index` as the runtime builds it (runtime.run_step, default context policy)."""
        node = self.plan.nodes[index]
        recalled = self.recalled(node)
        built = context.assemble(self.plan, index, self.artifacts, self.transcript, recalled)
        command = RunStep(
            session_id=SESSION_ID, plan_id=PLAN_ID, node_index=index, node=node, attempt=1
        )
        return Step(command, self.plan, built, [])

    def recalled(self, node: PlanNode) -> tuple[Any, ...]:
        """The earlier turns recalled for a step (runtime.recall_for), the window left out."""
        entry = self.catalogue.get(node.specialist) if node.specialist else None
        shown = {m.turn_id for m in self.window}
        if entry is None or all(t.turn_id in shown for t in self.turns.values()):
            return ()
        passages = passages_of(*self.outline, exclude=shown)
        query = context.recall_query(node, entry)
        return tuple(recall(passages, query, [entry.id], RECALL_BUDGET_TOKENS))

    def keep(self, node: PlanNode, kind: str, content: dict[str, Any]) -> None:
        """A step's artifact, for the steps after it."""
        self.artifacts[node.node_id] = Artifact(node.node_id, 1, kind, node.specialist, content)

    def document(self) -> dict[str, Any]:
        """Run the steps in plan order as kinds/{draft,config,compose}.py do, up to the composer."""
        for index, node in enumerate(self.plan.nodes):
            step = self.step(index)
            entry = self.catalogue.get(node.runner)
            if node.kind == "specialist" and entry is not None:
                words, apps = step.words, step.specialists
                config = logic.heuristic_config(entry, words, node.operation, apps)
                # A checked model's stated values, as kinds/draft.py carries them.
                config, _ = logic.carry_stated(
                    config, entry, node.stated, words, node.operation, apps
                )
                self.keep(node, "draft_config", config)
            elif node.kind == "config" and entry is not None:
                draft = step.context.artifact(node.runner)
                if draft is None:
                    raise ValueError(f"the {node.runner} step left no draft config")
                config = logic.normalise(
                    draft.content, entry, step.words, node.operation, step.specialists
                )
                self.keep(node, "config", config)
            elif node.kind == "composer":
                return self.compose(step)
        raise ValueError("the plan has no composer step")

    def compose(self, step: Step) -> dict[str, Any]:
        """The composer step (kinds/compose.py) under the heuristic title its fallback gives."""
        configs = {
            s: a.content
            for s in compose.specialists_of(step.plan)
            if (a := step.context.artifact(f"{s}.config"))
        }
        sources = {s: cite.sources(self.catalogue[s], c, self.turns) for s, c in configs.items()}
        title = compose.heuristic_title(step.plan, self.catalogue)
        return compose.compose(
            step.plan, SESSION_ID, configs, self.catalogue, title, sources, step.words
        )


def workflow_document(
    nodes: list[PlanNode], summary: str, transcript: list[ChatMessage], catalogue: Catalogue
) -> dict[str, Any]:
    """The document the stack would save for this plan and conversation (heuristic backend)."""
    return StepReplay(plan_log(nodes, summary), transcript, catalogue).document()
