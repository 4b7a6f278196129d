"""The indexer's store: it alone writes the outline (`state.outline`)."""

from __future__ import annotations

from state.outline import OutlineWriter


class OutlineStore(OutlineWriter):
    """Keeps one session's turns and compare-and-sets its outline tree."""
