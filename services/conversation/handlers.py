"""Conversation handlers: reply to each annotated turn and to unclear confirmations."""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass

from faststream import Context

from catalog import Catalogue
from schemas.confirmation import ReplyClassified
from schemas.envelope import Event
from schemas.turn import MAX_MESSAGE_CHARS, Notes, NotesUpdated, Phase, ReplyDelta, ReplyGenerated
from services.conversation import logic, prompt, store
from shared.handling import HandlerDeps, handles
from shared.metrics import record_overrides
from shared.model import ModelPort
from shared.model.quoting import quoted_user_text
from shared.model.streaming import can_stream, streaming_to
from shared.wiring import Publisher

DELTA_EVERY_S = 0.1  # a streamed reply's pieces after the first go out at most this often


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    model: ModelPort
    catalogue: Catalogue
    replies: Publisher[ReplyGenerated]
    deltas: Publisher[ReplyDelta]
    replied: store.RepliedNotes


@handles("conversation")
async def on_notes_updated(event: NotesUpdated, deps: Deps = Context()) -> None:
    """Ask the next question, or present the confirmation summary when notes are ready."""
    # The annotator carries the notes before this turn; an event from before it did is
    # answered from the conversation's own record.
    before = event.previous or await deps.replied.before(event.session_id, event.notes)
    if event.ready_for_confirmation and await store.enter_confirming(deps.redis, event.session_id):
        text = logic.confirmation_reply(
            event.notes, deps.catalogue, last_reply(event), user_words(event)
        )
        kind, phase = "confirmation", Phase.CONFIRMING
    else:
        text, kind, phase = await question(event, before, deps), "question", Phase.GATHERING
    await reply(event, deps, text, kind, phase)


@handles("conversation", claim=lambda event: event.verdict != "amend")
async def on_reply_classified(event: ReplyClassified, deps: Deps = Context()) -> None:
    """Answer a confirmation reply the classifier could not read, or acknowledge a yes."""
    if event.verdict == "amend":
        return
    if event.verdict == "confirmed":
        await reply(event, deps, logic.CONFIRMED, "summary", Phase.PLANNING)
    else:
        previous = last_reply(event)
        text = logic.unclear_reply(event.context.user_text, previous)
        await reply(event, deps, text, "clarify", Phase.CONFIRMING)


async def question(event: NotesUpdated, before: Notes, deps: Deps) -> str:
    """Code writes the reply (what changed, then the next question); the model may word it,
    and its wording is used only if it is a new question that names no app beyond the notes."""
    previous = last_reply(event)
    fallback = {"text": logic.question_reply(event.notes, previous, deps.catalogue, before)}
    messages = [
        {"role": "system", "content": prompt.SYSTEM},
        {
            "role": "user",
            "content": f"User said {quoted_user_text(event.context.user_text[:400])}\n"
            f"Reply to reword: {fallback['text']}",
        },
    ]
    deltas = Deltas(event, deps) if can_stream(deps.model) else None
    with streaming_to(deltas) if deltas else nullcontext():
        result = await deps.model.structured(
            "conversation", messages, prompt.REPLY_SCHEMA, fallback=lambda: fallback, max_tokens=120
        )
    # What is left unsent goes with the reply itself: a last piece published now could reach
    # the page after the reply (another topic), and the reply replaces the pieces anyway.
    text = str(result.data.get("text", ""))
    if text == fallback["text"]:  # code's own reply (no model, or it gave up): nothing to check
        return text
    if not logic.names_only_noted_apps(text, event.notes, deps.catalogue):
        record_overrides("conversation", ["model_reply_names_app_not_in_notes"])
        return fallback["text"]
    return text if logic.acceptable_question(text, previous) else fallback["text"]


class Deltas:
    """Publishes a streamed reply's pieces as `ReplyDelta`s of the turn, in order.

    The first piece goes out at once (what the user waits for); later ones are gathered and
    sent at most every `DELTA_EVERY_S`, and what is left when the model ends goes with the reply:
    a word a message cost a broker hop, an XADD and an SSE frame each (docs/performance.md
    §23). Ids derive from the cause and the piece's place, so a redelivered turn's pieces
    are the same events; the `ReplyGenerated` that follows replaces them on the page.
    """

    def __init__(self, cause: Event, deps: Deps) -> None:
        self.cause, self.deps, self.sent = cause, deps, 0
        self.pending, self.last_s = "", 0.0

    async def __call__(self, piece: str) -> None:
        """Take the next piece; send what is gathered when it is due."""
        self.pending += piece
        if self.sent == 0 or time.monotonic() - self.last_s >= DELTA_EVERY_S:
            await self.flush()

    async def flush(self) -> None:
        """Send what is gathered, if anything."""
        if not self.pending:
            return
        text, self.pending = self.pending[:MAX_MESSAGE_CHARS], ""
        out = ReplyDelta.caused_by(self.cause, salt=str(self.sent), text=text, index=self.sent)
        self.sent, self.last_s = self.sent + 1, time.monotonic()
        await self.deps.deltas.publish(out, key=out.key())


def last_reply(event: NotesUpdated | ReplyClassified) -> str:
    """What the assistant said last, so the next question is a different one."""
    return next((m.text for m in reversed(event.context.messages) if m.role == "assistant"), "")


async def reply(
    cause: NotesUpdated | ReplyClassified, deps: Deps, text: str, kind: str, phase: Phase
) -> None:
    """Publish the reply the gateway streams to the user."""
    # The turn's place rides on, so the trimmer puts the reply after it without a lookup.
    seq = cause.context.turn_seq
    out = ReplyGenerated.caused_by(cause, text=text, reply_kind=kind, phase=phase, turn_seq=seq)
    await deps.replies.publish(out, key=out.key())


def user_words(event: NotesUpdated) -> str:
    """What the user said in the kept context, this message last: where stated values are."""
    said = [m.text for m in event.context.messages if m.role == "user"]
    if not said or said[-1] != event.context.user_text:
        said.append(event.context.user_text)
    return "\n".join(said)
