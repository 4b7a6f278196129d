"""The annotator's store: it alone writes the notes (`state.notes`)."""

from __future__ import annotations

from collections import OrderedDict

from redis.asyncio import Redis

from schemas.turn import Notes
from state.notes import NotesWriter

KEPT_SESSIONS = 10_000  # sessions whose last written notes are kept; beyond, they are read


class NotesStore(NotesWriter):
    """Reads and compare-and-sets one session's notes; remembers the notes it last wrote.

    A session's turns reach the annotator replica that owns its partition, so the notes it
    wrote last are nearly always the stored ones: `latest` returns them without a GET. When
    they are not (another replica wrote, the key expired), the compare-and-set on the
    version fails, `put` forgets them, and the caller reads the stored notes and refolds.
    """

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        super().__init__(redis, ttl_s)
        self._written: OrderedDict[str, Notes] = OrderedDict()

    async def latest(self, session_id: str) -> Notes:
        """The notes this process wrote last for the session, else the stored ones."""
        written = self._written.get(session_id)
        return written.model_copy(deep=True) if written else await self.get(session_id)

    async def put(self, session_id: str, notes: Notes, expected_version: int) -> bool:
        """Compare-and-set the notes; remember them when they were written, forget on a race."""
        written = await super().put(session_id, notes, expected_version)
        if written:
            self._written[session_id] = notes.model_copy(deep=True)
            self._written.move_to_end(session_id)
            while len(self._written) > KEPT_SESSIONS:
                self._written.popitem(last=False)
        else:
            self._written.pop(session_id, None)
        return written
