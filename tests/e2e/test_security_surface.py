"""What a service shows to anyone who reaches its port (issue 32, item 6), over real HTTP:
`/metrics` only on a port of its own.

Metrics are unauthenticated and say how busy each tenant is; the API port may be public
(compose publishes the gateway's), the metrics port never is.
"""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.e2e

# Keyless, keyed, a Kafka-driven service (FastStream's ASGI shell) and the lag exporter.
SERVED_BY = ("gateway", "gateway-secured", "annotator", "lag")


async def test_metrics_are_on_their_own_port_and_not_on_the_api_port(stack, secured):
    async with httpx.AsyncClient(timeout=30) as http:
        for name in SERVED_BY:
            api = stack.service_urls[name]
            for path in ("/metrics", "/metrics/"):
                assert (await http.get(api + path)).status_code == 404, (name, path)
            page = await http.get(stack.metrics_urls[name])
            assert page.status_code == 200, name
            assert "# HELP planwire_" in page.text, name
