"""Infrastructure settings every service reads from `PLANWIRE_*` environment variables."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class InfraSettings(BaseSettings):
    """Where the broker and Redis are, how to consume, where to serve HTTP."""

    model_config = SettingsConfigDict(env_prefix="PLANWIRE_", extra="ignore")

    kafka_bootstrap: str = "127.0.0.1:9092"
    # How Kafka clients connect (shared/kafka_security.py). PLAINTEXT: the embedded broker,
    # and a private network; SASL needs a username and password (a Secret in Kubernetes).
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    kafka_sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] = "SCRAM-SHA-512"
    kafka_sasl_username: str = ""
    kafka_sasl_password: SecretStr = SecretStr("")
    # PEM file of the CA that signed the broker's certificate; empty: the system's CAs.
    kafka_tls_ca_file: str = ""
    redis_url: str = "redis://127.0.0.1:6379/0"
    # Valkey's `requirepass`, kept out of the URL so a ConfigMap can hold the URL and a Secret
    # the password; a password in the URL itself wins. `rediss://` URLs speak TLS, with
    # redis-py's query options (`?ssl_ca_certs=/path/ca.pem`), docs/security.md.
    redis_password: SecretStr | None = None
    # Connections one process may hold; more requests wait for one (shared/redis.py).
    redis_max_connections: int = 64
    # A command whose connection broke (Redis restarted, failed over) is resent this many
    # times on a new connection before the handler or request sees the error.
    redis_retries: int = 3
    # Tansu does not wake long polls on new data: latency tracks this wait, so the
    # embedded stack sets it to a few milliseconds; a real Kafka can keep the default.
    fetch_max_wait_ms: int = 500
    # The consumers a user's turn waits on (`turn_path` in schemas/topology.py) may poll
    # more often than the rest: on a broker that does not wake long polls, latency goes to
    # the few hops a user waits for and idle polling stays with the many that nobody waits
    # on. Unset: fetch_max_wait_ms everywhere.
    turn_fetch_max_wait_ms: int | None = None
    # After `quiet_after_s` without a message consumed or published, every consumer of the
    # process fetches with this wait instead, until the next message (shared/pace.py): an idle
    # stack stops polling fast and only the first turn after a quiet spell pays for it. Unset:
    # the waits above at all times (a broker that wakes parked fetches needs nothing else).
    quiet_fetch_max_wait_ms: int | None = None
    quiet_after_s: float = 120.0
    # aiokafka's `fetcher_timeout`: its fetch routine, which every fetch response, consumed
    # record, seek and rebalance already wakes, also wakes this often to look for work. Its
    # default 200 ms is five wake-ups a second per consumer on an idle service (shared/pace.py).
    fetcher_timeout_ms: int = 1000
    # Tansu completes a consumer-group join after about half the session timeout, and
    # reassigns a dead consumer's partitions after it: the embedded stack lowers both.
    consumer_session_timeout_ms: int = 10_000
    consumer_heartbeat_ms: int = 3_000
    partitions: int = 4
    # Settled messages' offsets are committed together this long after the first of them,
    # not one broker round trip per message (shared/commits.py); 0: commit each at once.
    commit_interval_ms: int = 200
    # A service that calls a model runs up to this many messages of different sessions at
    # once in each consumer, each session's in order (shared/lanes.py); 1: one at a time.
    # Needs deferred commits (commit_interval_ms > 0).
    key_concurrency: int = 8
    # Durable by default (docs/reliability.md): a publish counts once every in-sync replica
    # has it, and the idempotent producer keeps a retried send from writing it twice. The
    # embedded Tansu broker rejects idempotent producers (InitProducerId), so the embedded
    # stack turns idempotence off; exactly-once effects come from the handlers anyway.
    kafka_acks: Literal["all", "1", "0"] = "all"
    kafka_idempotence: bool = True
    # Topics as created by `ensure_topics` (stack start, compose kafka-init, k8s Job): three
    # copies, and a write needs two of them, so one broker may be lost without losing data.
    topic_replication: int = 3
    topic_min_insync_replicas: int = 2
    max_message_bytes: int = 256 * 1024
    # Transient handler failures (shared/retry.py): tries per delivery, then the offset is
    # rewound; waits grow from backoff to max_backoff with jitter; after give_up seconds of
    # failing on one message it is dead-lettered as "exhausted".
    handler_attempts: int = 3
    handler_backoff_s: float = 0.2
    handler_max_backoff_s: float = 5.0
    handler_give_up_s: float = 900.0
    # A handler's claim on an event (shared/idempotency.py): renewed every third of this
    # while it runs; after a crash the redelivered event waits at most this long.
    claim_lease_s: float = 15.0
    http_host: str = "127.0.0.1"
    http_port: int = 8000
    # Peers whose X-Forwarded-For / X-Forwarded-Proto are believed (addresses or CIDRs, e.g.
    # `["10.0.0.0/8"]`; `["*"]` believes anyone): the client address (failed-login throttle,
    # logs) and the scheme (the cookie's `Secure`) then come from those headers. Anyone else's
    # are ignored, or any client could pick its own address. Loopback only by default.
    trusted_proxies: list[str] = ["127.0.0.1", "::1"]
    # Prometheus's /metrics is served on this port of `http_host`, never on the API port:
    # the API port may be public and metrics are unauthenticated (docs/security.md). Unset:
    # no metrics served (a process started by hand, a test); deployments and the embedded
    # stack set it.
    metrics_port: int | None = None
    dedupe_ttl_s: int = 7 * 24 * 3600
    session_ttl_s: int = 30 * 24 * 3600
    # How much context model calls are given (shared/policy.py reads it where prompts are
    # built); declared here too so a misspelt value stops the service at start-up.
    context_policy: Literal["default", "naive"] = "default"
    log_level: str = "INFO"
    log_format: str = "text"  # "json" in containers: one object a line (shared/logs.py)

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_addresses(cls, proxies: list[str]) -> list[str]:
        """uvicorn takes a mistyped entry as a literal that never matches, silently; a typo
        here stops the service at start instead."""
        for proxy in proxies:
            if proxy != "*":
                ipaddress.ip_network(proxy, strict=False)  # ValueError names the entry
        return proxies

    @model_validator(mode="after")
    def _sasl_has_a_login(self) -> InfraSettings:
        """SASL without a username or password would fail at the first connection, over
        and over; stop at start instead, naming the settings."""
        sasl = self.kafka_security_protocol.startswith("SASL")
        if sasl and not (self.kafka_sasl_username and self.kafka_sasl_password.get_secret_value()):
            raise ValueError(
                f"PLANWIRE_KAFKA_SECURITY_PROTOCOL={self.kafka_security_protocol} needs "
                "PLANWIRE_KAFKA_SASL_USERNAME and PLANWIRE_KAFKA_SASL_PASSWORD"
            )
        return self
