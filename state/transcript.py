"""The transcript, written by the trimmer: a sorted set ordered by turn, idempotent.

  pw:{sid}:transcript        sorted set of `<message id>|<ChatMessage JSON>` (the codec
                             below), score = 2 x turn position (+1 for the turn's reply)

Replies arrive on their own topic, so one can be consumed after the next user message;
ordering by (turn position, user before assistant) keeps change units right regardless. A
reply's event carries its turn's position (`ReplyGenerated.turn_seq`), so its score needs no
lookup; one from before it did is put after its turn's message, found in the window by the
turn id.

Each entry is added once. A redelivered user message is the same member (the same id and
words at the same score), which ZADD does not add twice; a reply is looked for by its id
among its turn's entries (one ZRANGE of a score or two) before it is added, as a model asked
again may word it differently. Until docs/performance.md §25 a set of message ids and a
hash of turn -> position did this, at an SADD and an HSET a user message and an HGET and an
SADD a reply; older versions' `transcript:ids` and `transcript:turns` are left to their TTLs.

Bounded: a writer given `keep_turns` keeps only the newest `keep_turns` turns (each user
message with its replies). Appending a user message drops the older entries in the same
script, so every read costs the window, never the whole session. A dropped turn stays
retrievable: the indexer keeps each turn's words in `state.outline`, and recall
(`shared.recall`) brings back the ones a prompt needs. An append refreshes the TTL once per
window (`shared/ttl.py`); a write that may have made the key gives it its TTL then: a user
message that is the first entry, a reply that does not find its turn's message.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from schemas.turn import ChatMessage
from shared.redis import RedisStore, session_key, text_list, text_or_none

WRITERS = {"TranscriptWriter": {"trimmer"}}

# KEYS: the transcript. ARGV: message id, message JSON, score, ttl (0: the TTL is still
# fresh, shared/ttl.py), turns kept (0: all), the session TTL. Entries of turns older than
# the newest ARGV[5] leave (a redelivered old message is dropped again at once). Returns
# {1 if added else 0, the transcript's entries in order}: the read rides in the same script.
_ADD_ONCE = """
local added = redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1] .. '|' .. ARGV[2]) == 1
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local keep = tonumber(ARGV[5])
local cutoff = nil
if added and keep > 0 and #all > 0 then
  local top = tonumber(all[#all])
  cutoff = 2 * (math.floor(top / 2) - keep + 1)
  if tonumber(all[2]) >= cutoff then cutoff = nil end
end
local out = {added and 1 or 0}
for i = 1, #all, 2 do
  if not cutoff or tonumber(all[i + 1]) >= cutoff then out[#out + 1] = all[i] end
end
if cutoff then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff) end
-- A first entry is a new transcript: it gets its TTL now, fresh or not.
if ARGV[4] ~= '0' or (added and #all == 2) then
  redis.call('EXPIRE', KEYS[1], ARGV[4] ~= '0' and ARGV[4] or ARGV[6])
end
return out
"""

# ARGV: reply id, JSON, the turn's user score (0: unknown), ttl as above, turn id, the
# session TTL. With the score, only the turn's two scores are read; without it (an event
# from before the turn's position rode on replies) the window, and the reply goes right
# after its turn's user message, else after the last entry. A reply whose turn's message is
# not there may have made the key (Valkey lost its data): it gets its TTL. Returns 1 if added.
_ADD_REPLY_ONCE = """
local at = tonumber(ARGV[3])
local near
if at > 0 then
  near = redis.call('ZRANGE', KEYS[1], at, at + 1, 'BYSCORE', 'WITHSCORES')
else
  near = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
end
local mine, user = ARGV[1] .. '|', 'user:' .. ARGV[5] .. '|'
local score = nil
for i = 1, #near, 2 do
  if string.sub(near[i], 1, #mine) == mine then return 0 end
  if string.sub(near[i], 1, #user) == user then score = tonumber(near[i + 1]) + 1 end
end
local found = score ~= nil
if not found then
  score = at > 0 and at + 1 or ((near[#near] and tonumber(near[#near]) or 0) + 1)
end
redis.call('ZADD', KEYS[1], score, mine .. ARGV[2])
if ARGV[4] ~= '0' or not found then
  redis.call('EXPIRE', KEYS[1], ARGV[4] ~= '0' and ARGV[4] or ARGV[6])
end
return 1
"""
GROUP = "transcript"  # the TTL group of the key (shared/ttl.py)


def decode(entry: str) -> ChatMessage:
    """One stored entry, `<message id>|<ChatMessage JSON>`, as the message."""
    return ChatMessage.model_validate_json(entry.split("|", 1)[1])


def _key(session_id: str) -> str:
    """The transcript's sorted set."""
    return session_key(session_id, "transcript")


async def read(redis: Redis, session_id: str, last: int | None = None) -> list[ChatMessage]:
    """The transcript in conversation order: all of it, or its `last` lines."""
    raw = await redis.zrange(_key(session_id), -last if last else 0, -1)
    return [decode(entry) for entry in text_list(raw)]


async def read_first(redis: Redis, session_id: str) -> ChatMessage | None:
    """The transcript's first message, if any (a session's title)."""
    raw = text_list(await redis.zrange(_key(session_id), 0, 0))
    return decode(raw[0]) if raw else None


class TranscriptWriter(RedisStore):
    """Appends to one session's transcript, once per message id, keeping the newest
    `keep_turns` turns (None: all of them)."""

    def __init__(self, redis: Redis, ttl_s: int, keep_turns: int | None = None) -> None:
        if keep_turns is not None and keep_turns < 1:
            raise ValueError("keep_turns must be at least 1")
        super().__init__(redis, ttl_s)
        self.keep_turns = keep_turns

    async def add_user(self, session_id: str, turn_seq: int, message: ChatMessage) -> bool:
        """Record the user's message of turn `turn_seq` once; False for a redelivery."""
        added, _ = await self._add_user(session_id, turn_seq, message)
        return added

    async def add_user_and_read_with(
        self, session_id: str, turn_seq: int, message: ChatMessage, phase_key: str | None
    ) -> tuple[list[ChatMessage], str | None]:
        """Record the user's message of turn `turn_seq` once (a redelivery adds nothing), then
        read the transcript and the value at `phase_key` (None: the caller knows the phase,
        nothing more is read): one round trip."""
        if phase_key is None:
            _, entries = await self._add_user(session_id, turn_seq, message)
            return [decode(entry) for entry in entries], None
        async with self.redis.pipeline(transaction=False) as pipe:
            ttl = self._queue_add_user(pipe, session_id, turn_seq, message)
            pipe.get(phase_key)
            reply, phase = await pipe.execute()
        self.ttl_done(session_id, GROUP, ttl)
        return [decode(entry) for entry in text_list(reply[1:])], text_or_none(phase)

    async def add_reply(
        self, session_id: str, reply_id: str, message: ChatMessage, turn_seq: int | None = None
    ) -> bool:
        """Record an assistant reply once, right after the user message of its turn (turn
        `turn_seq`; None: found by the message's turn id): one round trip."""
        ttl = self.ttl_due(session_id, GROUP)
        at = 2 * turn_seq if turn_seq else 0  # the turn's user message's score
        args = (f"assistant:{reply_id}", message.model_dump_json(), at, ttl, message.turn_id)
        added = await self.redis.eval(_ADD_REPLY_ONCE, 1, _key(session_id), *args, self.ttl_s)
        self.ttl_done(session_id, GROUP, ttl)
        return bool(added)

    async def _add_user(
        self, session_id: str, turn_seq: int, message: ChatMessage
    ) -> tuple[bool, list[str]]:
        """The user's message added once, and the transcript's entries after it."""
        async with self.redis.pipeline(transaction=False) as pipe:
            ttl = self._queue_add_user(pipe, session_id, turn_seq, message)
            (reply,) = await pipe.execute()
        self.ttl_done(session_id, GROUP, ttl)
        return bool(reply[0]), text_list(reply[1:])

    def _queue_add_user(
        self, pipe: Pipeline, session_id: str, turn_seq: int, message: ChatMessage
    ) -> int:
        """Queue the add script on `pipe`; returns the TTL it carries (0: none)."""
        ttl = self.ttl_due(session_id, GROUP)
        args = (f"user:{message.turn_id}", message.model_dump_json(), 2 * turn_seq, ttl)
        pipe.eval(_ADD_ONCE, 1, _key(session_id), *args, self._keep, self.ttl_s)
        return ttl

    @property
    def _keep(self) -> int:
        return self.keep_turns or 0
