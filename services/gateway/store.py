"""The gateway's store: it opens sessions (`state.session`) and owns the outbound stream.

Owned here, private to the gateway:
  pw:{sid}:turns        counter, the next user turn's position
  pw:{sid}:outbox       stream of outbound events (for SSE), capped at STREAM_MAXLEN
  pw:{sid}:outbox:ids   set of event ids already in the stream
Read: the phase and tenant, the notes, the transcript, the outline, the saved workflow, the
run's failure and the token usage, each through its owner's module.

The outbound stream is a Redis stream per session: whichever gateway replica holds a
client's connection reads it, and a reconnecting client resumes after its Last-Event-ID.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis

from schemas.outline import Outline
from shared.model.usage import read_usage
from shared.redis import session_key, text, text_map, text_or_none
from state import notes, outline, run, session, transcript, workflow

# Add an event to the stream once per event id (redeliveries are absorbed); returns its id.
_XADD_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return false end
redis.call('EXPIRE', KEYS[2], ARGV[4])
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'type', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return id
"""
STREAM_MAXLEN = 10_000


class SessionStore:
    """Creates sessions, reads their state, and appends and reads outbound events."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def create(self, session_id: str, tenant: str) -> None:
        """A new session in the gathering phase."""
        await session.open_session(self.redis, session_id, tenant, self.ttl_s)

    async def next_turn(self, session_id: str) -> int:
        """The next turn's position in the session."""
        key = session_key(session_id, "turns")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, self.ttl_s)
            return int((await pipe.execute())[0])

    async def tenant(self, session_id: str) -> str | None:
        """The tenant that owns the session, or None if there is no such session."""
        return await session.tenant(self.redis, session_id)

    async def phase(self, session_id: str) -> str:
        """The session's current phase."""
        return await session.phase(self.redis, session_id)

    async def view(self, session_id: str) -> dict[str, Any]:
        """Phase, notes, transcript and workflow id, as the API returns them."""
        return {
            "session_id": session_id,
            "phase": await session.phase(self.redis, session_id),
            "notes": (await notes.read(self.redis, session_id)).model_dump(),
            "transcript": [m.model_dump() for m in await transcript.read(self.redis, session_id)],
            "workflow_id": await workflow.workflow_id(self.redis, session_id),
            "failure": await run.failure(self.redis, session_id),
            "usage": await read_usage(self.redis, session_id),
        }

    async def outline(self, session_id: str) -> Outline:
        """The indexer's Phase > Topic > Action tree of the session (empty until 4 turns)."""
        return await outline.tree(self.redis, session_id)

    async def workflow(self, workflow_id: str) -> tuple[str, dict[str, Any]] | None:
        """The saved workflow document and its owning session, or None."""
        return await workflow.find(self.redis, workflow_id)

    async def publish_outbound(
        self, session_id: str, event_id: str, event_type: str, data: dict[str, Any]
    ) -> str | None:
        """Append an outbound event once; None when it was already appended."""
        keys = (session_key(session_id, "outbox"), session_key(session_id, "outbox", "ids"))
        args = (event_id, event_type, json.dumps(data, default=str), self.ttl_s, STREAM_MAXLEN)
        return text_or_none(await self.redis.eval(_XADD_ONCE, 2, *keys, *args))

    async def read_outbound(
        self, session_id: str, after: str, block_ms: int
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """Events after stream id `after`, waiting up to `block_ms` for the first one."""
        reply = await self.redis.xread(
            {session_key(session_id, "outbox"): after}, count=100, block=block_ms
        )
        return [
            (entry_id, fields["type"], json.loads(fields["data"]))
            for entry_id, fields in _stream_entries(reply)
        ]


def _stream_entries(reply: Any) -> list[tuple[str, dict[str, str]]]:
    """XREAD's reply for one stream, `[[stream, [(id, fields), ...]]]`, or nothing."""
    if not reply:
        return []
    return [(text(entry_id), text_map(fields)) for entry_id, fields in reply[0][1]]
