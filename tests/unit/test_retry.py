"""Which failures are retried, which are parked, and how long a retry waits."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import BaseModel, ValidationError

from shared.idempotency import AlreadyProcessed, HeldElsewhere
from shared.retry import RetryPolicy, classify


class Shape(BaseModel):
    n: int


def schema_error() -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Shape.model_validate({"n": "not a number"})
    return caught.value


def test_bytes_that_can_never_be_a_message_are_poison():
    assert classify(schema_error()) == "poison"
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(b"{not json")
    assert classify(caught.value) == "poison"


def test_infrastructure_and_model_failures_are_retried_not_parked():
    for exc in (
        ConnectionError("redis down"),
        TimeoutError("model timed out"),
        HeldElsewhere("e1"),
        RuntimeError("the run kept changing"),
        KeyError("a bug is retried too: fixing it and redeploying must not lose the turn"),
    ):
        assert classify(exc) == "retriable", exc


def test_an_event_whose_effect_is_stored_is_a_duplicate():
    assert classify(AlreadyProcessed("e1")) == "duplicate"


def test_waits_grow_exponentially_are_jittered_and_capped():
    policy = RetryPolicy(backoff_s=0.2, max_backoff_s=5.0)
    rng = random.Random(7)
    for failures, ceiling in ((1, 0.2), (2, 0.4), (3, 0.8), (6, 5.0), (30, 5.0)):
        waits = [policy.wait_s(failures, rng) for _ in range(200)]
        assert all(0 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling * 0.8  # spread over the range: full jitter, not fixed
        assert len({round(w, 6) for w in waits}) > 150
