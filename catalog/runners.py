"""Every step runner: one per catalogue entry, then the fixed ones (composer, save, summarizer).

Each has its own `<runner>.run-step.v1` command topic and, deployed, its own consumer group
`specialist.<runner>`; the stack creates the topics and the lag exporter watches the groups.
The list is read off the catalogue, which is why it lives here and not in the contracts.
"""

from __future__ import annotations

from catalog.model import Catalogue, load_catalogue
from schemas.plan import FIXED_RUNNERS


def step_runners(catalogue: Catalogue | None = None) -> list[str]:
    """Every runner id, in topic order: the catalogue's ids, then `FIXED_RUNNERS`."""
    return [*(catalogue or load_catalogue()).ids, *FIXED_RUNNERS]
