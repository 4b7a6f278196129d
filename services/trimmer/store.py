"""The trimmer's store: it writes the transcript (`state.transcript`) and reads the phase."""

from __future__ import annotations

from schemas.turn import ChatMessage
from state import session, transcript
from state.transcript import TranscriptWriter


class TranscriptStore(TranscriptWriter):
    """Appends to and reads one session's transcript; reads its phase."""

    async def read(self, session_id: str) -> list[ChatMessage]:
        """The whole transcript, in conversation order."""
        return await transcript.read(self.redis, session_id)

    async def phase(self, session_id: str) -> str:
        """The session's phase as the gateway and the phase owners left it."""
        return await session.phase(self.redis, session_id)
