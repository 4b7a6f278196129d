"""Replicas in the topology: parsing `--replicas`, partitions to match, process names; and the
bench's saturation search."""

from __future__ import annotations

import pytest

from planwire import bench
from planwire.specs import (
    RUNNERS,
    consumed_topics,
    embedded_services,
    embedded_topics,
    parse_replicas,
    replica_of,
    replicated,
    scaled_topics,
)
from schemas.topics import DEFAULT_PARTITIONS, Topic, all_topics, run_step_topic


def test_replicas_are_parsed_and_bad_ones_named():
    assert parse_replicas("annotator=4, specialist=2") == {"annotator": 4, "specialist": 2}
    assert parse_replicas("") == {}
    with pytest.raises(ValueError, match="no service 'annotater'"):
        parse_replicas("annotater=2")
    for bad in ("annotator=0", "annotator=two", "annotator"):
        with pytest.raises(ValueError, match="whole count of 1 or more"):
            parse_replicas(bad)


def test_topics_a_replicated_service_reads_get_a_partition_per_replica():
    topics = [Topic("trimmer.context-trimmed.v1", 4), Topic("gmail.run-step.v1", 4), Topic("x", 1)]
    assert "trimmer.context-trimmed.v1" in consumed_topics("annotator")
    assert "gmail.run-step.v1" in consumed_topics("specialist")  # a command: every runner
    scaled = {
        t.name: t.partitions for t in scaled_topics(topics, {"annotator": 6, "specialist": 2})
    }
    assert scaled == {"trimmer.context-trimmed.v1": 6, "gmail.run-step.v1": 4, "x": 1}


def test_the_embedded_stack_gives_each_topic_one_partition_until_replicas_need_more():
    runner_topics = {run_step_topic(r).name for r in RUNNERS}
    single = {t.name: t.partitions for t in embedded_topics({})}
    assert single.keys() == {t.name for t in all_topics(RUNNERS)}  # every topic, none lost
    assert set(single.values()) == {1}  # one consumer per service reads each
    two = {t.name: t.partitions for t in embedded_topics({"specialist": 2, "annotator": 6})}
    assert {two[name] for name in runner_topics} == {2}  # a second step runtime gets its share
    assert two["trimmer.context-trimmed.v1"] == 6  # an annotator topic, one per replica
    assert two["gateway.turn-received.v1"] == 1  # nothing replicated reads it
    # Deployed, every topic keeps its declared count (compose, Kubernetes).
    assert {t.partitions for t in all_topics(RUNNERS) if not t.name.endswith(".dlq")} == {
        DEFAULT_PARTITIONS
    }


def test_replicas_are_more_processes_of_the_same_module():
    specs = replicated(embedded_services(), {"annotator": 3})
    annotators = [s for s in specs if replica_of(s.name, "annotator")]
    assert [s.name for s in annotators] == ["annotator", "annotator-2", "annotator-3"]
    assert {(s.module, s.args) for s in annotators} == {("services.annotator.main", ())}
    assert len(specs) == len(embedded_services()) + 2
    assert not replica_of("annotator-x", "annotator") and not replica_of("gateway", "annotator")


async def test_saturation_doubles_sessions_until_throughput_stops_growing(monkeypatch):
    rates = {2: 10.0, 4: 18.0, 8: 24.0, 16: 24.5, 32: 30.0}
    tried = []

    async def measure(_stack, sessions, _turns):
        tried.append(sessions)
        return {"sessions": sessions, "turns_per_s": rates[sessions]}

    monkeypatch.setattr(bench, "measure_load", measure)
    loads = [{"sessions": 1, "turns_per_s": 5.0}, {"sessions": 2, "turns_per_s": 10.0}]
    found = await bench._saturate(None, loads, 3)
    assert tried == [4, 8, 16]  # 16 adds under 5% over 8: stop
    assert found == {"saturation_turns_per_s": 24.0, "saturation_sessions": 8}
    assert [load["sessions"] for load in loads] == [1, 2, 4, 8, 16]
