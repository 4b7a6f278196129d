"""Kafka SASL/TLS from `PLANWIRE_KAFKA_*` (issue 32 item 7): the settings an operator writes
become the security every Kafka client of a process connects with."""

from __future__ import annotations

import ssl

import certifi
import pytest
from aiokafka.admin import AIOKafkaAdminClient
from faststream.kafka.security import parse_security
from pydantic import ValidationError

from shared.bus import make_broker
from shared.kafka_security import kafka_client_options, kafka_security
from shared.settings import InfraSettings

LOGIN = {"PLANWIRE_KAFKA_SASL_USERNAME": "planwire", "PLANWIRE_KAFKA_SASL_PASSWORD": "s3cret"}


def settings(monkeypatch, **env: str) -> InfraSettings:
    """Settings as a service reads them from its environment."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return InfraSettings()


def test_by_default_kafka_is_plaintext_as_the_embedded_broker_speaks_it(monkeypatch):
    plain = settings(monkeypatch)
    assert kafka_security(plain) is None and kafka_client_options(plain) == {}


def test_sasl_ssl_with_scram_verifies_the_brokers_certificate_against_the_ca_file(monkeypatch):
    chosen = settings(
        monkeypatch,
        PLANWIRE_KAFKA_SECURITY_PROTOCOL="SASL_SSL",
        PLANWIRE_KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
        PLANWIRE_KAFKA_TLS_CA_FILE=certifi.where(),
        **LOGIN,
    )
    options = kafka_client_options(chosen)
    assert {k: v for k, v in options.items() if k != "ssl_context"} == {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "planwire",
        "sasl_plain_password": "s3cret",
    }
    context = options["ssl_context"]
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0  # the CA file was loaded


def test_sasl_plaintext_sends_no_tls_and_plain_login_is_possible(monkeypatch):
    chosen = settings(
        monkeypatch,
        PLANWIRE_KAFKA_SECURITY_PROTOCOL="SASL_PLAINTEXT",
        PLANWIRE_KAFKA_SASL_MECHANISM="PLAIN",
        **LOGIN,
    )
    options = kafka_client_options(chosen)
    assert options["security_protocol"] == "SASL_PLAINTEXT" and options["ssl_context"] is None
    assert options["sasl_mechanism"] == "PLAIN"


def test_tls_alone_uses_the_systems_cas(monkeypatch):
    options = kafka_client_options(settings(monkeypatch, PLANWIRE_KAFKA_SECURITY_PROTOCOL="SSL"))
    assert options["security_protocol"] == "SSL"
    assert options["ssl_context"].verify_mode == ssl.CERT_REQUIRED
    assert "sasl_mechanism" not in options


def test_sasl_without_a_login_stops_the_service_at_start(monkeypatch):
    with pytest.raises(ValidationError, match="PLANWIRE_KAFKA_SASL_PASSWORD"):
        settings(
            monkeypatch,
            PLANWIRE_KAFKA_SECURITY_PROTOCOL="SASL_SSL",
            PLANWIRE_KAFKA_SASL_USERNAME="planwire",
        )


async def test_the_broker_and_the_plain_clients_connect_the_same_way(monkeypatch):
    chosen = settings(monkeypatch, PLANWIRE_KAFKA_SECURITY_PROTOCOL="SASL_SSL", **LOGIN)
    broker = make_broker(chosen, client_id="test")
    by_broker = parse_security(broker.specification.security)
    by_clients = kafka_client_options(chosen)
    assert by_broker.pop("ssl_context").verify_mode == ssl.CERT_REQUIRED
    assert by_clients.pop("ssl_context").verify_mode == ssl.CERT_REQUIRED
    assert by_broker == by_clients
    # aiokafka checks the combination when a client is made (TLS without a context, an
    # unknown mechanism, SASL without a password are refused): these options pass it.
    AIOKafkaAdminClient(bootstrap_servers="kafka:9093", **kafka_client_options(chosen))
