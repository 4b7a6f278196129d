"""Earlier turns the trimmer dropped, recalled from the indexer's outline for this turn's prompt.

Kept apart from the annotator's rules: it only adds a labelled reference block to the model's
prompt (the notes' rules never read it).
"""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import ContextTrimmed
from shared import recall
from state import outline as outline_record

# Small: every prompt token costs ~7 ms on the 2-core local model.
BUDGET_TOKENS = 120


async def earlier_block(redis: Redis, context: ContextTrimmed, mentions: list[str]) -> str:
    """The labelled block of recalled turns (ending in a blank line), or "" when none relate.

    `mentions`: the ids the turn's message names (`find_mentions`), which the caller has
    already parsed for its prompt: the parse is most of a turn's matching, done once."""
    if not context.dropped_units:
        return ""
    outline, turns = await outline_record.read(redis, context.session_id)
    shown = {m.turn_id for m in context.messages}
    passages = recall.passages_of(outline, turns, exclude=shown)
    found = recall.recall(passages, context.user_text, mentions, BUDGET_TOKENS)
    block = recall.earlier_block(found)
    return block + "\n\n" if block else ""
