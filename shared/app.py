"""The ASGI shell every Kafka-driven service runs in: `/health`, `/metrics`, AsyncAPI."""

from __future__ import annotations

from typing import Any

import uvicorn
from faststream.asgi import AsgiFastStream, make_ping_asgi
from faststream.kafka import KafkaBroker
from faststream.specification import AsyncAPI
from prometheus_client import REGISTRY, make_asgi_app

from shared.logs import configure_logging
from shared.settings import InfraSettings


def build_app(
    broker: KafkaBroker, *, title: str, description: str, lifespan: Any = None
) -> AsgiFastStream:
    """The service as an ASGI app; `/health` answers 204 only while the broker is reachable."""
    return AsgiFastStream(
        broker,
        asgi_routes=[
            ("/metrics", make_asgi_app(REGISTRY)),
            ("/health", make_ping_asgi(broker, timeout=5.0)),
        ],
        lifespan=lifespan,
        specification=AsyncAPI(title=title, description=description, version="1.0.0"),
    )


def serve(app: Any, settings: InfraSettings, name: str = "planwire") -> None:
    """Run an ASGI app under uvicorn until SIGTERM or Ctrl-C."""
    configure_logging(settings.log_level, settings.log_format, name)
    uvicorn.run(
        app, host=settings.http_host, port=settings.http_port, log_level="warning", lifespan="on"
    )
