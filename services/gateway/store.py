"""The gateway's store: it opens sessions (`state.session`) and owns the outbound stream.

Owned here, private to the gateway:
  pw:{sid}:turns        counter, the next user turn's position
  pw:{sid}:outbox       stream of outbound events (for SSE), capped at STREAM_MAXLEN
  pw:{sid}:outbox:ids   set of event ids already in the stream
  pw:tenant:{t}:sessions  the tenant's sessions, newest 50, for the page's list
  pw:sessions:recent    sessions by last activity (bounded), sampled by the phase gauge
  pw:rate:{t}:{kind}:{window}  a tenant's requests in one fixed rate window
  pw:idem:{scope}:{key}  the first answer to an Idempotency-Key
Read: the phase and tenant, the notes, the transcript, the outline, the saved workflow, the
run's failure and the token usage, each through its owner's module.

The outbound stream is a Redis stream per session: whichever gateway replica holds a
client's connection reads it, and a reconnecting client resumes after its Last-Event-ID.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from schemas.outline import Outline
from services.gateway.limits import window
from shared.model.usage import read_usage
from shared.redis import RedisStore, session_key, text, text_list, text_map, text_or_none
from state import notes, outline, run, session, transcript, workflow

# Add an event to the stream once per event id (redeliveries are absorbed); returns its id.
# ARGV[4]: the TTL to refresh, or 0 while it is fresh (shared/ttl.py). The stream is added to
# only where it exists (NOMKSTREAM); one that does not is made by a second XADD, and it and
# its ids set get their TTL then, whatever this process thinks is fresh: a Valkey that lost
# its data never leaves the outbox without a TTL. ARGV[6]: the session TTL.
_XADD_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return false end
local fields = {'MAXLEN', '~', ARGV[5], '*', 'type', ARGV[2], 'data', ARGV[3]}
local id = redis.call('XADD', KEYS[1], 'NOMKSTREAM', unpack(fields))
local ttl = ARGV[4]
if not id then
  id = redis.call('XADD', KEYS[1], unpack(fields))
  ttl = ARGV[6]
end
if ttl ~= '0' then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return id
"""
# Append an event that needs no dedupe (a reply's delta, shown once and superseded by the
# reply): XADD alone, with the same TTL rule. A delta that makes the stream makes the ids
# set beside it (holding only NEW_MARK), so the two keys are always made, and given their
# TTL, together.
_XADD = """
local fields = {'MAXLEN', '~', ARGV[3], '*', 'type', ARGV[1], 'data', ARGV[2]}
local id = redis.call('XADD', KEYS[1], 'NOMKSTREAM', unpack(fields))
local ttl = ARGV[4]
if not id then
  id = redis.call('XADD', KEYS[1], unpack(fields))
  redis.call('SADD', KEYS[2], ARGV[6])
  ttl = ARGV[5]
end
if ttl ~= '0' then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return id
"""
NEW_MARK = "~new"  # a member of a new outbox's ids set that no event id can equal
STREAM_MAXLEN = 10_000
# One fixed-window counter: count this hit, start the window's clock on the first one.
_HIT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""
# Sessions recently active, newest last: what the phase gauge samples instead of a SCAN.
RECENT_KEY = "pw:sessions:recent"
RECENT_MAX = 10_000
# The session's phase and, while it is one of the open phases (ARGV[2..]), the next turn's
# position: one round trip for what a posted message needs. Returns {position or 0, phase}.
_NEXT_TURN_IF_OPEN = """
local phase = redis.call('GET', KEYS[1]) or ARGV[2]
for i = 2, #ARGV do
  if phase == ARGV[i] then
    local position = redis.call('INCR', KEYS[2])
    -- A new counter gets its TTL; `touch` refreshes it with the session's other keys.
    if position == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
    return {position, phase}
  end
end
return {0, phase}
"""
# The same, for a turn posted under an Idempotency-Key (KEYS[3], its remembered record): the
# position is written into the record, so the first request and every retry of it (one that
# found the first died before publishing, or one racing it) publish the same turn, numbered
# once, with the phase it was numbered in. Returns {position or 0, phase}.
_NUMBER_TURN_ONCE = """
local record = cjson.decode(redis.call('GET', KEYS[3]) or '{}')
if record['seq'] then
  return {record['seq'], record['phase'] or redis.call('GET', KEYS[1]) or ARGV[2]}
end
local phase = redis.call('GET', KEYS[1]) or ARGV[2]
for i = 2, #ARGV do
  if phase == ARGV[i] then
    local position = redis.call('INCR', KEYS[2])
    if position == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
    if next(record) ~= nil then
      record['seq'] = position
      record['phase'] = phase
      redis.call('SET', KEYS[3], cjson.encode(record), 'KEEPTTL')
    end
    return {position, phase}
  end
end
return {0, phase}
"""
# Mark a remembered turn published (a retry then only answers), keeping the record's TTL.
_MARK_PUBLISHED = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local record = cjson.decode(raw)
record['published'] = true
redis.call('SET', KEYS[1], cjson.encode(record), 'KEEPTTL')
return 1
"""
SESSION_LIST_MAX = 50
OWNER_MEMO_S = 10.0  # how long a session's tenant is taken as known without asking Redis
OWNER_MEMO_MAX = 50_000
OUTBOUND_PAGE = 100  # entries one read of a session's stream returns at most


def idem_key(scope: str, key: str) -> str:
    """Where the first answer to an Idempotency-Key in `scope` is remembered."""
    return f"pw:idem:{{{scope}}}:{hashlib.sha256(key.encode()).hexdigest()}"


def tenant_sessions_key(tenant: str) -> str:
    """The tenant's sessions, newest last, scored by creation time (for the page's list)."""
    return f"pw:tenant:{{{tenant}}}:sessions"


class SessionStore(RedisStore):
    """Creates sessions, reads their state, and appends and reads outbound events."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        super().__init__(redis, ttl_s)
        self._owners: dict[str, tuple[str, float]] = {}  # session -> (tenant, when read)

    async def create(self, session_id: str, tenant: str) -> None:
        """A new session in the gathering phase, listed under its tenant, and recent.

        Its records are made with their TTL (and the ones made later get theirs where they
        are made), so a new session needs none of `touch`'s refreshes until the window ends.
        """
        await session.open_session(self.redis, session_id, tenant, self.ttl_s)
        index = tenant_sessions_key(tenant)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(index, {session_id: time.time()})
            # Bounded: the oldest entries beyond the list's length are dropped.
            pipe.zremrangebyrank(index, 0, -(SESSION_LIST_MAX + 1))
            pipe.expire(index, self.ttl_s)
            await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:  # another hash slot
            self._queue_recent(pipe, session_id)
            await pipe.execute()
        self.fresh.refreshed(session_id, "session")

    async def reachable(self) -> None:
        """Raise now if the session store is down, before a response that cannot say so later
        (an event stream's 200 is sent before its first read)."""
        await self.redis.ping()

    async def touch(self, session_id: str) -> None:
        """Activity: the gateway's session records live another TTL, and the session is recent.

        Once per TTL window (`shared/ttl.py`): between, the records are fresh and the session
        is recent enough for the phase gauge's sample, and a turn sends nothing. Every other
        record is refreshed by its owner when it writes (trimmer, annotator, ...).
        """
        if not self.fresh.due(session_id, "session"):
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            session.refresh(pipe, session_id, self.ttl_s)
            for key in (
                session_key(session_id, "turns"),
                session_key(session_id, "outbox"),
                session_key(session_id, "outbox", "ids"),
            ):
                pipe.expire(key, self.ttl_s)
            self._queue_recent(pipe, session_id)
            await pipe.execute()
        self.fresh.refreshed(session_id, "session")

    def _queue_recent(self, pipe: Pipeline, session_id: str) -> None:
        """Queue on `pipe`: the session is active now (the bounded recent set)."""
        now = time.time()
        pipe.zadd(RECENT_KEY, {session_id: now})
        pipe.zremrangebyscore(RECENT_KEY, "-inf", now - self.ttl_s)
        pipe.zremrangebyrank(RECENT_KEY, 0, -RECENT_MAX - 1)

    async def recent_sessions(self, limit: int = RECENT_MAX) -> list[str]:
        """Ids of the sessions active within the TTL, newest first, at most `limit`."""
        return text_list(await self.redis.zrevrange(RECENT_KEY, 0, limit - 1))

    async def hit(self, tenant: str, kind: str, limit: int, period_s: int) -> int | None:
        """Count one `kind` request of `tenant`; seconds until allowed again when over `limit`."""
        index, left = window(time.time(), period_s)
        key = f"pw:rate:{{{tenant}}}:{kind}:{index}"
        count = int(await self.redis.eval(_HIT, 1, key, period_s + 1))
        return left if count > limit else None

    async def remember(
        self, scope: str, key: str, record: dict[str, Any], ttl_s: int
    ) -> dict[str, Any] | None:
        """Store `record` under an Idempotency-Key unless one is there; returns the earlier one."""
        earlier = await self.redis.set(
            idem_key(scope, key), json.dumps(record), nx=True, ex=ttl_s, get=True
        )
        found: dict[str, Any] | None = (
            json.loads(earlier) if isinstance(earlier, (str, bytes)) else None
        )
        return found

    async def forget(self, scope: str, key: str) -> None:
        """Drop an Idempotency-Key whose request failed, so a retry runs again."""
        await self.redis.delete(idem_key(scope, key))

    async def mark_published(self, scope: str, key: str) -> None:
        """The remembered turn under this key was published: a retry only answers now."""
        await self.redis.eval(_MARK_PUBLISHED, 1, idem_key(scope, key))

    async def sessions_of(self, tenant: str) -> list[dict[str, Any]]:
        """The tenant's live sessions, newest first: id, created, phase, first words."""
        entries = cast(
            "list[tuple[bytes | str, float]]",
            await self.redis.zrevrange(tenant_sessions_key(tenant), 0, -1, withscores=True),
        )
        listed = []
        for raw_id, created in entries:
            session_id = text(raw_id)
            if await session.tenant(self.redis, session_id) != tenant:  # expired since listed
                continue
            # The first turn's words: the outline keeps them after the bounded transcript
            # has dropped the turn; before the indexer has run, the transcript has them.
            first = await outline.turn(self.redis, session_id, 1) or await transcript.read_first(
                self.redis, session_id
            )
            listed.append(
                {
                    "session_id": session_id,
                    "created": created,
                    "phase": await session.phase(self.redis, session_id),
                    "title": first.text if first else "",
                }
            )
        return listed

    async def next_turn_if_open(
        self, session_id: str, open_phases: Sequence[str], remembered: str | None = None
    ) -> tuple[int | None, str]:
        """The next turn's position and the phase while the phase is open, else (None, phase).

        An absent phase reads as the first of `open_phases` (a session starts gathering).
        With `remembered` (an Idempotency-Key's record, see `idem_key`), the turn is numbered
        once for the key: a retry gets the position and the phase the first request took, so
        a turn it republishes is the same event, routed the same way, even when that first
        publication already moved the phase (a confirmation summary sent meanwhile).
        """
        keys = [session.phase_key(session_id), session_key(session_id, "turns")]
        if remembered is None:
            script, args = _NEXT_TURN_IF_OPEN, keys
        else:
            script, args = _NUMBER_TURN_ONCE, [*keys, remembered]
        position, phase = await self.redis.eval(script, len(args), *args, self.ttl_s, *open_phases)
        return (int(position) or None), phase

    async def tenant(self, session_id: str) -> str | None:
        """The tenant that owns the session, or None if there is no such session.

        A session's tenant never changes, so an answer is kept for `OWNER_MEMO_S`: a turn's
        requests (the POST, the stream) ask Redis once, not each time. A session that expires
        (30 days idle) is unknown again at most that long after."""
        now = time.monotonic()
        known = self._owners.get(session_id)
        if known is not None and now - known[1] < OWNER_MEMO_S:
            return known[0]
        found = await session.tenant(self.redis, session_id)
        if found is not None:
            if len(self._owners) >= OWNER_MEMO_MAX:
                self._owners.clear()  # bounded; forgetting only costs a read
            self._owners[session_id] = (found, now)
        return found

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
        keys = (outbox_key(session_id), session_key(session_id, "outbox", "ids"))
        ttl = self.ttl_due(session_id, "outbox")
        payload = json.dumps(data, default=str)
        args = (event_id, event_type, payload, ttl, STREAM_MAXLEN, self.ttl_s)
        added = text_or_none(await self.redis.eval(_XADD_ONCE, 2, *keys, *args))
        self.ttl_done(session_id, "outbox", ttl)
        return added

    async def publish_delta(self, session_id: str, event_type: str, data: dict[str, Any]) -> str:
        """Append an event that needs no dedupe (a reply's delta); returns its stream id."""
        keys = (outbox_key(session_id), session_key(session_id, "outbox", "ids"))
        ttl = self.ttl_due(session_id, "outbox")
        args = (event_type, json.dumps(data, default=str), STREAM_MAXLEN, ttl, self.ttl_s)
        added = text(await self.redis.eval(_XADD, 2, *keys, *args, NEW_MARK))
        self.ttl_done(session_id, "outbox", ttl)
        return added

    async def read_outbound(
        self, session_id: str, after: str
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """Events after stream id `after`, without waiting (`outbox.OutboxHub` waits)."""
        reply = await self.redis.xread({outbox_key(session_id): after}, count=OUTBOUND_PAGE)
        return [
            (entry_id, fields["type"], json.loads(fields["data"]))
            for entry_id, fields in _stream_entries(reply)
        ]


def outbox_key(session_id: str) -> str:
    """The session's outbound event stream."""
    return session_key(session_id, "outbox")


def _stream_entries(reply: Any) -> list[tuple[str, dict[str, str]]]:
    """XREAD's reply for one stream, `[[stream, [(id, fields), ...]]]`, or nothing."""
    if not reply:
        return []
    return [(text(entry_id), text_map(fields)) for entry_id, fields in reply[0][1]]
