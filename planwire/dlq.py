"""Dead letters: list them, show them, put them back (`planwire dlq list|show|redrive`).

A dead letter is a message a consumer parked in `<topic>.dlq` (shared/deadletter.py) with
the reason in its headers. The consumer group `planwire-dlq` marks what was redriven: its
committed offset on a dead-letter partition is the first letter not yet put back, so
"pending" is everything after it. A redrive publishes each pending letter, with its key and
a `x-redriven-from` header, to the topic it came from, waits for the broker's ack, and only
then commits: a crash mid-redrive redrives a letter twice at worst, and the consumers'
dedupe (its event id) absorbs that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import OffsetAndMetadata

GROUP = "planwire-dlq"
SUFFIX = ".dlq"


@dataclass(frozen=True)
class Letter:
    """One dead-lettered message and why it was parked."""

    topic: str  # the dead-letter topic
    partition: int
    offset: int
    key: bytes | None
    value: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def origin(self) -> str:
        """The topic the message was consumed from."""
        return self.headers.get("x-dlq-topic") or self.topic.removesuffix(SUFFIX)

    def summary(self, body_chars: int = 160) -> str:
        """One line: where it sits, why, and the start of its body."""
        body = self.value[:body_chars].decode("utf-8", "replace")
        return (
            f"{self.topic}[{self.partition}]@{self.offset} "
            f"reason={self.headers.get('x-dlq-reason', '?')} "
            f"error={self.headers.get('x-dlq-error', '')!r} body={body!r}"
        )

    def as_dict(self) -> dict[str, object]:
        """The letter as JSON-ready data (`planwire dlq show --json`)."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "offset": self.offset,
            "key": self.key.decode("utf-8", "replace") if self.key else None,
            "headers": self.headers,
            "body": self.value.decode("utf-8", "replace"),
        }


def _consumer(bootstrap: str) -> AIOKafkaConsumer:
    return AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=GROUP,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )


async def dlq_topics(consumer: AIOKafkaConsumer) -> list[str]:
    """Every dead-letter topic the broker has."""
    return sorted(t for t in await consumer.topics() if t.endswith(SUFFIX))


async def counts(bootstrap: str) -> dict[str, tuple[int, int]]:
    """Per dead-letter topic: (pending, total ever parked)."""
    consumer = _consumer(bootstrap)
    await consumer.start()
    try:
        found = {}
        for topic in await dlq_topics(consumer):
            parts = _partitions(consumer, topic)
            first, end = await consumer.beginning_offsets(parts), await consumer.end_offsets(parts)
            done = {p: await _committed(consumer, p, first[p]) for p in parts}
            found[topic] = (
                sum(end[p] - done[p] for p in parts),
                sum(end[p] - first[p] for p in parts),
            )
        return found
    finally:
        await consumer.stop()


async def pending(bootstrap: str, topic: str, limit: int | None = None) -> list[Letter]:
    """The letters of `topic` not yet redriven, oldest first per partition."""
    consumer = _consumer(bootstrap)
    await consumer.start()
    try:
        return await _read_pending(consumer, topic, limit)
    finally:
        await consumer.stop()


async def redrive(bootstrap: str, topic: str, limit: int | None = None) -> list[Letter]:
    """Publish pending letters back to their topics, committing each once it was acked."""
    consumer, producer = _consumer(bootstrap), AIOKafkaProducer(bootstrap_servers=bootstrap)
    await consumer.start()
    await producer.start()
    try:
        letters = await _read_pending(consumer, topic, limit)
        for letter in letters:
            headers = [("x-redriven-from", f"{letter.topic}@{letter.offset}".encode())]
            await producer.send_and_wait(
                letter.origin, letter.value, key=letter.key, headers=headers
            )
            part = TopicPartition(letter.topic, letter.partition)
            await consumer.commit({part: OffsetAndMetadata(letter.offset + 1, "")})
        return letters
    finally:
        await producer.stop()
        await consumer.stop()


def _partitions(consumer: AIOKafkaConsumer, topic: str) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])]


async def _committed(consumer: AIOKafkaConsumer, part: TopicPartition, first: int) -> int:
    committed = await consumer.committed(part)
    return max(committed, first) if committed is not None else first


async def _read_pending(consumer: AIOKafkaConsumer, topic: str, limit: int | None) -> list[Letter]:
    """Read from the group's committed offsets to the current ends (no group join)."""
    await consumer.topics()  # fills the metadata partitions_for_topic reads
    parts = _partitions(consumer, topic)
    if not parts:
        raise LookupError(f"no dead-letter topic {topic!r}")
    consumer.assign(parts)
    first, end = await consumer.beginning_offsets(parts), await consumer.end_offsets(parts)
    letters: list[Letter] = []
    for part in parts:
        position = await _committed(consumer, part, first[part])
        if position >= end[part]:
            continue
        consumer.seek(part, position)
        while position < end[part] and (limit is None or len(letters) < limit):
            batch = await consumer.getmany(part, timeout_ms=2000)
            records = batch.get(part, [])
            if not records:
                break
            for record in records:
                if record.offset >= end[part] or (limit is not None and len(letters) >= limit):
                    break
                headers = {k: v.decode("utf-8", "replace") for k, v in record.headers or ()}
                letters.append(
                    Letter(topic, part.partition, record.offset, record.key, record.value, headers)
                )
            position = records[-1].offset + 1
    return letters


def to_json(letters: list[Letter]) -> str:
    """Letters as a JSON array."""
    return json.dumps([letter.as_dict() for letter in letters], indent=2)
