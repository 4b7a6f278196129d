"""The trimmer's store: it writes the transcript (`state.transcript`) and reads the phase."""

from __future__ import annotations

from schemas.turn import ChatMessage
from state import session, transcript
from state.transcript import TranscriptWriter


class TranscriptStore(TranscriptWriter):
    """Appends to and reads one session's transcript; reads its phase."""

    async def read(self, session_id: str) -> list[ChatMessage]:
        """The stored window of the transcript, in conversation order."""
        return await transcript.read(self.redis, session_id)

    async def add_user_and_read(
        self, session_id: str, turn_seq: int, message: ChatMessage, known_phase: str | None = None
    ) -> tuple[list[ChatMessage], str]:
        """Record the user's message once, then read the transcript and the phase: one round
        trip (an absent phase reads as gathering, as a new session starts). The phase the
        gateway read when it took the turn (`known_phase`) is not read again."""
        key = None if known_phase else session.phase_key(session_id)
        history, phase = await self.add_user_and_read_with(session_id, turn_seq, message, key)
        return history, known_phase or phase or "gathering"

    async def phase(self, session_id: str) -> str:
        """The session's phase as the gateway and the phase owners left it."""
        return await session.phase(self.redis, session_id)
