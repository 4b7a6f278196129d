"""What a service shows to anyone who reaches its port (issue 32, item 6), over real HTTP:
`/metrics` only on a port of its own, and the API docs off where a setting turns them off.

Metrics are unauthenticated and say how busy each tenant is; the API port may be public
(compose publishes the gateway's), the metrics port never is.
"""

from __future__ import annotations

import httpx
import pytest

from planwire.specs import ServiceSpec

pytestmark = pytest.mark.e2e

# Keyless, keyed, a Kafka-driven service (FastStream's ASGI shell) and the lag exporter.
SERVED_BY = ("gateway", "gateway-secured", "annotator", "lag")
DOCS = ("/docs", "/redoc", "/openapi.json")


async def test_metrics_are_on_their_own_port_and_not_on_the_api_port(stack, secured):
    async with httpx.AsyncClient(timeout=30) as http:
        for name in SERVED_BY:
            api = stack.service_urls[name]
            for path in ("/metrics", "/metrics/"):
                assert (await http.get(api + path)).status_code == 404, (name, path)
            page = await http.get(stack.metrics_urls[name])
            assert page.status_code == 200, name
            assert "# HELP planwire_" in page.text, name


@pytest.fixture(scope="module")
def without_docs(stack) -> str:
    """A gateway started with PLANWIRE_API_DOCS=false, as the production overlay runs it."""
    spec = ServiceSpec(
        "gateway-nodocs", "services.gateway.main", env={"PLANWIRE_API_DOCS": "false"}
    )
    return stack.add_service(spec)


async def test_api_docs_are_served_by_default_and_gone_when_turned_off(stack, without_docs):
    async with httpx.AsyncClient(timeout=30) as http:
        for path in DOCS:
            assert (await http.get(stack.gateway_url + path)).status_code == 200, path
            assert (await http.get(without_docs + path)).status_code == 404, path
        # Only the description is gone: the API and the page still answer.
        assert (await http.post(without_docs + "/v1/sessions")).status_code == 201
        assert (await http.get(without_docs + "/")).status_code == 200
