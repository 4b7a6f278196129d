"""The trimmer service over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import ChatMessage, ContextTrimmed, ReplyGenerated, TurnReceived
from services.trimmer import handlers
from services.trimmer.main import service
from services.trimmer.store import TranscriptStore
from tests.support.inmemory import TTL, deliver, sent, serving


@pytest_asyncio.fixture
async def trimmer(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        store=TranscriptStore(redis, TTL),
        trimmed=service.publisher_of(ContextTrimmed),
        budget_tokens=1500,
        dedupe_ttl_s=TTL,
    )
    async with serving(service, deps) as broker:
        yield broker
    await redis.aclose()


async def test_a_turn_is_passed_on_once_with_the_reply_before_it(trimmer):
    session_id = f"trim-{uuid.uuid4().hex[:10]}"
    first = TurnReceived(
        session_id=session_id, turn_id="t1", text="Watch Gmail for invoices.", turn_seq=1
    )
    await deliver(trimmer, first)
    await deliver(trimmer, first)  # redelivered: skipped
    await deliver(
        trimmer,
        ReplyGenerated(
            session_id=session_id,
            turn_id="t1",
            text="Which label?",
            reply_kind="question",
            phase="gathering",
        ),
    )
    await deliver(
        trimmer,
        TurnReceived(session_id=session_id, turn_id="t2", text="The invoices label.", turn_seq=2),
    )
    contexts = [c for c in sent(service, ContextTrimmed) if c.session_id == session_id]
    assert [c.user_text for c in contexts] == ["Watch Gmail for invoices.", "The invoices label."]
    assert contexts[-1].messages == [
        ChatMessage(role="user", text="Watch Gmail for invoices.", turn_id="t1"),
        ChatMessage(role="assistant", text="Which label?", turn_id="t1"),
        ChatMessage(role="user", text="The invoices label.", turn_id="t2"),
    ]
    assert contexts[-1].phase == "gathering"


async def test_the_naive_policy_passes_the_whole_history(redis_url, monkeypatch):
    """With a budget the first turns no longer fit, the default trims; naive keeps them all."""
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        store=TranscriptStore(redis, TTL),
        trimmed=service.publisher_of(ContextTrimmed),
        budget_tokens=20,
        dedupe_ttl_s=TTL,
    )
    kept = {}
    try:
        for policy in ("default", "naive"):
            monkeypatch.setenv("PLANWIRE_CONTEXT_POLICY", policy)
            session_id = f"trim-{policy}-{uuid.uuid4().hex[:8]}"
            async with serving(service, deps) as broker:
                for seq in (1, 2, 3):
                    text = f"Turn {seq}: watch Gmail for invoices and post them to Slack."
                    turn = TurnReceived(
                        session_id=session_id, turn_id=f"t{seq}", text=text, turn_seq=seq
                    )
                    await deliver(broker, turn)
                    reply = ReplyGenerated(
                        session_id=session_id,
                        turn_id=f"t{seq}",
                        text="Noted.",
                        reply_kind="question",
                        phase="gathering",
                    )
                    await deliver(broker, reply)  # closes the change unit
                contexts = [c for c in sent(service, ContextTrimmed) if c.session_id == session_id]
            kept[policy] = (len(contexts[-1].messages), contexts[-1].dropped_units)
    finally:
        await redis.aclose()
    assert kept["default"] == (1, 2)  # only the latest unit fits 20 tokens
    assert kept["naive"] == (5, 0)  # three turns and the two replies before the last


async def test_a_redelivered_turn_with_its_phase_is_passed_on_as_the_same_event(trimmer):
    """Unclaimed when the gateway gave the phase: the redelivery's ContextTrimmed is the first
    one again (same event id, same phase), which its one consumer's claim absorbs, and the
    transcript holds the message once."""
    session_id = f"trim-{uuid.uuid4().hex[:10]}"
    turn = TurnReceived(
        session_id=session_id, turn_id="t1", text="Watch Gmail.", turn_seq=1, phase="gathering"
    )
    await deliver(trimmer, turn)
    await deliver(trimmer, turn)
    contexts = [c for c in sent(service, ContextTrimmed) if c.session_id == session_id]
    seen = [(c.event_id, c.phase, [m.text for m in c.messages]) for c in contexts]
    assert seen == [(contexts[0].event_id, "gathering", ["Watch Gmail."])] * 2


def reply_to(session_id: str, seq: int, text: str, carried: bool = True) -> ReplyGenerated:
    """The conversation's reply to turn `seq` (`carried`: with the turn's place on it)."""
    return ReplyGenerated(
        session_id=session_id,
        turn_id=f"t{seq}",
        text=text,
        reply_kind="question",
        phase="gathering",
        turn_seq=seq if carried else None,
    )


async def test_late_and_redelivered_replies_land_once_right_after_their_turns(trimmer, redis_url):
    """Replies come on another topic, so the user's next turns can come first. The reply to
    turn 1 arrives after turn 3, three times (once reworded by a model asked again); the
    reply to turn 2 after it too, as an event from before the turn's place rode on replies.
    Each is read once, as first written, under its own turn."""
    session_id = f"trim-{uuid.uuid4().hex[:10]}"
    for seq, text in ((1, "Watch Gmail."), (2, "Post to Slack."), (3, "Daily.")):
        turn = TurnReceived(session_id=session_id, turn_id=f"t{seq}", text=text, turn_seq=seq)
        await deliver(trimmer, turn)
    late = reply_to(session_id, 1, "Which label?")
    await deliver(trimmer, late)
    await deliver(trimmer, late)  # redelivered
    # The conversation ran again after a crash and a model worded it anew: same event id.
    await deliver(trimmer, late.model_copy(update={"text": "What label, please?"}))
    await deliver(trimmer, reply_to(session_id, 2, "Which channel?", carried=False))
    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        history = await TranscriptStore(redis, TTL).read(session_id)
    finally:
        await redis.aclose()
    assert [(m.role, m.text) for m in history] == [
        ("user", "Watch Gmail."),
        ("assistant", "Which label?"),
        ("user", "Post to Slack."),
        ("assistant", "Which channel?"),
        ("user", "Daily."),
    ]
    contexts = [c for c in sent(service, ContextTrimmed) if c.session_id == session_id]
    assert [c.turn_seq for c in contexts] == [1, 2, 3]  # what the conversation carries on
