"""The time budgets nest: a step outlives its model call, a delivery fits the poll interval."""

from __future__ import annotations

import pytest

from services.dispatcher.main import Settings as DispatcherSettings
from shared.budgets import (
    MAX_POLL_INTERVAL_S,
    STEP_OVERHEAD_S,
    step_timeout_s,
    worst_delivery_s,
    worst_model_call_s,
)
from shared.model.openai_model import OpenAIModel
from shared.retry import RetryPolicy
from shared.settings import InfraSettings

# The default model timeout, and the local model's (planwire/stack.py LOCAL_MODEL_ENV).
MODEL_TIMEOUTS = (30.0, 90.0)


def test_the_budget_counts_the_retries_the_model_client_really_makes():
    import inspect

    defaults = inspect.signature(OpenAIModel.__init__).parameters
    assert (
        worst_model_call_s(30.0)
        == defaults["max_attempts"].default * 30.0
        + (defaults["max_attempts"].default - 1) * defaults["max_backoff_s"].default
    )


@pytest.mark.parametrize("model_timeout_s", MODEL_TIMEOUTS)
def test_a_step_is_never_re_requested_while_its_model_call_may_still_answer(model_timeout_s):
    assert step_timeout_s(model_timeout_s) >= worst_model_call_s(model_timeout_s) + STEP_OVERHEAD_S


def test_the_dispatcher_derives_its_step_timeout_from_the_model_timeout(monkeypatch):
    monkeypatch.delenv("PLANWIRE_STEP_TIMEOUT_S", raising=False)
    monkeypatch.setenv("PLANWIRE_MODEL_TIMEOUT_S", "90")
    settings = DispatcherSettings()
    assert settings.step_timeout_s is None and settings.model_timeout_s == 90
    assert step_timeout_s(settings.model_timeout_s) > 2 * 90  # two timed-out requests fit


@pytest.mark.parametrize("model_timeout_s", MODEL_TIMEOUTS)
def test_the_annotators_worst_delivery_fits_the_poll_interval(model_timeout_s):
    # One annotated turn: one model call (a conflicting write refolds, it does not ask
    # again) and the reads and writes around it.
    handler_worst = worst_model_call_s(model_timeout_s) + STEP_OVERHEAD_S
    policy = RetryPolicy(max_backoff_s=InfraSettings().handler_max_backoff_s)
    worst = worst_delivery_s(handler_worst, policy.max_backoff_s, policy.delivery_budget_s)
    assert worst < MAX_POLL_INTERVAL_S, worst


def test_a_delivery_stops_trying_once_its_budget_is_spent():
    policy = RetryPolicy(attempts=5, delivery_budget_s=10.0)
    assert policy.try_again(1, 2.0) and policy.try_again(4, 9.9)
    assert not policy.try_again(5, 1.0)  # out of tries: rewind
    assert not policy.try_again(1, 10.5)  # out of time: rewind so the consumer polls


def test_a_step_outlives_a_dead_runners_lease_and_the_groups_rejoin():
    # The redelivered command of a killed runner waits out its lease before it runs, ahead
    # of any re-request behind it on the partition.
    settings = InfraSettings()
    rejoin_s = settings.consumer_session_timeout_ms / 1000
    assert step_timeout_s(30.0) > settings.claim_lease_s + rejoin_s
