"""The composer: assemble the workflow document from validated configs. Pure functions.

The format is `planwire.workflow/v1`, documented in docs/workflow-format.md. Code owns its
structure; the model may only propose the title.
"""

from __future__ import annotations

import uuid
from itertools import pairwise
from typing import Any

from catalog import Catalogue
from services.specialist import values
from state.plan import PlanLog

FORMAT = "planwire.workflow/v1"
SCHEDULER = "scheduler"
MAX_TITLE_CHARS = 120


def workflow_id_for(plan_id: str) -> str:
    """One workflow per plan: a re-run of the composer names the same workflow."""
    return "wf-" + uuid.uuid5(uuid.NAMESPACE_URL, f"planwire:workflow:{plan_id}").hex[:20]


def specialists_of(plan: PlanLog) -> list[str]:
    """The plan's specialists in order (one config step each)."""
    return [n.specialist for n in plan.nodes if n.kind == "config" and n.specialist]


def heuristic_title(plan: PlanLog, catalogue: Catalogue) -> str:
    """'Gmail → PDF Parser → Slack': what the workflow connects."""
    return (
        " → ".join(catalogue[s].name for s in specialists_of(plan))[:MAX_TITLE_CHARS] or "Workflow"
    )


def acceptable_title(title: str, plan: PlanLog, catalogue: Catalogue) -> bool:
    """A model's title is used only if it is short, names a part of the workflow, and does
    not echo the prompt (a weak model titles workflows with its own instructions)."""
    text = title.strip().lower()
    names = [catalogue[s].name.lower() for s in specialists_of(plan)]
    return (
        3 <= len(text) <= MAX_TITLE_CHARS
        and not values.echoes_prompt(text)
        and any(n in text for n in names)
    )


def compose(
    plan: PlanLog,
    session_id: str,
    configs: dict[str, dict[str, Any]],
    catalogue: Catalogue,
    title: str,
    sources: dict[str, dict[str, list[int]]] | None = None,
) -> dict[str, Any]:
    """The workflow document; raises ValueError when a specialist has no validated config.

    `sources` (per specialist, `{field: [turn numbers]}`) cites the turns a config came from.
    """
    missing = [s for s in specialists_of(plan) if s not in configs]
    if missing:
        raise ValueError(f"no validated config for {', '.join(missing)}")
    cited = sources or {}
    nodes = [node_entry(s, configs[s], catalogue, cited.get(s)) for s in specialists_of(plan)]
    return {
        "format": FORMAT,
        "workflow_id": workflow_id_for(plan.plan_id),
        "session_id": session_id,
        "plan_id": plan.plan_id,
        "title": (title.strip() or heuristic_title(plan, catalogue))[:MAX_TITLE_CHARS],
        "trigger": trigger_of(nodes),
        "schedule": schedule_of(configs),
        "nodes": nodes,
        "edges": [{"from": a["id"], "to": b["id"]} for a, b in pairwise(nodes)],
        "created_at": plan.created_at,
    }


def node_entry(
    specialist: str,
    config: dict[str, Any],
    catalogue: Catalogue,
    sources: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    """One node of the document; `sources` only when some value cites a turn."""
    entry = catalogue[specialist]
    node = {
        "id": specialist,
        "specialist": specialist,
        "kind": entry.kind,
        "role": entry.role,
        "config": config,
    }
    return node | {"sources": sources} if sources else node


def trigger_of(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """What starts the workflow: the first trigger node, the schedule, or the user."""
    first = next((n for n in nodes if n["role"] == "trigger"), None)
    if first is None:
        return {"kind": "manual", "node": None}
    return {
        "kind": "schedule" if first["specialist"] == SCHEDULER else "event",
        "node": first["id"],
    }


def schedule_of(configs: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The scheduler's cron and time zone, when the workflow runs on a schedule."""
    config = configs.get(SCHEDULER)
    return {"cron": config["cron"], "timezone": config.get("timezone", "UTC")} if config else None
