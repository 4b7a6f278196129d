"""Prometheus metrics for every structured model call (default registry, module level).

Module level because prometheus_client refuses to register a name twice: every backend in
the process shares these series and tells them apart by the `role` label.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

CALLS = Counter(
    "planwire_model_calls_total",
    "Structured model calls, by role and final outcome (ok, repaired, fallback, heuristic).",
    ["role", "outcome"],
)
ATTEMPT_FAILURES = Counter(
    "planwire_model_attempt_failures_total",
    "Failed attempts inside a call, by reason (http_error, timeout, invalid_json, schema, validation).",
    ["role", "reason"],
)
RETRIES = Counter(
    "planwire_model_retries_total",
    "Requests re-sent after a transport failure.",
    ["role"],
)
REPAIRS = Counter(
    "planwire_model_repairs_total",
    "Repair attempts after invalid output, by result (success, failure).",
    ["role", "result"],
)
FALLBACKS = Counter(
    "planwire_model_fallbacks_total",
    "Calls that gave up on the model and returned the caller's fallback.",
    ["role"],
)
LATENCY = Histogram(
    "planwire_model_latency_seconds",
    "Wall time of one structured call, retries and repair included.",
    ["role"],
    # Small local models answer in a fraction of a second; remote ones can take tens.
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
TOKENS = Counter(
    "planwire_model_tokens_total",
    "Tokens reported by the model server, summed over attempts.",
    ["role", "kind"],
)


def record_call(
    role: str, outcome: str, latency_s: float, prompt_tokens: int, completion_tokens: int
) -> None:
    """Record the end of one call: its outcome, latency and token usage."""
    CALLS.labels(role, outcome).inc()
    LATENCY.labels(role).observe(latency_s)
    TOKENS.labels(role, "prompt").inc(prompt_tokens)
    TOKENS.labels(role, "completion").inc(completion_tokens)
    if outcome == "fallback":
        FALLBACKS.labels(role).inc()


COOLDOWNS = Counter(
    "planwire_model_cooldowns_total",
    "Times a role stopped calling the model for a cool-down after consecutive failed calls.",
    ["role"],
)
