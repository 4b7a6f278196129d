"""Render docker-compose.yml: the hand-written template plus one block per workload.

Text rendering on purpose: YAML anchors (`x-planwire-env` ...) and comments are what make the
compose file readable, and a YAML dumper would drop or mangle both.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from deploy.inventory import (
    COMMON_ENV,
    CREATE_TOPICS_SCRIPT,
    HTTP_PORT,
    KAFKA_SECURITY_ENV,
    Workload,
    deployed,
)

TEMPLATE = Path(__file__).parent / "templates" / "docker-compose.yml"


def render_compose() -> str:
    """The whole docker-compose.yml."""
    text = TEMPLATE.read_text()
    text = text.replace("@@COMMON_ENV@@", _env_lines(COMMON_ENV, indent=2))
    text = text.replace("@@KAFKA_SECURITY_ENV@@", _passed_through(KAFKA_SECURITY_ENV, indent=2))
    text = text.replace(
        "@@CREATE_TOPICS_SCRIPT@@", textwrap.indent(CREATE_TOPICS_SCRIPT.rstrip("\n"), " " * 8)
    )
    return text.replace("@@SERVICES@@", "\n".join(_service_block(w) for w in deployed()))


def _env_lines(env: dict[str, str], indent: int) -> str:
    """`KEY: "value"` lines; values JSON-quoted so YAML keeps them strings."""
    return "\n".join(f"{' ' * indent}{key}: {json.dumps(value)}" for key, value in env.items())


def _passed_through(env: dict[str, str], indent: int) -> str:
    """`KEY: ${KEY:-default}` lines: the operator's shell or .env decides, else the default."""
    return "\n".join(f"{' ' * indent}{key}: ${{{key}:-{value}}}" for key, value in env.items())


def _service_block(workload: Workload) -> str:
    """One service: the shared anchor, its command, and the gateway's extras."""
    anchor = "*model-service" if workload.uses_model else "*service"
    lines = [
        f"  {workload.name}:",
        f"    <<: {anchor}",
        f"    command: {json.dumps(list(workload.args))}",
    ]
    if workload.component == "gateway":
        lines += _gateway_extras()
    return "\n".join(lines) + "\n"


# The host address the gateway's port is published on. Loopback by default: a host
# firewall does not see Docker's published ports, so "0.0.0.0" would open the API to every
# network the host is on; a reverse proxy on the host reaches 127.0.0.1 (docs/deploy.md).
PUBLISH_ADDRESS = "${PLANWIRE_PUBLISH_ADDRESS:-127.0.0.1}"


def _gateway_extras() -> list[str]:
    """The gateway is the only service reachable from outside, and the only one with API keys."""
    return [
        "    ports:",
        f'      - "{PUBLISH_ADDRESS}:{HTTP_PORT}:{HTTP_PORT}"',
        "    environment:",
        "      <<: *planwire-env",
        "      # JSON map of bearer key (or sha256:<hex> of it) -> tenant. Unset, the gateway",
        "      # refuses to start on 0.0.0.0 unless PLANWIRE_ALLOW_ANONYMOUS=1 (docs/security.md).",
        "      PLANWIRE_API_KEYS: ${PLANWIRE_API_KEYS:-}",
        "      PLANWIRE_ALLOW_ANONYMOUS: ${PLANWIRE_ALLOW_ANONYMOUS:-0}",
        "      # Signs the browser auth cookie; set it when more than one gateway runs.",
        "      PLANWIRE_AUTH_SECRET: ${PLANWIRE_AUTH_SECRET:-}",
        "      PLANWIRE_AUTH_COOKIE_SECURE: ${PLANWIRE_AUTH_COOKIE_SECURE:-auto}",
        "      # Whose X-Forwarded-For/-Proto to believe: a proxy on the host reaches the gateway",
        "      # from the compose network's gateway address, not 127.0.0.1 (docs/security.md).",
        """      PLANWIRE_TRUSTED_PROXIES: '${PLANWIRE_TRUSTED_PROXIES:-["127.0.0.1", "::1"]}'""",
        "      # /docs, /redoc and /openapi.json on the published port; false turns them off.",
        "      PLANWIRE_API_DOCS: ${PLANWIRE_API_DOCS:-true}",
    ]
