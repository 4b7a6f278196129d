"""The lag exporter watches each service's one group, never the groups it retired."""

from __future__ import annotations

from aiokafka.structs import OffsetAndMetadata

from schemas.topology import SERVICES
from services.lag.main import FORMER, LagSampler, declared_groups

TURNS = "gateway.turn-received.v1"


def test_each_service_is_watched_in_one_group_that_reads_all_its_topics():
    groups = declared_groups()
    for node in SERVICES:
        topics = [c.event.topic.name for c in node.consumes if c.event.topic is not None]
        if topics:
            assert groups[node.name] == topics
    assert "trimmer.turns" in FORMER and not FORMER & set(groups)


class Broker:
    """What the sampler asks the broker: topics, offsets, groups and their commits."""

    def __init__(self, commits: dict[str, int]) -> None:
        self.commits = commits  # group -> committed offset on TURNS partition 0

    async def topics(self) -> set[str]:
        return {TURNS}

    def partitions_for_topic(self, topic: str) -> set[int]:
        return {0}

    async def end_offsets(self, partitions):
        return dict.fromkeys(partitions, 10)

    async def beginning_offsets(self, partitions):
        return dict.fromkeys(partitions, 0)

    async def list_consumer_groups(self):
        return [(group, "consumer") for group in self.commits]

    async def list_consumer_group_offsets(self, group, partitions):
        offset = self.commits.get(group, -1)
        return {tp: OffsetAndMetadata(offset, "") for tp in partitions}


async def test_a_retired_group_the_broker_still_knows_is_not_reported():
    broker = Broker({"trimmer": 7, "trimmer.turns": 3, "indexer": 10})
    sampler = LagSampler("unused:9092", discovered_only=True)
    sampler.admin = sampler.offsets = broker  # type: ignore[assignment]

    lags = await sampler.sample()

    assert lags[("trimmer", TURNS)] == 3
    assert ("trimmer.turns", TURNS) not in lags  # nobody reads there: its lag would only grow
    assert lags[("indexer", TURNS)] == 0
