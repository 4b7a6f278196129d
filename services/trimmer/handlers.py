"""Trimmer handlers: thin glue between events, the transcript store and the trim rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from faststream import Context

from schemas.turn import ChatMessage, ContextTrimmed, ReplyGenerated, TurnReceived
from services.trimmer import logic
from services.trimmer.store import TranscriptStore
from shared.handling import HandlerDeps, handles
from shared.policy import naive
from shared.wiring import Publisher, Setting


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    store: TranscriptStore
    trimmed: Publisher[ContextTrimmed]
    budget_tokens: Annotated[int, Setting("trim_budget_tokens")]


# Claimed only when the trimmer must read the phase itself. With the gateway's phase on the
# event, a redelivery adds nothing (the transcript keeps a message id once) and republishes
# a ContextTrimmed with the same event id and phase, which the one consumer acting on that
# phase (annotator or classifier) has claimed: the claim's two commands bought nothing. A
# phase read here could have moved on since the first delivery and route the turn anew.
@handles("trimmer", claim=lambda event: event.phase is None)
async def on_turn_received(event: TurnReceived, deps: Deps = Context()) -> None:
    """Append the user's message, trim the history to whole change units, pass it on."""
    message = ChatMessage(role="user", text=event.text, turn_id=event.turn_id or "")
    history, phase = await deps.store.add_user_and_read(
        event.session_id, event.turn_seq, message, event.phase
    )
    # The naive context policy (shared/policy.py) passes the whole stored window on every turn.
    kept, dropped = (history, 0) if naive() else logic.trim(history, deps.budget_tokens)
    # Units the bounded transcript no longer holds were dropped too: readers recall them.
    dropped += logic.outside_window(event.turn_seq, deps.store.keep_turns)
    out = ContextTrimmed.caused_by(
        event,
        user_text=event.text,
        messages=kept,
        dropped_units=dropped,
        phase=phase,
        turn_seq=event.turn_seq,  # rides to the reply, which the transcript places by it
    )
    await deps.trimmed.publish(out, key=out.key())


@handles("trimmer", claim=False)  # add_reply is idempotent by the reply's event id
async def on_reply_generated(event: ReplyGenerated, deps: Deps = Context()) -> None:
    """Record the assistant's reply right after its turn's message, closing the change unit."""
    message = ChatMessage(role="assistant", text=event.text, turn_id=event.turn_id or "")
    await deps.store.add_reply(event.session_id, str(event.event_id), message, event.turn_seq)
