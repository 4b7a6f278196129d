"""Session records and the per-session outbound event stream, owned by the gateway.

The outbound stream is a Redis stream per session: whichever gateway replica holds a
client's connection reads it, and a reconnecting client resumes after its Last-Event-ID.
"""

from __future__ import annotations

import json

from redis.asyncio import Redis

from schemas.outline import Outline
from schemas.turn import ChatMessage, Notes, Phase
from shared.model.usage import usage_view
from shared.redis import session_key

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
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(session_key(session_id, "tenant"), tenant, ex=self.ttl_s)
            pipe.set(session_key(session_id, "phase"), Phase.GATHERING, ex=self.ttl_s)
            await pipe.execute()

    async def next_turn(self, session_id: str) -> int:
        """The next turn's position in the session."""
        key = session_key(session_id, "turns")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, self.ttl_s)
            return (await pipe.execute())[0]

    async def tenant(self, session_id: str) -> str | None:
        """The tenant that owns the session, or None if there is no such session."""
        return await self.redis.get(session_key(session_id, "tenant"))

    async def phase(self, session_id: str) -> str:
        """The session's current phase."""
        return await self.redis.get(session_key(session_id, "phase")) or Phase.GATHERING

    async def view(self, session_id: str) -> dict:
        """Phase, notes, transcript and workflow id, as the API returns them."""
        phase, notes, transcript, workflow = await self._read_all(session_id)
        return {
            "session_id": session_id,
            "phase": phase or Phase.GATHERING,
            "notes": Notes.model_validate_json(notes).model_dump()
            if notes
            else Notes().model_dump(),
            "transcript": [
                ChatMessage.model_validate_json(m.split("|", 1)[1]).model_dump() for m in transcript
            ],
            "workflow_id": workflow,
            "failure": await self.redis.get(session_key(session_id, "failure")),
            "usage": usage_view(await self.redis.hgetall(session_key(session_id, "usage"))),
        }

    async def _read_all(self, session_id: str) -> list:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(session_key(session_id, "phase"))
            pipe.get(session_key(session_id, "notes"))
            pipe.zrange(session_key(session_id, "transcript"), 0, -1)
            pipe.get(session_key(session_id, "workflow"))
            return await pipe.execute()

    async def outline(self, session_id: str) -> Outline:
        """The indexer's Phase > Topic > Action tree of the session (empty until 4 turns)."""
        raw = await self.redis.get(session_key(session_id, "outline"))
        return Outline.model_validate_json(raw) if raw else Outline()

    async def workflow(self, workflow_id: str) -> tuple[str, dict] | None:
        """The saved workflow document and its owning session, or None."""
        session_id = await self.redis.get(f"pw:workflow:{{{workflow_id}}}")
        raw = (
            await self.redis.get(session_key(session_id, "workflow", "doc")) if session_id else None
        )
        return (session_id, json.loads(raw)) if raw else None

    async def publish_outbound(
        self, session_id: str, event_id: str, event_type: str, data: dict
    ) -> str | None:
        """Append an outbound event once; None when it was already appended."""
        keys = (session_key(session_id, "outbox"), session_key(session_id, "outbox", "ids"))
        args = (event_id, event_type, json.dumps(data, default=str), self.ttl_s, STREAM_MAXLEN)
        return await self.redis.eval(_XADD_ONCE, 2, *keys, *args)

    async def read_outbound(
        self, session_id: str, after: str, block_ms: int
    ) -> list[tuple[str, str, dict]]:
        """Events after stream id `after`, waiting up to `block_ms` for the first one."""
        reply = await self.redis.xread(
            {session_key(session_id, "outbox"): after}, count=100, block=block_ms
        )
        entries = reply[0][1] if reply else []
        return [
            (entry_id, fields["type"], json.loads(fields["data"])) for entry_id, fields in entries
        ]
