"""The transcript, written by the trimmer: a sorted set ordered by turn, idempotent.

  pw:{sid}:transcript        sorted set of `<message id>|<ChatMessage JSON>` (the codec
                             below), score = 2 x turn position (+1 for the turn's reply)
  pw:{sid}:transcript:ids    set of message ids already appended
  pw:{sid}:transcript:turns  hash turn id -> score of that turn's user message

Replies arrive on their own topic, so one can be consumed after the next user message;
ordering by (turn position, user before assistant) keeps change units right regardless.

Bounded: a writer given `keep_turns` keeps only the newest `keep_turns` turns (each user
message with its replies). Appending a user message drops the older entries from all three
keys in the same script, so every read costs the window, never the whole session. A dropped
turn stays retrievable: the indexer keeps each turn's words in `state.outline`, and recall
(`shared.recall`) brings back the ones a prompt needs. An append refreshes the TTLs once per window (`shared/ttl.py`).
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from schemas.turn import ChatMessage
from shared.redis import RedisStore, session_key, text_list, text_or_none

WRITERS = {"TranscriptWriter": {"trimmer"}}

# KEYS: transcript zset, seen-ids set, turn->position hash. ARGV: message id, message JSON,
# score, ttl (0: the TTLs are still fresh, shared/ttl.py), turn id (user messages record
# their turn's position), turns kept (0: all). Entries of turns older than the newest ARGV[6]
# leave all three keys (a redelivered old message is dropped again at once). Returns
# {1 if added else 0, the transcript's entries in order}: the read rides in the same script.
_ADD_ONCE = """
local added = redis.call('SADD', KEYS[2], ARGV[1]) == 1
if added then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1] .. '|' .. ARGV[2])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[3]) end
end
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local keep = tonumber(ARGV[6])
local cutoff = nil
if added and keep > 0 and #all > 0 then
  local top = tonumber(all[#all])
  cutoff = 2 * (math.floor(top / 2) - keep + 1)
  if tonumber(all[2]) >= cutoff then cutoff = nil end
end
local out = {added and 1 or 0}
for i = 1, #all, 2 do
  if cutoff and tonumber(all[i + 1]) < cutoff then
    local id = string.match(all[i], '^([^|]*)')
    redis.call('SREM', KEYS[2], id)
    if string.sub(id, 1, 5) == 'user:' then redis.call('HDEL', KEYS[3], string.sub(id, 6)) end
  else
    out[#out + 1] = all[i]
  end
end
if cutoff then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff) end
-- A first entry is a new transcript: its keys get their TTL now, fresh or not.
if ARGV[4] ~= '0' or (added and #all == 2) then
  local ttl = ARGV[4] ~= '0' and ARGV[4] or ARGV[7]
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
return out
"""

# A reply goes right after the user message of its turn (ARGV[5]), else after the last entry;
# then as _ADD_ONCE without recording a turn. One round trip instead of two or three.
_ADD_REPLY_ONCE = """
local position = redis.call('HGET', KEYS[3], ARGV[5])
local score
local new = false
if position then
  score = tonumber(position) + 1
else
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  new = last[2] == nil
  score = (last[2] and tonumber(last[2]) or 0) + 1
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], score, ARGV[1] .. '|' .. ARGV[2])
if ARGV[4] ~= '0' or new then
  local ttl = ARGV[4] ~= '0' and ARGV[4] or ARGV[6]
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
return 1
"""
GROUP = "transcript"  # the TTL group of the three keys (shared/ttl.py)


def decode(entry: str) -> ChatMessage:
    """One stored entry, `<message id>|<ChatMessage JSON>`, as the message."""
    return ChatMessage.model_validate_json(entry.split("|", 1)[1])


def _keys(session_id: str) -> tuple[str, str, str]:
    """The transcript, its message ids, and each turn's position."""
    return (
        session_key(session_id, "transcript"),
        session_key(session_id, "transcript", "ids"),
        session_key(session_id, "transcript", "turns"),
    )


async def read(redis: Redis, session_id: str, last: int | None = None) -> list[ChatMessage]:
    """The transcript in conversation order: all of it, or its `last` lines."""
    raw = await redis.zrange(_keys(session_id)[0], -last if last else 0, -1)
    return [decode(entry) for entry in text_list(raw)]


async def read_first(redis: Redis, session_id: str) -> ChatMessage | None:
    """The transcript's first message, if any (a session's title)."""
    raw = text_list(await redis.zrange(_keys(session_id)[0], 0, 0))
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

    async def add_reply(self, session_id: str, reply_id: str, message: ChatMessage) -> bool:
        """Record an assistant reply right after the user message of its turn: one round trip."""
        ttl = self.ttl_due(session_id, GROUP)
        args = (f"assistant:{reply_id}", message.model_dump_json(), 0, ttl, message.turn_id)
        added = await self.redis.eval(_ADD_REPLY_ONCE, 3, *_keys(session_id), *args, self.ttl_s)
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
        pipe.eval(_ADD_ONCE, 3, *_keys(session_id), *args, message.turn_id, self._keep, self.ttl_s)
        return ttl

    @property
    def _keep(self) -> int:
        return self.keep_turns or 0
