"""Playing scripted conversations up to the confirmation summary (shared by e2e tests)."""

from __future__ import annotations

import json
from pathlib import Path

from catalog import load_catalogue
from planwire.client import SessionClient
from planwire.evaluate import MAX_NUDGES, NUDGE

CASES_DIR = Path(__file__).resolve().parents[3] / "shared" / "eval" / "cases"
CASES = sorted(CASES_DIR.glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


async def gather(session: SessionClient, turns: list[str]) -> tuple[dict, str]:
    """Send the turns (and the allowed nudges); returns the final state and the last reply."""
    reply = None
    for text in turns:
        reply = await session.say(text)
    for _ in range(MAX_NUDGES):
        if reply.data["phase"] == "confirming":
            break
        reply = await session.say(NUDGE)
    return await session.state(), reply.data["text"]


def check_notes(case: dict, state: dict, summary: str) -> None:
    """Confirming, every expected id noted, no absent id, and the summary names each item."""
    notes = state["notes"]
    noted = set(notes["mentioned_integrations"]) | set(notes["mentioned_tools"])
    expect = case["expect"]
    assert state["phase"] == "confirming", f"{case['id']}: phase {state['phase']}"
    assert set(expect["integrations"] + expect["tools"]) <= noted, (
        f"{case['id']}: noted {sorted(noted)}"
    )
    assert not set(expect["absent"]) & noted, f"{case['id']}: noted {sorted(noted)}"
    catalogue = load_catalogue()
    for item in noted:
        assert catalogue.get(item).name in summary, f"{case['id']}: summary misses {item}"
