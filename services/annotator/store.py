"""The annotator's store: it alone writes the notes (`state.notes`)."""

from __future__ import annotations

from state.notes import NotesWriter


class NotesStore(NotesWriter):
    """Reads and compare-and-sets one session's notes."""
