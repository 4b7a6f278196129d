"""How every Kafka client of a process authenticates and encrypts, from `PLANWIRE_KAFKA_*`.

One place for FastStream's broker and for the plain aiokafka clients (topic creation, offset
adoption, the lag exporter), so no client of a process connects in another way. PLAINTEXT is
the default and what the embedded broker speaks (loopback only).
"""

from __future__ import annotations

import ssl
from typing import Any

from faststream.kafka.security import parse_security
from faststream.security import BaseSecurity, SASLPlaintext, SASLScram256, SASLScram512

from shared.settings import InfraSettings

SASL = {"PLAIN": SASLPlaintext, "SCRAM-SHA-256": SASLScram256, "SCRAM-SHA-512": SASLScram512}


def kafka_security(settings: InfraSettings) -> BaseSecurity | None:
    """FastStream's security object for the settings; None for PLAINTEXT."""
    protocol = settings.kafka_security_protocol
    if protocol == "PLAINTEXT":
        return None
    context = _tls_context(settings) if protocol.endswith("SSL") else None
    if protocol == "SSL":
        return BaseSecurity(ssl_context=context)
    password = settings.kafka_sasl_password.get_secret_value()
    # use_ssl=False says SASL_PLAINTEXT outright, rather than by a context left None.
    login = SASL[settings.kafka_sasl_mechanism]
    return login(settings.kafka_sasl_username, password, context, use_ssl=context is not None)


def kafka_client_options(settings: InfraSettings) -> dict[str, Any]:
    """The same as keyword arguments of aiokafka's clients ({} for PLAINTEXT)."""
    return parse_security(kafka_security(settings))


def _tls_context(settings: InfraSettings) -> ssl.SSLContext:
    """Verifies the broker's certificate and name: against the CA file when one is set (a
    cluster's own CA, as Strimzi makes), else the system's CAs."""
    return ssl.create_default_context(cafile=settings.kafka_tls_ca_file or None)
